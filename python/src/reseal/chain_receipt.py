"""Receipts of format 2, the whole deployment chain (docs/verifiable-log.md, "Receipts"), offline.

```
record ──inclusion──▶ lineage root (the index's entry) ──index proof──▶ index root ──last leaf of──▶ deployment checkpoint (cosigned)
```

:func:`verify_chain_receipt` makes the same checks, with the same verdicts and refusal codes, as
the TypeScript ``verifyChainReceipt`` (``shared/integrator/chain-receipt.ts``), from the modules
that already hold each step: :func:`reseal.verify_record_proof` (the record in the indexed lineage
tree) and :func:`reseal.verify_deployment_chain` (policy, last leaf, index proofs).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from ._checks import Checker
from .deployment_chain import IndexClaim, verify_deployment_chain
from .errors import IndexProofFormatError, InvalidInputError
from .index import IndexProof, decode_index_proof, index_proof_from_json, index_proof_to_json, parse_index_entry
from .log import Checkpoint, _check_proof_shape, verify_record_proof
from .records import V
from .witness import TlogPolicy

__all__ = ["ChainReceiptDeployment", "ChainReceiptVerification", "chain_receipt_of", "verify_chain_receipt"]

MAX_DEPLOYMENT_PROOF_HASHES: Final = 64
"""Longest RFC 9162 inclusion proof of the deployment log's last leaf (a tree of 2^63 leaves)."""

MAX_CHECKPOINT_UNITS: Final = 65_536
"""Longest deployment checkpoint note a receipt may carry, UTF-16 code units (as the TypeScript schema)."""

_FIELDS: Final = ("formatVersion", "type", "lineageId", "record", "inclusion", "index", "deployment")


@dataclass(frozen=True)
class ChainReceiptDeployment:
    """The deployment checkpoint as the policy accepted it: ``witnessed`` (the policy asks a
    quorum of cosignatures) and ``quorum_time`` (when that quorum held, POSIX seconds; ``None``
    when unwitnessed)."""

    checkpoint: Checkpoint
    witnessed: bool
    quorum_time: int | None


@dataclass(frozen=True)
class ChainReceiptVerification:
    """Outcome of :func:`verify_chain_receipt`: ``verdict`` and ``reason``; ``refusal`` why the
    deployment chain was refused (``POLICY_NOT_MET``, ``COSIGNATURES_TOO_OLD``, ``LEAF_NOT_LAST``,
    ``INDEX_PROOF_INVALID``) or ``None``; the proven ``record`` when ``VERIFIED_INTACT``; the
    accepted ``deployment`` checkpoint when the chain verified; ``freshness_checked``: whether a
    maximum age was checked, or inclusion only."""

    verdict: str
    reason: str
    refusal: str | None = None
    record: dict[str, Any] | None = None
    deployment: ChainReceiptDeployment | None = None
    freshness_checked: bool = False


def _shape_problem(receipt: Any) -> str | None:
    """The first problem of a receipt's shape, ``"<path>: <message>"``, strict at every level."""
    check = Checker()
    if check.obj(receipt, "", _FIELDS):
        if type(receipt.get("formatVersion")) is not int or receipt.get("formatVersion") != 2:
            check.add("formatVersion", "expected 2")
        if receipt.get("type") != "reseal-receipt":
            check.add("type", 'expected "reseal-receipt"')
        lineage_ok = check.identifier(receipt.get("lineageId"), "lineageId")
        _check_proof_shape(check, receipt.get("inclusion"), "inclusion")
        index = receipt.get("index")
        if check.obj(index, "index", ("root", "lineage", "residual")):
            check.hex_digest(index.get("root"), "index.root")
            for kind in ("lineage", "residual"):
                claim = index.get(kind)
                if check.obj(claim, f"index.{kind}", ("value", "proof")) and lineage_ok:
                    key = {"kind": kind, "lineageId": receipt["lineageId"]}
                    if kind == "residual":
                        key["residualId"] = "r"  # the value's shape only; the id comes from the record
                    try:
                        parse_index_entry({**key, "value": claim.get("value")})
                    except InvalidInputError as error:
                        for issue in error.issues:
                            check.add(f"index.{kind}.{issue.path}", issue.message)
        deployment = receipt.get("deployment")
        if check.obj(deployment, "deployment", ("inclusionProof", "checkpoint"), ("reAnchor",)):
            hashes = deployment.get("inclusionProof")
            if type(hashes) is not list or len(hashes) > MAX_DEPLOYMENT_PROOF_HASHES:
                check.add(
                    "deployment.inclusionProof", f"expected an array of at most {MAX_DEPLOYMENT_PROOF_HASHES} digests"
                )
            else:
                for i, h in enumerate(hashes):
                    check.hex_digest(h, f"deployment.inclusionProof.{i}")
            check.string(deployment.get("checkpoint"), "deployment.checkpoint", MAX_CHECKPOINT_UNITS, 1)
            if "reAnchor" in deployment:
                check.string(deployment.get("reAnchor"), "deployment.reAnchor", MAX_CHECKPOINT_UNITS, 1)
    if not check.issues:
        return None
    issue = check.issues[0]
    return f"{issue.path or '<root>'}: {issue.message}"


