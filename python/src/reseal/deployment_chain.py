"""Freshness from the deployment log (docs/deployment-log.md, "Clients"), pure.

A record's freshness is a chain of three proofs, each checked with hashes and public keys: the
record in its lineage tree, the lineage's head in the verifiable index, and the index root as the
**last** leaf of a deployment checkpoint that meets the client's C2SP tlog-policy now.
:func:`verify_deployment_chain` checks the last two (the first is ``verify_record_proof``);
:func:`decide_record_freshness` and :func:`decide_absence` place a proven record, or a "no such
record" answer, against it. The same decisions as the TypeScript core
(``shared/integrator/deployment-chain.ts``, ``decide-record-freshness.ts``, ``decide-absence.ts``), read
from docs/.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

from .canonical import HashDomain, hash_bytes
from .errors import CheckpointFormatError, InputIssue, InvalidInputError, NoteFormatError
from .index import (
    IndexProof,
    check_index_absence,
    check_index_presence,
    index_entry_key,
    index_key_path,
)
from .log import Checkpoint, NoteVerifierKey, check_consistency, format_verifier_key, leaf_hash, verify_inclusion
from .re_anchor import ReAnchorNotice, re_anchored_leaf, verify_re_anchor_statement
from .records import V
from .witness import TlogPolicy, check_policy, parse_policy

__all__ = [
    "DEFAULT_INTEGRATION_INTERVAL_SECONDS",
    "DEFAULT_MAX_AGE_SECONDS",
    "DeploymentChain",
    "FreshnessPolicy",
    "IndexClaim",
    "RecordFreshness",
    "decide_absence",
    "decide_record_freshness",
    "default_policy_text",
    "deployment_leaf",
    "freshness_policy",
    "verify_deployment_anchor",
    "verify_deployment_chain",
]

DEFAULT_MAX_AGE_SECONDS: Final = 180
"""The default maximum age of a quorum of cosignatures, seconds (docs/deployment-log.md,
"Freshness window and interval"); the stack deploys with it."""

DEFAULT_INTEGRATION_INTERVAL_SECONDS: Final = 2
"""The default integration interval, seconds: how long a sealed write may wait to be integrated."""

ChainKind = Literal["PROVEN", "ABSENT", "REFUSED", "UNPUBLISHED", "ANCHORED"]
ChainRefusal = Literal[
    "POLICY_NOT_MET",
    "COSIGNATURES_TOO_OLD",
    "LEAF_NOT_LAST",
    "INDEX_PROOF_INVALID",
    "RE_ANCHOR_INVALID",
    "FORK",
    "DEPLOYMENT_ROLLBACK",
]
"""Why a chain is refused. ``FORK`` also when the note and the deployment checkpoint the client
kept are two histories; ``DEPLOYMENT_ROLLBACK`` (added by :class:`reseal.DeploymentChainReader`
with a checkpoint store) when the table serves an older deployment checkpoint than the kept one,
or none at all (docs/verifiable-log.md, "Checkpoints the client keeps")."""
FreshnessState = Literal["PROVEN", "SEALED_AWAITING_INTEGRATION", "ABSENT", "NOT_NEWEST", "INCONSISTENT", "REFUSED"]
Witnessing = Literal["WITNESSED", "UNWITNESSED"]

_MAX_SAFE: Final = 2**53 - 1


def deployment_leaf(index_root: bytes) -> bytes:
    """Leaf ``i`` of the deployment log: ``SHA-256("reseal/v1/deployment-leaf" || 0x00 ||
    indexRoot)``, 32 raw bytes (docs/deployment-log.md, "Leaves"); its RFC 9162 leaf hash is
    ``leaf_hash(deployment_leaf(root))``."""
    return bytes.fromhex(hash_bytes(HashDomain.DEPLOYMENT_LEAF, bytes(index_root)))


# --- policy ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class FreshnessPolicy:
    """The C2SP tlog-policy deployment checkpoints are checked against, with the settings
    tlog-policy has no line for (docs/deployment-log.md, "Clients", item 4).

    ``window_seconds`` is the freshness window of a cold client, ``max_age_seconds +
    interval_seconds`` (docs/witness.md, "The freshness window of a cold client"); ``None`` when
    ``UNWITNESSED`` (``quorum none``: what the log signed, no window at all)."""

    text: str
    policy: TlogPolicy
    max_age_seconds: int
    interval_seconds: int
    witnessing: Witnessing
    window_seconds: int | None


def default_policy_text(log_key: NoteVerifierKey, witness: tuple[str, str] | None = None) -> str:
    """A stack's default policy: its log key, and with a witness ``(vkey, url)`` that witness and
    ``quorum w1``; without one ``quorum none`` (the log alone, ``UNWITNESSED``), as the TypeScript
    ``defaultPolicyText`` writes it."""
    log = f"log {format_verifier_key(log_key)}\n"
    if witness is None:
        return f"{log}quorum none\n"
    vkey, url = witness
    return f"{log}witness w1 {vkey} {url}\nquorum w1\n"


def freshness_policy(
    text: str,
    max_age_seconds: int = DEFAULT_MAX_AGE_SECONDS,
    interval_seconds: int = DEFAULT_INTEGRATION_INTERVAL_SECONDS,
) -> FreshnessPolicy:
    """Reads a policy text and its settings.

    :raises PolicyFormatError: naming the line of a malformed policy
    :raises InvalidInputError: a maximum age or interval that is not a positive whole number of seconds
    """
    for path, value in (("maxAgeSeconds", max_age_seconds), ("intervalSeconds", interval_seconds)):
        if type(value) is not int or not 1 <= value <= _MAX_SAFE:
            raise InvalidInputError(
                "freshness policy", [InputIssue(path, "expected a positive whole number of seconds")]
            )
    policy = parse_policy(text)
    witnessed = policy.quorum.kind != "NONE"
    return FreshnessPolicy(
        text,
        policy,
        max_age_seconds,
        interval_seconds,
        "WITNESSED" if witnessed else "UNWITNESSED",
        max_age_seconds + interval_seconds if witnessed else None,
    )


# --- the chain ------------------------------------------------------------------------------


@dataclass(frozen=True)
class IndexClaim:
    """What the index under the checkpoint's last leaf is claimed to hold for one key: ``presence``
    of ``entry`` or ``absence``, with the proof (binary layout, JSON form or :class:`IndexProof`)."""

    kind: Literal["presence", "absence"]
    proof: bytes | Mapping[str, Any] | IndexProof
    entry: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class DeploymentChain:
    """What :func:`verify_deployment_chain` finds (or a reader's ``UNPUBLISHED``: no deployment
    checkpoint is published under an unwitnessed policy; or :func:`verify_deployment_anchor`'s
    ``ANCHORED``: the checkpoint and its last leaf, no index claim).

    ``PROVEN``: ``lineage`` (the indexed head ``{treeSize, rootHash, headRecordHash,
    generationEpoch, writerPolicyDigest}``) and ``residual`` (``{seq, recordHash}``, ``None`` when
    none was asked). ``ABSENT``: ``absent`` names the key proven absent (``lineage`` is ``None``
    when it is the lineage). Both carry the accepted ``checkpoint``, ``witnessed``, ``quorum_time``
    and ``fresh_until`` (POSIX seconds, ``None`` when unwitnessed), and ``re_anchor``, the notice
    of an operator's re-anchor when the checkpoint is of a re-anchored history (docs/deployment-log.md,
    "Re-anchor", "What clients see"; ``None`` otherwise). ``REFUSED``: ``refusal`` and ``reason``;
    nothing of it may be acted on."""

    kind: ChainKind
    reason: str = ""
    refusal: ChainRefusal | None = None
    checkpoint: Checkpoint | None = None
    witnessed: bool = False
    quorum_time: int | None = None
    fresh_until: int | None = None
    lineage: dict[str, Any] | None = None
    residual: dict[str, Any] | None = None
    absent: Literal["lineage", "residual"] | None = None
    re_anchor: ReAnchorNotice | None = None


def _refused(refusal: ChainRefusal, reason: str) -> DeploymentChain:
    return DeploymentChain("REFUSED", reason=reason, refusal=refusal)


def _check_claim(root: bytes, key: dict[str, str], claim: IndexClaim) -> str | None:
    """A reason when ``claim`` about ``key`` does not hold against ``root``."""
    if claim.kind == "absence":
        finding = check_index_absence(root, key, claim.proof)
        return None if finding is None else f"{finding.code}: {finding.reason}"
    if claim.entry is None:
        return "a presence claim without its entry"
    try:
        proven = index_entry_key(claim.entry)
        # A presence proof holds for the entry's own key: it must be the key asked about.
        if proven != key:
            return "the proven entry is of another key"
        finding = check_index_presence(root, claim.entry, claim.proof)
    except InvalidInputError as error:
        return f"the entry is malformed: {error}"
    return None if finding is None else f"{finding.code}: {finding.reason}"


def verify_deployment_anchor(
    *,
    note: str,
    policy: TlogPolicy,
    max_age_seconds: int,
    now_seconds: int,
    index_root: bytes,
    inclusion: Sequence[bytes],
    re_anchor: str | None = None,
) -> DeploymentChain:
    """Verifies the anchor of a freshness chain (the TypeScript ``verifyDeploymentAnchor``,
    docs/deployment-log.md, "Clients", "Re-anchor"): the deployment checkpoint ``note`` meets
    ``policy`` now, a re-anchor statement shown is signed by the log, and ``index_root`` is the
    checkpoint's **last** leaf (a re-anchored leaf of the statement when the checkpoint covers its
    re-anchor leaf). Pure; never raises for a bad note or proof.

    :returns: ``ANCHORED`` with the accepted ``checkpoint`` (and its ``re_anchor`` notice), or
        ``REFUSED`` (``POLICY_NOT_MET``, ``COSIGNATURES_TOO_OLD``, ``RE_ANCHOR_INVALID``,
        ``LEAF_NOT_LAST``)
    :raises InvalidInputError: a maximum age or clock that is not whole seconds
    """
    try:
        accepted = check_policy(note, policy, max_age_seconds=max_age_seconds, now_seconds=now_seconds)
    except (NoteFormatError, CheckpointFormatError) as error:
        return _refused("POLICY_NOT_MET", f"the deployment checkpoint is malformed: {error}")
    except InvalidInputError as error:
        if any(issue.path in ("maxAgeSeconds", "nowSeconds") for issue in error.issues):
            raise
        return _refused("POLICY_NOT_MET", f"the deployment checkpoint is malformed: {error}")
    if not accepted.accepted or accepted.checkpoint is None:
        if accepted.verdict == "QUORUM_STALE":
            return _refused("COSIGNATURES_TOO_OLD", accepted.reason)
        return _refused("POLICY_NOT_MET", f"{accepted.verdict}: {accepted.reason}")
    checkpoint = accepted.checkpoint
    notice: ReAnchorNotice | None = None
    statement_hash: bytes | None = None
    if re_anchor is not None:
        keys = [key for key, _url in policy.logs if key.name == checkpoint.origin]
        verified = verify_re_anchor_statement(re_anchor, checkpoint.origin, keys)
        if isinstance(verified, str):
            return _refused("RE_ANCHOR_INVALID", f"the re-anchor statement is refused: {verified}")
        statement, shown = verified
        if statement.restored[0] < checkpoint.size:  # else the checkpoint predates its re-anchor leaf
            notice, statement_hash = shown, bytes.fromhex(shown.statement_hash)
    root = bytes(index_root) if isinstance(index_root, (bytes, bytearray)) else b""
    if len(root) != 32:
        return _refused("LEAF_NOT_LAST", "the index root is not 32 bytes")
    leaf = deployment_leaf(root) if statement_hash is None else re_anchored_leaf(root, statement_hash)
    last = checkpoint.size > 0 and verify_inclusion(
        checkpoint.size - 1, checkpoint.size, leaf_hash(leaf), list(inclusion), checkpoint.root_hash
    )
    if not last:
        return _refused(
            "LEAF_NOT_LAST",
            f"the index root is not the last leaf (index {checkpoint.size - 1}) of the deployment checkpoint of "
            f"{checkpoint.size}{', re-anchored by the statement shown' if notice is not None else ''}",
        )
    return DeploymentChain(
        "ANCHORED",
        checkpoint=checkpoint,
        witnessed=policy.quorum.kind != "NONE",
        quorum_time=accepted.quorum_time,
        fresh_until=accepted.fresh_until,
        re_anchor=notice,
    )


def verify_deployment_chain(
    *,
    note: str,
    policy: TlogPolicy,
    max_age_seconds: int,
    now_seconds: int,
    index_root: bytes,
    inclusion: Sequence[bytes],
    lineage_id: str,
    lineage: IndexClaim,
    residual: tuple[str, IndexClaim] | None = None,
    re_anchor: str | None = None,
) -> DeploymentChain:
    """Verifies a freshness chain (docs/deployment-log.md, "Clients", item 1): the deployment
    checkpoint ``note`` meets ``policy`` at ``now_seconds`` (log signature, a quorum of
    cosignatures no older than ``max_age_seconds``), ``index_root`` (32 bytes) is its **last** leaf
    (RFC 9162 inclusion at ``size − 1``), and the index claims hold against that root for the
    lineage (and the residual id ``(residual_id, claim)``). Every argument but the policy and the
    clock is the table's, untrusted. ``re_anchor`` is the head item's re-anchor statement note: it
    must be signed by the policy's log key, and when the checkpoint covers its re-anchor leaf the
    last leaf is a re-anchored leaf of it (docs/deployment-log.md, "Re-anchor"); the finding then
    carries its notice, so a re-anchored history is never a silent ``PROVEN``.

    :returns: ``PROVEN``, ``ABSENT`` (a proof of absence as of this checkpoint) or ``REFUSED`` with
        ``POLICY_NOT_MET`` (malformed note, unknown log, bad log signature, forged cosignature, no
        quorum), ``COSIGNATURES_TOO_OLD``, ``RE_ANCHOR_INVALID`` (a statement malformed, of another
        log or not signed by its key), ``LEAF_NOT_LAST`` or ``INDEX_PROOF_INVALID``; never raises
        for a bad note or proof
    :raises InvalidInputError: a maximum age or clock that is not whole seconds, or a lineage or
        residual id that is not an identifier (the caller's, not the table's)
    """
    anchored = verify_deployment_anchor(
        note=note,
        policy=policy,
        max_age_seconds=max_age_seconds,
        now_seconds=now_seconds,
        index_root=index_root,
        inclusion=inclusion,
        re_anchor=re_anchor,
    )
    if anchored.kind == "REFUSED" or anchored.checkpoint is None:
        return anchored
    root = bytes(index_root)
    lineage_key = {"kind": "lineage", "lineageId": lineage_id}
    residual_key = None if residual is None else {**lineage_key, "kind": "residual", "residualId": residual[0]}
    index_key_path(lineage_key)  # the caller's ids: InvalidInputError when they are no identifiers
    if residual_key is not None:
        index_key_path(residual_key)
    wrong = _check_claim(root, lineage_key, lineage)
    if wrong is not None:
        return _refused("INDEX_PROOF_INVALID", f"lineage {lineage_id}: {wrong}")
    if residual is not None and residual_key is not None:
        wrong = _check_claim(root, residual_key, residual[1])
        if wrong is not None:
            return _refused("INDEX_PROOF_INVALID", f"residual {residual[0]}: {wrong}")
    base: dict[str, Any] = {
        "checkpoint": anchored.checkpoint,
        "witnessed": anchored.witnessed,
        "quorum_time": anchored.quorum_time,
        "fresh_until": anchored.fresh_until,
        "re_anchor": anchored.re_anchor,
    }
    if lineage.kind == "absence" or lineage.entry is None:
        return DeploymentChain("ABSENT", absent="lineage", **base)
    held = dict(lineage.entry["value"])
    if residual is None:
        return DeploymentChain("PROVEN", lineage=held, **base)
    if residual[1].kind == "absence" or residual[1].entry is None:
        return DeploymentChain("ABSENT", absent="residual", lineage=held, **base)
    return DeploymentChain("PROVEN", lineage=held, residual=dict(residual[1].entry["value"]), **base)


# --- where a record stands ------------------------------------------------------------------


@dataclass(frozen=True)
class RecordFreshness:
    """Where a record (or an absence) stands against the deployment chain: ``state``, the size of
    the deployment checkpoint it was checked against (``None``: none published, or refused),
    ``reason``, and for ``NOT_NEWEST``, ``INCONSISTENT`` and ``REFUSED`` the ``verdict`` a reader
    reports (else ``None``)."""

    state: FreshnessState
    checkpoint_size: int | None
    reason: str
    verdict: str | None = None


def _refuted(state: FreshnessState, size: int | None, verdict: str, reason: str) -> RecordFreshness:
    return RecordFreshness(state, size, reason, verdict)


def decide_record_freshness(
    chain: DeploymentChain,
    answered: Checkpoint,
    record: Mapping[str, Any],
    *,
    latest: bool,
    residual_asked: bool,
    consistency: Sequence[str] | None,
) -> RecordFreshness:
    """Where a proven record stands (docs/deployment-log.md, "Clients", item 3): ``PROVEN`` only
    when the chain verifies and the record's lineage checkpoint ``answered`` equals, or is
    consistent with, the indexed head that covers it; ``SEALED_AWAITING_INTEGRATION`` past the
    indexed head, before any integration, or unpublished; ``NOT_NEWEST`` for a ``latest`` answer
    older than the indexed head (a replay); ``INCONSISTENT`` when the lineage checkpoint and the
    index disagree (two histories, a residual id mapped elsewhere, or held past the record without
    it); ``REFUSED`` when the chain does not verify. Pure.

    :param record: ``{seq, recordHash, residualId}`` of the proven record
    :param consistency: the RFC 9162 consistency proof (hex) between ``answered`` and the indexed
        head, smaller to larger, from the table's nodes; ``None`` when equal or unbuildable
    """
    if chain.kind == "UNPUBLISHED":
        return RecordFreshness("SEALED_AWAITING_INTEGRATION", None, chain.reason)
    if chain.kind == "REFUSED" or chain.checkpoint is None:
        return _refuted(
            "REFUSED",
            None,
            V.UNVERIFIED_TAMPER_RISK,
            f"the deployment checkpoint does not prove freshness ({chain.refusal}): {chain.reason}",
        )
    size = chain.checkpoint.size
    at = f"deployment checkpoint {size}"
    if chain.lineage is None:
        return RecordFreshness(
            "SEALED_AWAITING_INTEGRATION",
            size,
            f"the lineage is not in the index as of {at}: sealed, awaiting integration",
        )
    indexed = Checkpoint(answered.origin, int(chain.lineage["treeSize"]), bytes.fromhex(chain.lineage["rootHash"]))
    if latest and answered.size < indexed.size:
        return _refuted(
            "NOT_NEWEST",
            size,
            V.UNVERIFIED_TAMPER_RISK,
            f"not the newest: the answer is proven in a lineage checkpoint of {answered.size} records, "
            f"but the index holds {indexed.size} as of {at} (a replayed answer)",
        )
    older, newer = (answered, indexed) if answered.size <= indexed.size else (indexed, answered)
    proof: Sequence[str] = [] if older.size == newer.size else (consistency if consistency is not None else ["x"])
    checked = check_consistency(older, newer, proof)
    if checked.verdict != V.VERIFIED_INTACT:
        return _refuted(
            "INCONSISTENT",
            size,
            V.LINEAGE_BROKEN,
            f"the record's lineage checkpoint ({answered.size} records) and the head the index holds "
            f"({indexed.size} records, {at}) are not shown to be one history: {checked.reason}",
        )
    seq = int(record["seq"])
    covered = seq < indexed.size
    if residual_asked:
        held = chain.residual if chain.kind == "PROVEN" else None
        if held is not None and (held["seq"] != seq or held["recordHash"] != record["recordHash"]):
            return _refuted(
                "INCONSISTENT",
                size,
                V.LINEAGE_BROKEN,
                f"the index maps residual {record['residualId']} to seq {held['seq']} as of {at}, but the "
                f"record shown is seq {seq}: the residual id was sealed twice "
                "(RESIDUAL_CHANGED: the index keeps the first sealing)",
            )
        if held is None and covered:
            return _refuted(
                "INCONSISTENT",
                size,
                V.LINEAGE_BROKEN,
                f"the index holds {indexed.size} records of the lineage as of {at} but not residual "
                f"{record['residualId']}, sealed at seq {seq}",
            )
    if covered:
        return RecordFreshness(
            "PROVEN",
            size,
            f"proven: seq {seq} is in the lineage head the index holds ({indexed.size} records) as of {at}",
        )
    return RecordFreshness(
        "SEALED_AWAITING_INTEGRATION",
        size,
        f"sealed, awaiting integration: seq {seq} is past the lineage head the index holds "
        f"({indexed.size} records) as of {at}",
    )


def decide_absence(chain: DeploymentChain, *, residual_id: str | None = None, seq: int = 0) -> RecordFreshness | None:
    """Decides a "no such record" answer (docs/deployment-log.md, "Clients", item 3): the index
    proving the residual id (or the lineage) absent is ``ABSENT`` as of the checkpoint; an index
    that maps the residual id, or holds a lineage head covering ``seq`` (``latest`` asks seq 0), is
    ``INCONSISTENT`` (a hidden marker or record: tamper, not "no such record"); a chain that does
    not verify is ``REFUSED`` (absence not proven). Pure.

    :returns: ``None`` when the chain says nothing: unpublished, or a seq past the indexed head
    """
    if chain.kind == "UNPUBLISHED":
        return None
    if chain.kind == "REFUSED" or chain.checkpoint is None:
        # Fail closed: a chain a table writer broke must not let a hidden marker read as absent.
        return _refuted(
            "REFUSED",
            None,
            V.UNVERIFIED_TAMPER_RISK,
            f"absence is not proven: the deployment checkpoint does not verify ({chain.refusal}): {chain.reason}",
        )
    size = chain.checkpoint.size
    at = f"deployment checkpoint {size}"
    if residual_id is not None:
        if chain.kind == "PROVEN" and chain.residual is not None:
            return _refuted(
                "INCONSISTENT",
                size,
                V.UNVERIFIED_TAMPER_RISK,
                f"the index maps residual {residual_id} to seq {chain.residual['seq']} as of {at}, but the "
                "table shows no such record: its marker or record was deleted",
            )
        scope = "and no such lineage" if chain.kind == "ABSENT" and chain.absent == "lineage" else "in this lineage"
        return RecordFreshness(
            "ABSENT", size, f"absent: the index proves no residual {residual_id} ({scope}) as of {at}"
        )
    if chain.lineage is not None and seq < chain.lineage["treeSize"]:
        return _refuted(
            "INCONSISTENT",
            size,
            V.UNVERIFIED_TAMPER_RISK,
            f"the index holds {chain.lineage['treeSize']} records of the lineage as of {at}, but the table "
            f"shows no record {seq}",
        )
    if chain.lineage is not None:
        return None  # a seq past the indexed head: the index neither proves nor contradicts it
    return RecordFreshness("ABSENT", size, f"absent: the index proves no such lineage as of {at}")
