"""The answer triage would give a recall, built by the client from its own reads (docs/verifiable-log.md,
"Recall", "Without triage"), as the TypeScript ``localRecallAnswer`` (``client/local-recall-answer.ts``)
builds it: nothing here is a verdict; the client decides the answer with the same steps as triage's."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from .errors import LogVerificationError, ResealError
from .log import Checkpoint
from .logged_seal_search import search_logged_seal
from .records import V
from .triage import isolate_delta, triaged_detail

__all__ = ["LocalRecallReads", "local_recall_answer"]

MAX_REASON_UNITS: Final = 4000
"""The bound of an answer's ``refusalReason`` (the answer schema's, in UTF-16 code units)."""


@dataclass(frozen=True)
class LocalRecallReads:
    """What :func:`local_recall_answer` reads with, each a read of the lineage's table.

    :param prove_in: record ``seq`` read and proven by inclusion in the tree given, as
        ``(record, inclusion)`` (``{leafIndex, treeSize, inclusionProof}``); raises
        :class:`LogVerificationError` when it is missing or does not prove
    :param consistency: the consistency proof (hex hashes) from the tree of ``size1`` records to
        the tree of ``size2``; raises :class:`LogVerificationError` when a node is missing
    :param find_by_residual_id: the residual id's marker ``{lineageId, seq}``, or ``None``
    :param now_ms: clock of the answer's ``completedAtMs``, ms since the Unix epoch
    """

    prove_in: Callable[[int, Checkpoint], tuple[dict[str, Any], dict[str, Any]]]
    consistency: Callable[[int, int], list[str]]
    find_by_residual_id: Callable[[str], Mapping[str, Any] | None]
    now_ms: Callable[[], int]


def _text(reason: str) -> str:
    """``reason`` within the answer's bound and well formed, as triage words it (a reason may quote
    a hostile stored string): cut to the bound ending in ``…``, a lone surrogate as U+FFFD."""
    units = len(reason.encode("utf-16-le", "surrogatepass")) // 2
    if units > MAX_REASON_UNITS:
        cut = reason.encode("utf-16-le", "surrogatepass")[: (MAX_REASON_UNITS - 1) * 2]
        reason = cut.decode("utf-16-le", "surrogatepass") + "…"
    return reason.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def local_recall_answer(
    reads: LocalRecallReads,
    request: Mapping[str, Any],
    tree: Checkpoint | LogVerificationError | None,
    trusted: Checkpoint | None,
) -> dict[str, Any]:
    """The ``TriageCompleted`` detail triage would store for ``request``, from the client's reads:
    the target's seq (the tree's last leaf, the seq asked, or the residual id's marker), that record
    with its inclusion proof in ``tree`` (a marker that leads to a record of another residual id only
    locates: the residual id's record is searched for in ``tree``, newest first, at most 256; none
    found is a ``VERIFICATION_FAILED`` refusal, ``UNVERIFIED_TAMPER_RISK``, never a finding; a marker
    naming no valid seq is no usable marker, ``NOT_FOUND`` as a deleted one, so the client searches
    for a seal it hides), the consistency proof from ``trusted`` (for a signed
    ``tree``), and the delta against ``request["currentEnv"]`` (:func:`reseal.triage.triaged_detail`).
    Refusals are triage's: ``NOT_FOUND``, ``VERIFICATION_FAILED`` (with the verdict read),
    ``MANIFEST_UNTRIAGEABLE`` (with the proof). It is an answer, not a verdict: the client decides it
    as it decides triage's, so nothing read here is acted on before it is proven.

    :param request: ``{requestId, lineageId, target, currentEnv}``, already validated
    :param tree: the lineage's tree as the head item shows it: its signed checkpoint, or the tree a
        head without one claims (``note`` ``None``); ``None`` (no lineage) or the finding that
        stopped its read
    :param trusted: the kept checkpoint, shown consistent with ``tree`` already (``None``: none)
    :raises: what the reads raise other than :class:`LogVerificationError` (an outage)
    """
    lineage_id, target = request["lineageId"], request["target"]
    base: dict[str, Any] = {
        "formatVersion": 1,
        "requestId": request["requestId"],
        "lineageId": lineage_id,
        "residualId": target.get("residualId"),
        "completedAtMs": reads.now_ms(),
    }

    def refused(
        code: str, reason: str, seq: int | None, verdict: str | None = None, proof: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        failure = (
            None if verdict in (None, V.VERIFIED_INTACT) else {"seq": seq, "verdict": verdict, "reason": _text(reason)}
        )
        return {
            **base,
            "seq": seq,
            "outcome": "REFUSED",
            "verification": None if verdict is None else {"verdict": verdict, "firstFailure": failure},
            "report": None,
            "proof": proof,
            "refusalReason": _text(reason),
            "refusalCode": code,
        }

    if tree is None:
        return refused("NOT_FOUND", "no such lineage: it has no records", None)
    if isinstance(tree, LogVerificationError):
        return refused("VERIFICATION_FAILED", tree.reason, None, tree.verdict)
    seq: int | None
    if "seq" in target:
        seq = target["seq"]
    elif "residualId" in target:
        location = reads.find_by_residual_id(target["residualId"])
        seq = None if location is None or location.get("lineageId") != lineage_id else location.get("seq")
        if seq is not None and (type(seq) is not int or seq < 0):
            # No record can sit there: the marker is edited, so it locates nothing, as a deleted
            # one. NOT_FOUND lets the client search the index and the records past it, which prove
            # a seal it hides (docs/verifiable-log.md, "Without triage"), as in TypeScript.
            return refused(
                "NOT_FOUND",
                f"no usable marker: the residual-id marker of {target['residualId']} names no valid seq",
                None,
            )
    else:
        seq = tree.size - 1
    if seq is None or seq < 0:
        return refused("NOT_FOUND", "no such record in this lineage", None)
    if seq >= tree.size:
        return refused(
            "NOT_FOUND",
            f"no record at seq {seq}: the lineage's head covers {tree.size} records (if it was just appended, "
            "recall again)",
            seq,
        )
    try:
        record, inclusion = reads.prove_in(seq, tree)
    except LogVerificationError as error:
        return refused("VERIFICATION_FAILED", error.reason, seq, error.verdict)
    if "residualId" in target and record["header"]["residualId"] != target["residualId"]:
        # The marker is an item a table writer can edit: it locates, never proves. A record of
        # another residual id under it is looked past, as a marker naming another lineage is.
        marked = (
            f"the residual-id marker of {target['residualId']} points at seq {seq}, "
            f"which seals {record['header']['residualId']}"
        )
        try:
            found = search_logged_seal(lambda at, t: reads.prove_in(at, t)[0], target["residualId"], tree).seq
            if found is not None:
                seq = found
                record, inclusion = reads.prove_in(seq, tree)
        except LogVerificationError as error:
            reason = f"{marked}, and the search for it stopped: {error.reason}"
            return refused("VERIFICATION_FAILED", reason, None, V.UNVERIFIED_TAMPER_RISK)
        if found is None:
            reason = f"{marked}, and no record proven in the head's tree of {tree.size} seals it"
            return refused("VERIFICATION_FAILED", reason, None, V.UNVERIFIED_TAMPER_RISK)
    consistency = None
    if trusted is not None and tree.note is not None and trusted.size != tree.size:
        try:
            hashes = reads.consistency(trusted.size, tree.size)
        except (LogVerificationError, ValueError) as error:
            verdict = error.verdict if isinstance(error, LogVerificationError) else V.LINEAGE_BROKEN
            return refused("VERIFICATION_FAILED", getattr(error, "reason", str(error)), None, verdict)
        consistency = {"fromSize": trusted.size, "toSize": tree.size, "proof": hashes}
    proof = {
        "checkpoint": tree.note,
        "treeHead": {"treeSize": tree.size, "rootHash": tree.root_hash.hex()},
        "seq": seq,
        "recordHash": record["recordHash"],
        "inclusion": inclusion,
        "consistency": consistency,
    }
    try:
        report = isolate_delta(record["manifest"], dict(request["currentEnv"]))
    except ResealError as error:
        untriageable = refused(
            "MANIFEST_UNTRIAGEABLE", f"delta isolation refused: {error}", seq, V.VERIFIED_INTACT, proof
        )
        return {**untriageable, "residualId": record["header"]["residualId"]}
    return triaged_detail(base, record["header"], report, proof)