def _refused(verdict: str, reason: str, **extra: Any) -> ChainReceiptVerification:
    return ChainReceiptVerification(verdict, reason, **extra)


def verify_chain_receipt(
    receipt: Any, policy: TlogPolicy, *, now_seconds: int, max_age_seconds: int | None = None
) -> ChainReceiptVerification:
    """Verifies a format-2 receipt offline with a C2SP tlog-policy only (docs/verifiable-log.md,
    "Receipts"): the deployment checkpoint meets ``policy`` (its log key, its quorum of
    cosignatures, and ``max_age_seconds`` before ``now_seconds`` when given, against the
    cosignature time), the index root is its last leaf, the index proves the lineage's head and
    the record's residual id, and the record is the leaf at its seq of the lineage tree the index
    holds (its own hashes recomputed). Never needs a lineage checkpoint.

    Freshness is checked only when asked: with ``max_age_seconds=None`` any cosignature time up to
    now passes, and the receipt proves inclusion as of the cosignature time, not that it is newest.

    :param receipt: the receipt as parsed JSON, untrusted
    :param now_seconds: the verifier's clock, POSIX seconds
    :returns: ``VERIFIED_INTACT`` with the record and the accepted deployment checkpoint;
        ``HASH_MISMATCH`` for a malformed receipt or an unproven record, ``UNVERIFIED_TAMPER_RISK``
        with ``refusal`` for a chain that does not verify, ``LINEAGE_BROKEN`` for an index that maps
        the residual id elsewhere; never raises on a bad receipt
    :raises InvalidInputError: a clock or maximum age that is not whole seconds (the caller's)
    """
    problem = _shape_problem(receipt)
    if problem is not None:
        return _refused(V.HASH_MISMATCH, f"malformed receipt at {problem}")
    lineage_id: str = receipt["lineageId"]
    index, deployment = receipt["index"], receipt["deployment"]
    try:
        proofs: dict[str, IndexProof] = {k: index_proof_from_json(index[k]["proof"]) for k in ("lineage", "residual")}
    except IndexProofFormatError as error:
        return _refused(V.HASH_MISMATCH, f"malformed index proof: {error}")
    # The lineage tree the index holds: its root and size come from the index entry, proven below.
    held_head = index["lineage"]["value"]
    indexed = Checkpoint(lineage_id, held_head["treeSize"], bytes.fromhex(held_head["rootHash"]))
    proven = verify_record_proof(receipt["record"], receipt["inclusion"], indexed, lineage_id)
    if proven.verdict != V.VERIFIED_INTACT or proven.record is None:
        return _refused(
            proven.verdict, f"the record is not proven in the lineage head the index holds: {proven.reason}"
        )
    header = proven.record["header"]
    residual_id: str = header["residualId"]
    chain = verify_deployment_chain(
        note=deployment["checkpoint"],
        policy=policy,
        # Unchecked: any cosignature time up to now passes (the future is still refused).
        max_age_seconds=max_age_seconds if max_age_seconds is not None else now_seconds + 1,
        now_seconds=now_seconds,
        index_root=bytes.fromhex(index["root"]),
        inclusion=[bytes.fromhex(h) for h in deployment["inclusionProof"]],
        # A re-anchored history's statement, verified as the chain reader does (docs/verifiable-log.md).
        re_anchor=deployment.get("reAnchor"),
        lineage_id=lineage_id,
        lineage=IndexClaim(
            "presence", proofs["lineage"], {"kind": "lineage", "lineageId": lineage_id, "value": held_head}
        ),
        residual=(
            residual_id,
            IndexClaim(
                "presence",
                proofs["residual"],
                {
                    "kind": "residual",
                    "lineageId": lineage_id,
                    "residualId": residual_id,
                    "value": index["residual"]["value"],
                },
            ),
        ),
    )
    # A policy of the log alone (``quorum none``) has no cosignature time to age: nothing is checked.
    checked = max_age_seconds is not None and policy.quorum.kind != "NONE"
    if chain.kind == "REFUSED" or chain.checkpoint is None:
        return _refused(
            V.UNVERIFIED_TAMPER_RISK,
            f"the deployment chain does not verify ({chain.refusal}): {chain.reason}",
            refusal=chain.refusal,
            freshness_checked=checked,
        )
    accepted = ChainReceiptDeployment(chain.checkpoint, chain.witnessed, chain.quorum_time)
    seq = header["monotonicSequenceNumber"]
    held = index["residual"]["value"]
    if held["seq"] != seq or held["recordHash"] != proven.record["recordHash"]:
        return _refused(
            V.LINEAGE_BROKEN,
            f"the index maps residual {residual_id} to seq {held['seq']}, but the receipt's record is seq {seq}",
            deployment=accepted,
            freshness_checked=checked,
        )
    unchecked = (
        ""
        if checked
        else " (freshness not checked: no maximum age)"
        if max_age_seconds is None
        else " (freshness not checked: the policy asks no cosignature)"
    )
    return ChainReceiptVerification(
        V.VERIFIED_INTACT,
        f"record seq {seq} is leaf {seq} of the lineage head the index holds ({indexed.size} records), "
        f"under deployment checkpoint {chain.checkpoint.size}{unchecked}",
        record=proven.record,
        deployment=accepted,
        freshness_checked=checked,
    )


