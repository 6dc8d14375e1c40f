"""Sealed records: header hashes, body digests, and chain verification (docs/sealing.md).

A header is read by its ``formatVersion`` first: :data:`HEADER_FORMATS` maps each known version
to its members, and a record of any other version is ``UNVERIFIED_TAMPER_RISK`` (cannot verify),
never guessed at. A new header format is an addition to that table (and to the digest checks of
:func:`check_record_integrity` when it names new bodies).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from ._checks import AUTHORITIES, BASE64_MAC, NO_CONTROL, Checker, is_safe_int
from .authorship import (
    AdmissionState,
    admit_write,
    boundary_digest,
    check_lineage_policy,
    check_writer_block,
    policy_digest,
    signed_write_digest,
    verify_writer_signature,
    writer_digest,
)
from .canonical import HashDomain, canonical_bytes, hash_bytes, hash_canonical
from .errors import AnchorKeyMismatchError, HeaderTooLargeError, InputIssue, InvalidInputError
from .guard import check_boundary, check_declared_constants, check_payload, check_variable
from .triage import _check_manifest

__all__ = [
    "VerificationVerdict",
    "HEADER_FORMATS",
    "WRITER_BOUND_HEADER_FIELDS",
    "WRITER_BOUND_RECORD_FIELDS",
    "writer_binding_problem",
    "MAX_HEADER_BYTES",
    "genesis_parent_hash",
    "payload_hash",
    "variables_digest",
    "header_bytes",
    "record_hash_of",
    "IntactRecord",
    "IntegrityFailure",
    "check_record_integrity",
    "LocalHmacAnchor",
    "RecordVerification",
    "ChainVerification",
    "verify_chain",
]

MAX_HEADER_BYTES: Final = 4096
"""Largest header a KMS MAC covers, in canonical UTF-8 bytes."""

_FORMAT_1_HEADER: Final = (
    "formatVersion", "lineageId", "monotonicSequenceNumber", "residualId", "sessionId",
    "payloadHash", "parentRecordHash", "generationEpoch", "authority", "manifestDigest",
    "verdictDigest", "variablesDigest", "sealedAtMs", "keyId", "supersedes",
)  # fmt: skip
WRITER_BOUND_HEADER_FIELDS: Final = ("writerDigest", "boundaryDigest", "policyDigest")
"""The header digests format 2 adds (docs/authorship.md, "Record format 2")."""
HEADER_FORMATS: Final[Mapping[int, tuple[str, ...]]] = {
    1: _FORMAT_1_HEADER,
    2: _FORMAT_1_HEADER + WRITER_BOUND_HEADER_FIELDS,
}
"""Members of each known record header format (exactly these)."""

RECORD_FIELDS: Final = ("header", "recordHash", "anchor", "payload", "manifest", "variablesUsed", "sealedAtMs")
WRITER_BOUND_RECORD_FIELDS: Final = ("writer", "boundary", "declaredImmutableConstants", "policy")
"""The fields a format-2 record stores beside its header: the writer (with the SQS ``SenderId``),
the session boundary and declared constants, and the policy the record sets (or ``None``)."""
RECORD_FORMAT_WRITER_BOUND: Final = 2
MAC_ALGORITHMS: Final = ("HMAC_SHA_256",)


class VerificationVerdict:
    """The six verdicts of docs/sealing.md ("Verification")."""

    VERIFIED_INTACT: Final = "VERIFIED_INTACT"
    HASH_MISMATCH: Final = "HASH_MISMATCH"
    LINEAGE_BROKEN: Final = "LINEAGE_BROKEN"
    SEQUENCE_REPLAYED: Final = "SEQUENCE_REPLAYED"
    TRUNCATION_DETECTED: Final = "TRUNCATION_DETECTED"
    UNVERIFIED_TAMPER_RISK: Final = "UNVERIFIED_TAMPER_RISK"


V = VerificationVerdict
_DEFINITE: Final = frozenset({V.HASH_MISMATCH, V.LINEAGE_BROKEN, V.SEQUENCE_REPLAYED, V.TRUNCATION_DETECTED})


def genesis_parent_hash(lineage_id: str) -> str:
    """Parent of seq 0: ``reseal/v1/genesis`` over ``{"v":1,"lineageId":…}``."""
    return hash_canonical(HashDomain.GENESIS, {"v": 1, "lineageId": lineage_id})


def payload_hash(payload: Any) -> str:
    """``reseal/v1/payload`` over the payload's canonical form (the header's ``payloadHash``)."""
    return hash_canonical(HashDomain.PAYLOAD, payload)


def variables_digest(variables_used: Sequence[Any]) -> str:
    """``reseal/v1/variables`` over ``{"v":1,"variablesUsed":[…]}`` in stored order."""
    return hash_canonical(HashDomain.VARIABLES, {"v": 1, "variablesUsed": list(variables_used)})


def header_bytes(header: Mapping[str, Any]) -> bytes:
    """The header's canonical bytes: the MAC message and the record hash's message.

    :raises HeaderTooLargeError: over :data:`MAX_HEADER_BYTES`
    """
    message = canonical_bytes(dict(header))
    if len(message) > MAX_HEADER_BYTES:
        raise HeaderTooLargeError(f"record header is {len(message)} bytes; a MAC covers at most {MAX_HEADER_BYTES}")
    return message


def record_hash_of(header: Mapping[str, Any]) -> str:
    """``reseal/v1/record-header`` over :func:`header_bytes` (the next record's ``parentRecordHash``)."""
    return hash_bytes(HashDomain.RECORD_HEADER, header_bytes(header))


def _check_key_id(check: Checker, value: Any, path: str) -> None:
    check.string(value, path, 2048, 1, NO_CONTROL, "key id holds a control character")


def _check_record(check: Checker, raw: Any, fields: tuple[str, ...]) -> None:
    bound = "writerDigest" in fields
    if not check.obj(raw, "", RECORD_FIELDS + (WRITER_BOUND_RECORD_FIELDS if bound else ()), ("macBatch",)):
        return
    header = raw.get("header")
    if check.obj(header, "header", fields):
        for name in ("lineageId", "residualId", "sessionId"):
            check.identifier(header.get(name), f"header.{name}")
        for name in ("monotonicSequenceNumber", "generationEpoch", "sealedAtMs"):
            check.safe_int(header.get(name), f"header.{name}")
        for name in ("payloadHash", "parentRecordHash", "manifestDigest", "verdictDigest", "variablesDigest"):
            check.hex_digest(header.get(name), f"header.{name}")
        if bound:
            for name in WRITER_BOUND_HEADER_FIELDS:
                check.hex_digest(header.get(name), f"header.{name}")
        check.enum(header.get("authority"), "header.authority", AUTHORITIES)
        _check_key_id(check, header.get("keyId"), "header.keyId")
        supersedes = header.get("supersedes")
        if supersedes is not None and check.obj(supersedes, "header.supersedes", ("seq", "recordHash")):
            check.safe_int(supersedes.get("seq"), "header.supersedes.seq")
            check.hex_digest(supersedes.get("recordHash"), "header.supersedes.recordHash")
    check.hex_digest(raw.get("recordHash"), "recordHash")
    anchor = raw.get("anchor")
    if check.obj(anchor, "anchor", ("keyId", "algorithm", "mac")):
        _check_key_id(check, anchor.get("keyId"), "anchor.keyId")
        check.enum(anchor.get("algorithm"), "anchor.algorithm", MAC_ALGORITHMS)
        check.string(anchor.get("mac"), "anchor.mac", 44, 44, BASE64_MAC, "expected base64 of 32 bytes")
    if "macBatch" in raw:
        _check_mac_batch(check, raw["macBatch"])
    check_payload(check, raw.get("payload"), "payload")
    _check_manifest(check, raw.get("manifest"), "manifest")
    variables = raw.get("variablesUsed")
    if type(variables) is not list:
        check.add("variablesUsed", "expected an array")
    else:
        for i, variable in enumerate(variables):
            check_variable(check, variable, f"variablesUsed.{i}")
    check.safe_int(raw.get("sealedAtMs"), "sealedAtMs")
    if bound:
        check_writer_block(check, raw.get("writer"), "writer", with_sender=True)
        check_boundary(check, raw.get("boundary"), "boundary")
        check_declared_constants(
            check, raw.get("declaredImmutableConstants"), "declaredImmutableConstants", distinct=False
        )
        if raw.get("policy") is not None:
            check_lineage_policy(check, raw.get("policy"), "policy")


def _check_mac_batch(check: Checker, place: Any) -> None:
    """The JSON shape of a batch MAC's place, as the TypeScript ``RecordBatchPlaceSchema``: an index
    not below the size, a missing or wrong salt, a path of the wrong length (longer than 32 hashes
    included) or an element that is not a hash is the MAC's failure
    (``record_batch.record_mac_message``), not a malformed record."""
    if not check.obj(place, "macBatch", ("index", "size", "path"), ("salt",)):
        return
    for name in ("index", "size"):
        value = place.get(name)
        if not (type(value) is int and 0 <= value <= 0xFFFF_FFFF):
            check.add(f"macBatch.{name}", "expected an integer from 0 to 2^32 − 1")
    if "salt" in place and type(place["salt"]) is not str:
        check.add("macBatch.salt", "expected a string")
    path = place.get("path")
    if type(path) is not list or not all(type(n) is str and len(n) <= 64 for n in path):
        check.add("macBatch.path", "expected a list of strings of at most 64 characters")


def writer_binding_problem(record: Mapping[str, Any]) -> str | None:
    """Why a well-formed format-2 record's writer binding does not hold (docs/authorship.md,
    "Offline checks"), or ``None``: ``writerDigest``, ``boundaryDigest`` and (for a record that
    sets one) ``policyDigest`` recomputed from the stored bodies, and the writer's Ed25519
    signature over the signed-write digest rebuilt from the header."""
    header, writer, policy = record["header"], record["writer"], record["policy"]
    if writer_digest(writer) != header["writerDigest"]:
        return "writer does not match the sealed writerDigest"
    boundary_hash = boundary_digest(record["boundary"], record["declaredImmutableConstants"])
    if boundary_hash != header["boundaryDigest"]:
        return "boundary or declaredImmutableConstants do not match the sealed boundaryDigest"
    set_policy = policy_digest(policy) if policy is not None else None
    if set_policy is not None and set_policy != header["policyDigest"]:
        return "policy does not match the sealed policyDigest"
    digest = signed_write_digest(
        {**header, "boundaryDigest": boundary_hash, "policyDigest": set_policy, **_signer(writer)}
    )
    if not verify_writer_signature(digest, writer["publicKey"], writer["signature"]):
        return "the writer signature does not verify over the sealed write"
    return None


def _signer(writer: Mapping[str, Any]) -> dict[str, Any]:
    return {"keyId": writer["keyId"], "publicKey": writer["publicKey"], "signedAtMs": writer["signedAtMs"]}


@dataclass(frozen=True)
class IntactRecord:
    """A record whose fields agree with its header: ``message`` is the MAC message."""

    record: dict[str, Any]
    message: bytes
    record_hash: str


@dataclass(frozen=True)
class IntegrityFailure:
    """Why a record's fields do not agree with its header."""

    verdict: str
    reason: str


def _lost_manifest(raw: Any, header: Any) -> str | None:
    """Why a record came back from the store without the manifest its header names, naming the
    digest (the reader leaves ``manifest`` out for a missing item, ``None`` for an unreadable one;
    docs/sealing.md, "Stored items"), else ``None``. The TypeScript verifier gives the same reason."""
    if not isinstance(raw, dict) or raw.get("manifest") is not None:
        return None
    digest = header.get("manifestDigest") if isinstance(header, dict) else None
    if type(digest) is not str or re.fullmatch(r"[0-9a-f]{64}", digest) is None:
        return None
    if "manifest" not in raw:
        return f"the manifest of manifestDigest {digest} is missing (its stored item deleted, or never written)"
    return f"the manifest of manifestDigest {digest} cannot be read (not gzip, or inflating past the bound)"


def check_record_integrity(raw: Any) -> IntactRecord | IntegrityFailure:
    """The key-free checks of one record (docs/sealing.md, checks 1–5 and 13).

    An unknown header ``formatVersion`` is ``UNVERIFIED_TAMPER_RISK`` (cannot verify); a malformed
    record, or a payload, manifest, variables, ``sealedAtMs``, record hash or anchor key that
    disagrees with the header is ``HASH_MISMATCH``. Never raises on a bad record.
    """
    header = raw.get("header") if isinstance(raw, dict) else None
    version = header.get("formatVersion") if isinstance(header, dict) else None
    fields = HEADER_FORMATS.get(version) if type(version) is int else None
    if fields is None and isinstance(version, (int, float)) and not isinstance(version, bool):
        return IntegrityFailure(
            V.UNVERIFIED_TAMPER_RISK, f"format version {version} is not known to this verifier; cannot verify"
        )
    lost = _lost_manifest(raw, header)
    if lost is not None:
        return IntegrityFailure(V.HASH_MISMATCH, lost)
    check = Checker()
    if fields is None:
        check.add("header.formatVersion", f"expected one of {', '.join(map(str, HEADER_FORMATS))}")
    else:
        _check_record(check, raw, fields)
    if check.issues:
        issue = check.issues[0]
        return IntegrityFailure(V.HASH_MISMATCH, f"malformed record at {issue.path or '<root>'}: {issue.message}")
    assert isinstance(raw, dict) and isinstance(header, dict)
    if payload_hash(raw["payload"]) != header["payloadHash"]:
        return IntegrityFailure(V.HASH_MISMATCH, "payload does not match the sealed payloadHash")
    if hash_canonical(HashDomain.MANIFEST, raw["manifest"]) != header["manifestDigest"]:
        return IntegrityFailure(V.HASH_MISMATCH, "manifest does not match the sealed manifestDigest")
    if variables_digest(raw["variablesUsed"]) != header["variablesDigest"]:
        return IntegrityFailure(V.HASH_MISMATCH, "variablesUsed does not match the sealed variablesDigest")
    if raw["sealedAtMs"] != header["sealedAtMs"]:
        return IntegrityFailure(
            V.HASH_MISMATCH, f"sealedAtMs {raw['sealedAtMs']} is not the sealed {header['sealedAtMs']}"
        )
    if header["formatVersion"] == RECORD_FORMAT_WRITER_BOUND:
        problem = writer_binding_problem(raw)
        if problem is not None:
            return IntegrityFailure(V.HASH_MISMATCH, problem)
    try:
        message = header_bytes(header)
    except HeaderTooLargeError as error:
        return IntegrityFailure(V.HASH_MISMATCH, f"{error}: no anchor can have signed it")
    record_hash = hash_bytes(HashDomain.RECORD_HEADER, message)
    if record_hash != raw["recordHash"]:
        return IntegrityFailure(V.HASH_MISMATCH, "recordHash does not match the header")
    if raw["anchor"]["keyId"] != header["keyId"]:
        return IntegrityFailure(
            V.HASH_MISMATCH, f"anchor names key {raw['anchor']['keyId']} but the header names {header['keyId']}"
        )
    return IntactRecord(raw, message, record_hash)


class LocalHmacAnchor:
    """HMAC-SHA-256 record anchor with a local key (docs/sealing.md, "LocalHmacAnchor").

    :param key_id: the key id records name (``header.keyId``)
    :param key: at least 32 bytes (copied)
    :raises InvalidInputError: a shorter key or an empty key id
    """

    MIN_KEY_BYTES: Final = 32

    def __init__(self, key_id: str, key: bytes) -> None:
        if not isinstance(key_id, str) or not key_id:
            raise InvalidInputError("local HMAC anchor", [InputIssue("keyId", "expected a non-empty key id")])
        if not isinstance(key, (bytes, bytearray)) or len(key) < self.MIN_KEY_BYTES:
            raise InvalidInputError(
                "local HMAC anchor", [InputIssue("key", f"expected at least {self.MIN_KEY_BYTES} bytes")]
            )
        self.key_id = key_id
        self._key = bytes(key)

    def _mac(self, message: bytes) -> bytes:
        if not 1 <= len(message) <= MAX_HEADER_BYTES:
            raise HeaderTooLargeError(f"MAC message of {len(message)} bytes; expected 1–{MAX_HEADER_BYTES}")
        return hmac.new(self._key, message, hashlib.sha256).digest()

    def generate_mac(self, message: bytes) -> dict[str, str]:
        """``{ keyId, algorithm: "HMAC_SHA_256", mac: base64 }`` over ``message`` (1–4,096 bytes)."""
        return {"keyId": self.key_id, "algorithm": "HMAC_SHA_256", "mac": base64.b64encode(self._mac(message)).decode()}

    def verify_mac(self, message: bytes, signature: Mapping[str, Any]) -> bool:
        """Whether ``signature`` is this key's MAC of ``message`` (constant-time; canonical base64 only).

        :raises AnchorKeyMismatchError: the signature names another key
        """
        if signature.get("keyId") != self.key_id:
            raise AnchorKeyMismatchError(f"MAC names key {signature.get('keyId')}; this anchor holds {self.key_id}")
        mac = signature.get("mac")
        if signature.get("algorithm") != "HMAC_SHA_256" or type(mac) is not str or BASE64_MAC.fullmatch(mac) is None:
            return False
        given = base64.b64decode(mac)
        if base64.b64encode(given).decode() != mac:
            return False
        return hmac.compare_digest(self._mac(message), given)


@dataclass(frozen=True)
class RecordVerification:
    """One record's outcome: ``seq``/``residual_id`` are ``None`` when unreadable."""

    seq: int | None
    residual_id: str | None
    verdict: str
    reason: str


@dataclass(frozen=True)
class ChainVerification:
    """``verdict`` (see docs/sealing.md, "Verdict precedence"), per-record outcomes in input order,
    the first failure ``(seq, verdict, reason)`` or ``None``, and the last intact ``head``
    ``{ seq, recordHash }`` or ``None``; ``mac_checked`` says whether an anchor checked every MAC."""

    verdict: str
    records: list[RecordVerification]
    first_failure: RecordVerification | None
    head: dict[str, Any] | None
    mac_checked: bool


@dataclass
class _Failure:
    index: int
    seq: int | None
    verdict: str
    reason: str


def _peek(raw: Any) -> tuple[int | None, str | None]:
    header = raw.get("header") if isinstance(raw, dict) else None
    if not isinstance(header, dict):
        return None, None
    seq, rid = header.get("monotonicSequenceNumber"), header.get("residualId")
    return (seq if is_safe_int(seq) else None), (rid if type(rid) is str else None)


class _WriterWalk:
    """Check 7′ of a walk (docs/authorship.md, "Offline checks"): one format per lineage, and each
    format-2 record admitted by the policy in force before it, naming the policy in force after it.
    A suffix walk (``trusted_start``) checks admission from the first record that sets a policy."""

    def __init__(self, lineage_id: str, *, policy_known: bool) -> None:
        self.lineage_id = lineage_id
        self.format: int | None = None
        self.policy: Mapping[str, Any] | None = None
        self.policy_known = policy_known

    def check(self, record: Mapping[str, Any]) -> str | None:
        """Why ``record`` may not follow the records walked so far (``LINEAGE_BROKEN``), or ``None``."""
        header = record["header"]
        bound = header["formatVersion"] == RECORD_FORMAT_WRITER_BOUND
        if self.format is not None and self.format != header["formatVersion"]:
            return (
                "writer not admitted: a legacy (format-1) lineage is never extended"
                if bound
                else "a format-1 record after a format-2 record (a writer-bound lineage stays writer-bound)"
            )
        if not bound or not self.policy_known:
            return None
        policy = record["policy"]
        admission = admit_write(
            AdmissionState(self.lineage_id, header["monotonicSequenceNumber"], self.policy),
            record["writer"]["publicKey"],
            policy,
        )
        if admission.refused is not None:
            return f"writer not admitted: {admission.refused}"
        if policy is None and self.policy is not None and header["policyDigest"] != policy_digest(self.policy):
            return "policyDigest is not the digest of the lineage write policy in force"
        return None

    def link(self, record: Mapping[str, Any]) -> None:
        """``record`` passed: it sets the format, and the policy in force when it names one."""
        self.format = record["header"]["formatVersion"]
        if record.get("policy") is not None:
            self.policy = record["policy"]
            self.policy_known = True


def verify_chain(
    records: Sequence[Any],
    lineage_id: str,
    *,
    anchor: LocalHmacAnchor | None = None,
    checkpoint: Mapping[str, Any] | None = None,
    trusted_start: Mapping[str, Any] | None = None,
) -> ChainVerification:
    """Verifies a lineage's records in the order given (docs/sealing.md, "Verification").

    Checks 1–14 need no key. With ``anchor`` each MAC is checked too (15); without one no record
    can be ``VERIFIED_INTACT`` (fail closed): a record that passes every key-free check is
    ``UNVERIFIED_TAMPER_RISK`` "MAC not checked", while definite failures are reported as usual.

    :param checkpoint: ``{ seq, recordHash? }`` seen earlier; a chain ending before it is
        ``TRUNCATION_DETECTED``, another hash at its seq ``LINEAGE_BROKEN``
    :param trusted_start: ``{ afterSeq, afterRecordHash, generationEpoch? }``: the records begin
        at ``afterSeq + 1``
    :raises InvalidInputError: bad options or a ``records`` that is not a list (bad records never raise)
    """
    check = Checker()
    check.identifier(lineage_id, "lineageId")
    if not isinstance(records, (list, tuple)):
        check.add("records", "expected a list of records")
    if checkpoint is not None and check.obj(checkpoint, "checkpoint", ("seq",), ("recordHash",)):
        check.safe_int(checkpoint.get("seq"), "checkpoint.seq")
        if "recordHash" in checkpoint:
            check.hex_digest(checkpoint["recordHash"], "checkpoint.recordHash")
    if trusted_start is not None and check.obj(
        trusted_start, "trustedStart", ("afterSeq", "afterRecordHash"), ("generationEpoch",)
    ):
        check.safe_int(trusted_start.get("afterSeq"), "trustedStart.afterSeq")
        check.hex_digest(trusted_start.get("afterRecordHash"), "trustedStart.afterRecordHash")
        if "generationEpoch" in trusted_start:
            check.safe_int(trusted_start["generationEpoch"], "trustedStart.generationEpoch")
    check.raise_if_any("chain verification options")

    previous: tuple[int, str, int] | None = None  # seq, recordHash, epoch of the last link
    genesis = genesis_parent_hash(lineage_id)
    base = 0
    min_epoch = 0
    if trusted_start is not None:
        previous = (
            trusted_start["afterSeq"],
            trusted_start["afterRecordHash"],
            trusted_start.get("generationEpoch", 0),
        )
        base = trusted_start["afterSeq"] + 1
    hashes: dict[int, str] = {}
    residuals: dict[str, int] = {}
    walk = _WriterWalk(lineage_id, policy_known=trusted_start is None)
    findings: list[_Failure] = []
    candidates: list[tuple[int, IntactRecord]] = []
    stop: _Failure | None = None
    if (
        trusted_start is not None
        and checkpoint is not None
        and checkpoint["seq"] == trusted_start["afterSeq"]
        and checkpoint.get("recordHash") != trusted_start["afterRecordHash"]
    ):
        stop = _Failure(
            -1,
            checkpoint["seq"],
            V.LINEAGE_BROKEN,
            f"fork: the trusted start and the checkpoint name different records at seq {checkpoint['seq']}",
        )

    for index, raw in enumerate(records):
        if stop is not None:
            break
        integrity = check_record_integrity(raw)
        seq, _ = _peek(raw)
        if isinstance(integrity, IntegrityFailure):
            stop = _Failure(index, seq, integrity.verdict, integrity.reason)
            break
        header = integrity.record["header"]
        seq = header["monotonicSequenceNumber"]
        expected = previous[0] + 1 if previous else 0
        reason: tuple[str, str] | None = None
        if header["lineageId"] != lineage_id:
            reason = (V.LINEAGE_BROKEN, f"record belongs to lineage {header['lineageId']}, not {lineage_id}")
        elif seq < expected:
            reason = (V.SEQUENCE_REPLAYED, f"seq {seq} repeated or rolled back: expected seq {expected}")
        elif seq > expected:
            later = next((i for i in range(index + 1, len(records)) if _peek(records[i])[0] == expected), None)
            reason = (
                (
                    V.SEQUENCE_REPLAYED,
                    f"out of order: seq {seq} where seq {expected} was expected (found at position {later})",
                )
                if later is not None
                else (V.LINEAGE_BROKEN, f"records missing: seq {seq} where seq {expected} was expected")
            )
        elif header["parentRecordHash"] != (previous[1] if previous else genesis):
            what = f"the recordHash of seq {previous[0]}" if previous else "the genesis value of the lineage"
            reason = (V.LINEAGE_BROKEN, f"parentRecordHash is not {what}")
        elif header["generationEpoch"] < (previous[2] if previous else min_epoch):
            reason = (
                V.SEQUENCE_REPLAYED,
                f"generation epoch went back from {previous[2] if previous else min_epoch} to {header['generationEpoch']} (fenced-out writer)",
            )
        elif header["residualId"] in residuals:
            reason = (
                V.SEQUENCE_REPLAYED,
                f"residualId {header['residualId']} was already sealed at seq {residuals[header['residualId']]}",
            )
        elif header["supersedes"] is not None and header["supersedes"]["seq"] >= seq:
            reason = (
                V.LINEAGE_BROKEN,
                f"supersedes seq {header['supersedes']['seq']}, which is not earlier than {seq}",
            )
        elif (
            header["supersedes"] is not None
            and hashes.get(header["supersedes"]["seq"], header["supersedes"]["recordHash"])
            != header["supersedes"]["recordHash"]
        ):
            reason = (
                V.LINEAGE_BROKEN,
                f"supersedes seq {header['supersedes']['seq']} with a hash that is not that record's",
            )
        elif (writer_finding := walk.check(integrity.record)) is not None:
            reason = (V.LINEAGE_BROKEN, writer_finding)
        elif (
            checkpoint is not None
            and checkpoint["seq"] == seq
            and checkpoint.get("recordHash", integrity.record_hash) != integrity.record_hash
        ):
            reason = (V.LINEAGE_BROKEN, f"fork: seq {seq} differs from the trusted checkpoint (history rewritten)")
        if reason is not None:
            stop = _Failure(index, seq, *reason)
            break
        previous = (seq, integrity.record_hash, header["generationEpoch"])
        walk.link(integrity.record)
        hashes[seq] = integrity.record_hash
        residuals[header["residualId"]] = seq
        if anchor is not None and header["keyId"] != anchor.key_id:
            findings.append(
                _Failure(
                    index,
                    seq,
                    V.UNVERIFIED_TAMPER_RISK,
                    f"sealed under key {header['keyId']}; this verifier holds {anchor.key_id}, so the anchor cannot be checked",
                )
            )
        else:
            candidates.append((index, integrity))

    if stop is None and checkpoint is not None:
        last = previous[0] if previous and previous[0] >= base else (base - 1 if trusted_start else -1)
        if last < checkpoint["seq"]:
            ends = f"at seq {last}" if last >= 0 else "before seq 0"
            stop = _Failure(
                len(records),
                last + 1,
                V.TRUNCATION_DETECTED,
                f"truncated: the chain ends {ends} but a trusted checkpoint saw seq {checkpoint['seq']}",
            )

    # Imported here: record_batch reads the tree functions of .log, which imports this module.
    from .record_batch import record_mac_message

    for index, intact in candidates:
        seq = intact.record["header"]["monotonicSequenceNumber"]
        # The header bytes (single form) or the batch message its place folds to (None: malformed).
        mac_message = record_mac_message(intact.record, intact.message)
        if anchor is None:
            findings.append(
                _Failure(index, seq, V.UNVERIFIED_TAMPER_RISK, "key-free checks pass; MAC not checked (no key given)")
            )
        elif mac_message is None or not anchor.verify_mac(mac_message, intact.record["anchor"]):
            findings.append(_Failure(index, seq, V.HASH_MISMATCH, "anchor invalid: tampered or forged"))
    if stop is not None:
        findings.append(stop)

    def earliest(items: list[_Failure]) -> _Failure | None:
        return min(items, key=lambda f: f.index, default=None)

    first_definite = earliest([f for f in findings if f.verdict in _DEFINITE])
    failure = first_definite or earliest(findings)
    horizon = earliest([f for f in (first_definite, stop) if f is not None])
    own = {f.index: f for f in findings}
    described: list[RecordVerification] = []
    for index, raw in enumerate(records):
        seq, rid = _peek(raw)
        if horizon is not None and index > horizon.index:
            at = f"seq {horizon.seq}" if horizon.seq is not None else f"position {horizon.index}"
            described.append(
                RecordVerification(
                    seq, rid, V.UNVERIFIED_TAMPER_RISK, f"not verified: follows the failure at {at} ({horizon.verdict})"
                )
            )
        elif index in own:
            described.append(RecordVerification(seq, rid, own[index].verdict, own[index].reason))
        else:
            described.append(RecordVerification(seq, rid, V.VERIFIED_INTACT, "lineage and integrity verified"))
    # The head is the last record of the intact prefix (else the trusted start, if any).
    intact_prefix = next((i for i, d in enumerate(described) if d.verdict != V.VERIFIED_INTACT), len(described))
    head: dict[str, Any] | None = (
        {"seq": trusted_start["afterSeq"], "recordHash": trusted_start["afterRecordHash"]} if trusted_start else None
    )
    for index, intact in candidates:
        if index == intact_prefix - 1:
            head = {"seq": intact.record["header"]["monotonicSequenceNumber"], "recordHash": intact.record_hash}
    return ChainVerification(
        verdict=failure.verdict if failure else V.VERIFIED_INTACT,
        records=described,
        first_failure=RecordVerification(failure.seq, None, failure.verdict, failure.reason) if failure else None,
        head=head,
        mac_checked=anchor is not None,
    )
