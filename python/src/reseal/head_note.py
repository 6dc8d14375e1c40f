"""The note of the deployment head a reader checks its policy against (docs/deployment-log.md,
"Clients", item 2), as the TypeScript ``chooseHeadNote`` (``client/head-note.ts``) chooses it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .errors import ResealError
from .item_layout import StoredDeploymentHead
from .log import Checkpoint, open_checkpoint, verify_consistency
from .tree_refs import consistency_proof_refs, range_root
from .witness import TlogPolicy

__all__ = ["HeadNote", "choose_head_note"]


@dataclass(frozen=True)
class HeadNote:
    """``kind`` ``NOTE`` with ``note`` (``None`` when the head holds none), ``FORK`` with ``reason``
    (two histories), or ``UNREADABLE`` with ``reason`` (a note on the head no policy log key verifies)."""

    kind: str
    note: str | None = None
    reason: str = ""


def _present(note: object) -> bool:
    return isinstance(note, str) and note != ""


def _opened(note: str, policy: TlogPolicy) -> Checkpoint | None:
    for key, _ in policy.logs:
        try:
            return open_checkpoint(note, key, key.name)
        except ResealError:
            continue
    return None


def choose_head_note(
    head: StoredDeploymentHead,
    witnessing: str,
    policy: TlogPolicy,
    read_nodes: Callable[[Sequence[tuple[int, int]]], list[str | None]],
) -> HeadNote:
    """Every note the head item carries (``published``, ``checkpoint``) must verify with a policy
    log key: the integrator writes only log-signed notes there, so one that does not is an edited
    item, ``UNREADABLE`` (refused ``POLICY_NOT_MET``), never dropped for the other note.
    Witnessed: the head's ``published`` note (only it carries cosignatures). Unwitnessed
    (``quorum none``): both are notes the log signed, so a table writer who sets one to an older
    note must not roll the answer back: the larger, once an RFC 9162 consistency proof from the
    table's nodes shows the smaller its prefix (``FORK`` when not, or when a proof node is hidden:
    fail closed).

    :raises: what the table reads raise (an outage)
    """
    published = head.published if _present(head.published) else None
    checkpoint = head.checkpoint if _present(head.checkpoint) else None
    candidates = [
        (field, note, _opened(note, policy))
        for field, note in (("published", published), ("checkpoint", checkpoint))
        if note is not None
    ]
    for field, _, opened in candidates:
        if opened is None:
            return HeadNote(
                "UNREADABLE",
                reason=f"the deployment head's {field} note does not verify with the policy's log key: "
                "an edited head item, fail closed",
            )
    if witnessing == "WITNESSED":
        return HeadNote("NOTE", published)
    verified = [(note, opened) for _, note, opened in candidates if opened is not None]
    if not verified:
        return HeadNote("NOTE", None)
    if len(verified) == 1:
        return HeadNote("NOTE", verified[0][0])
    (note1, first), (note2, second) = verified
    smaller, (larger_note, larger) = (first, (note2, second)) if first.size <= second.size else (second, (note1, first))

    def fork(why: str) -> HeadNote:
        return HeadNote(
            "FORK",
            reason=f"the deployment head's published note ({first.size} leaves) and its checkpoint "
            f"({second.size} leaves) {why}: fail closed",
        )

    if smaller.origin != larger.origin:
        return fork("are of two logs")
    if smaller.size == larger.size:
        return HeadNote("NOTE", larger_note) if smaller.root_hash == larger.root_hash else fork("are two histories")
    if smaller.size == 0:
        return HeadNote("NOTE", larger_note)
    groups = consistency_proof_refs(smaller.size, larger.size)
    refs = [ref for group in groups for ref in group]
    hashes = dict(zip(refs, read_nodes(refs), strict=True)) if refs else {}
    try:
        proof = [range_root([bytes.fromhex(str(hashes[ref])) for ref in group]) for group in groups]
    except (ValueError, TypeError):
        return fork("cannot be shown consistent (a node of the consistency proof is missing)")
    if not verify_consistency(smaller.size, larger.size, smaller.root_hash, larger.root_hash, proof):
        return fork("are two histories (RFC 9162 consistency fails)")
    return HeadNote("NOTE", larger_note)