def _proof_json(proof: bytes | Mapping[str, Any] | IndexProof) -> dict[str, Any]:
    if isinstance(proof, IndexProof):
        return index_proof_to_json(proof)
    if isinstance(proof, (bytes, bytearray)):
        return index_proof_to_json(decode_index_proof(bytes(proof)))
    return index_proof_to_json(index_proof_from_json(dict(proof)))


def chain_receipt_of(
    *,
    lineage_id: str,
    record: Any,
    inclusion: Mapping[str, Any],
    index_root: bytes,
    lineage: IndexClaim,
    residual: IndexClaim,
    deployment_inclusion: Sequence[bytes],
    deployment_checkpoint: str,
) -> dict[str, Any]:
    """Assembles a format-2 receipt (docs/verifiable-log.md, "Receipts"; the TypeScript
    ``buildChainReceipt``) from a chain's evidence: the record as stored, its RFC 9162 inclusion
    proof in the lineage tree at the head the index holds (``{leafIndex, treeSize,
    inclusionProof}``, hex), the index root, the presence claims of the lineage and the residual id,
    the proof of the index root's leaf at ``size − 1`` and the deployment checkpoint note. No
    lineage checkpoint goes in: the lineage root comes from the index alone. Assembled only;
    :func:`verify_chain_receipt` decides whether it proves anything.

    :raises ValueError: a claim that is not a presence with its entry (nothing to put in a receipt)
    """
    if lineage.kind != "presence" or lineage.entry is None or residual.kind != "presence" or residual.entry is None:
        raise ValueError("a format-2 receipt needs the index's presence proofs of the lineage and the residual id")
    return {
        "formatVersion": 2,
        "type": "reseal-receipt",
        "lineageId": lineage_id,
        "record": record,
        "inclusion": dict(inclusion),
        "index": {
            "root": bytes(index_root).hex(),
            "lineage": {"value": dict(lineage.entry["value"]), "proof": _proof_json(lineage.proof)},
            "residual": {"value": dict(residual.entry["value"]), "proof": _proof_json(residual.proof)},
        },
        "deployment": {
            "inclusionProof": [bytes(h).hex() for h in deployment_inclusion],
            "checkpoint": deployment_checkpoint,
        },
    }
