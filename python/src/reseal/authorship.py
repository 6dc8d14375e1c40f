"""Authorship: writers bound to their records, and lineages only their writers extend (docs/authorship.md).

Pure functions over untrusted JSON values, in the TypeScript core's rules (``shared/authorship/``):
the signed-write digest a writer signs and its Ed25519 check, the ``writerDigest``,
``boundaryDigest`` and ``policyDigest`` of a format-2 record header, self-certifying lineage
ids, and the admission rules (inception, write, rotation or revocation, recovery).
"""

from __future__ import annotations

import base64
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from ._checks import NO_CONTROL, Checker
from .canonical import HashDomain, canonical_json, hash_canonical

__all__ = [
    "MAX_SIGNATURE_AGE_MS",
    "MAX_SIGNATURE_FUTURE_MS",
    "MAX_POLICY_WRITERS",
    "MAX_RECOVERY_KEYS",
    "MAX_LINEAGE_LABEL_LENGTH",
    "LINEAGE_ID_SUFFIX_HEX",
    "AdmissionKind",
    "Admission",
    "AdmissionState",
    "check_writer_block",
    "check_lineage_policy",
    "parse_lineage_policy",
    "policy_digest",
    "writer_digest",
    "boundary_digest",
    "signed_write_digest",
    "request_signing_digest",
    "verify_writer_signature",
    "signature_age_problem",
    "write_signature_problem",
    "lineage_id_for",
    "lineage_id_matches_policy",
    "admit_write",
]

MAX_SIGNATURE_AGE_MS: Final = 15 * 60 * 1000
"""Oldest ``signedAtMs`` the guard accepts, in ms before the message's SQS ``SentTimestamp``."""
MAX_SIGNATURE_FUTURE_MS: Final = 5 * 60 * 1000
"""Furthest ``signedAtMs`` may lie after the message's SQS ``SentTimestamp``, in ms (clock skew)."""
MAX_POLICY_WRITERS: Final = 16
MAX_RECOVERY_KEYS: Final = 8
MAX_LINEAGE_LABEL_LENGTH: Final = 167
LINEAGE_ID_SUFFIX_HEX: Final = 32
"""Hex characters of the inception policy's digest that end a self-certifying lineage id (128 bits)."""

BASE64_32: Final = re.compile(r"[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=")
"""Canonical padded base64 of 32 bytes (zero padding bits): a raw Ed25519 public key."""
BASE64_64: Final = re.compile(r"[A-Za-z0-9+/]{85}[AQgw]==")
"""Canonical padded base64 of 64 bytes: a pure Ed25519 signature."""
_LABEL: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:@/+=-]*")
_SENDER_ID_LENGTH: Final = 512


class AdmissionKind:
    """How an admitted write extends its lineage (docs/authorship.md, "Lineage write policy")."""

    INCEPTION: Final = "INCEPTION"
    WRITE: Final = "WRITE"
    ROTATION: Final = "ROTATION"
    RECOVERY: Final = "RECOVERY"


@dataclass(frozen=True)
class AdmissionState:
    """The lineage state admission is decided on: the record's ``seq``, the policy in force
    before it (``None`` for a new lineage or a legacy tip) and whether the tip is format 1."""

    lineage_id: str
    seq: int
    in_force: Mapping[str, Any] | None
    legacy_tip: bool = False


@dataclass(frozen=True)
class Admission:
    """The outcome of :func:`admit_write`: ``admitted`` (an :class:`AdmissionKind`) or ``refused`` (why)."""

    admitted: str | None = None
    refused: str | None = None


def _check_key_id(check: Checker, value: Any, path: str) -> None:
    check.string(value, path, 2048, 1, NO_CONTROL, "key id holds a control character")


def _check_public_key(check: Checker, value: Any, path: str) -> None:
    if type(value) is not str or BASE64_32.fullmatch(value) is None:
        check.add(path, "expected the canonical base64 of a 32-byte Ed25519 public key")


def check_writer_block(check: Checker, value: Any, path: str, *, with_sender: bool = False) -> None:
    """A request's ``writer`` block ``{ keyId, publicKey, signedAtMs, signature }`` (strict); with
    ``with_sender``, a record's, which adds ``senderId`` (1–512 characters, no control character, or ``None``)."""
    fields = ("keyId", "publicKey", "signedAtMs", "signature") + (("senderId",) if with_sender else ())
    if not check.obj(value, path, fields):
        return
    _check_key_id(check, value.get("keyId"), f"{path}.keyId")
    _check_public_key(check, value.get("publicKey"), f"{path}.publicKey")
    check.safe_int(value.get("signedAtMs"), f"{path}.signedAtMs")
    signature = value.get("signature")
    if type(signature) is not str or BASE64_64.fullmatch(signature) is None:
        check.add(f"{path}.signature", "expected the canonical base64 of a 64-byte Ed25519 signature")
    if with_sender and value.get("senderId") is not None:
        check.string(
            value.get("senderId"),
            f"{path}.senderId",
            _SENDER_ID_LENGTH,
            1,
            NO_CONTROL,
            "sender id holds a control character",
        )


def check_lineage_policy(check: Checker, value: Any, path: str) -> None:
    """A lineage write policy ``{ v: 1, writers: { keyId, publicKey }[] (1–16, distinct keys),
    recoveryKeys: publicKey[] (0–8, distinct) }``, strict at every level."""
    before = len(check.issues)
    if not check.obj(value, path, ("v", "writers", "recoveryKeys")):
        return
    at = (lambda name: f"{path}.{name}") if path else (lambda name: name)
    if "v" in value and (type(value["v"]) is not int or value["v"] != 1):
        check.add(at("v"), "expected 1")
    writers = value.get("writers")
    if "writers" in value:
        if type(writers) is not list or not 1 <= len(writers) <= MAX_POLICY_WRITERS:
            check.add(at("writers"), f"expected an array of 1–{MAX_POLICY_WRITERS} writer keys")
        else:
            for i, writer in enumerate(writers):
                if check.obj(writer, at(f"writers.{i}"), ("keyId", "publicKey")):
                    _check_key_id(check, writer.get("keyId"), at(f"writers.{i}.keyId"))
                    _check_public_key(check, writer.get("publicKey"), at(f"writers.{i}.publicKey"))
    recovery = value.get("recoveryKeys")
    if "recoveryKeys" in value:
        if type(recovery) is not list or len(recovery) > MAX_RECOVERY_KEYS:
            check.add(at("recoveryKeys"), f"expected an array of at most {MAX_RECOVERY_KEYS} public keys")
        else:
            for i, key in enumerate(recovery):
                _check_public_key(check, key, at(f"recoveryKeys.{i}"))
    if len(check.issues) > before:
        return
    seen: set[str] = set()
    for i, writer in enumerate(value["writers"]):
        if writer["publicKey"] in seen:
            check.add(at(f"writers.{i}.publicKey"), "duplicate writer key")
        seen.add(writer["publicKey"])
    seen = set()
    for i, key in enumerate(value["recoveryKeys"]):
        if key in seen:
            check.add(at(f"recoveryKeys.{i}"), "duplicate recovery key")
        seen.add(key)


def parse_lineage_policy(raw: Any) -> dict[str, Any]:
    """Validates an untrusted lineage write policy (see :func:`check_lineage_policy`).

    :raises InvalidInputError: naming each bad field, e.g. ``writers.1.publicKey`` for a key named twice
    """
    check = Checker()
    check_lineage_policy(check, raw, "")
    check.raise_if_any("lineage policy")
    return raw  # type: ignore[no-any-return]


def policy_digest(policy: Mapping[str, Any]) -> str:
    """``reseal/v1/lineage-policy`` over the policy's canonical form (array order counts)."""
    return hash_canonical(HashDomain.LINEAGE_POLICY, dict(policy))


def writer_digest(writer: Mapping[str, Any]) -> str:
    """``reseal/v1/writer`` over ``{ v: 1, keyId, publicKey, signedAtMs, signature, senderId }`` (a record's writer)."""
    return hash_canonical(
        HashDomain.WRITER,
        {
            "v": 1,
            "keyId": writer["keyId"],
            "publicKey": writer["publicKey"],
            "signedAtMs": writer["signedAtMs"],
            "signature": writer["signature"],
            "senderId": writer["senderId"],
        },
    )


def boundary_digest(boundary: Mapping[str, Any], declared_immutable_constants: Sequence[str]) -> str:
    """``reseal/v1/boundary`` over ``{ v: 1, boundary, declaredImmutableConstants }`` (array order counts)."""
    return hash_canonical(
        HashDomain.BOUNDARY,
        {"v": 1, "boundary": dict(boundary), "declaredImmutableConstants": list(declared_immutable_constants)},
    )


_SIGNED_FIELDS: Final = (
    "lineageId", "residualId", "sessionId", "generationEpoch", "authority", "payloadHash", "manifestDigest",
    "variablesDigest", "boundaryDigest", "supersedes", "policyDigest", "keyId", "publicKey", "signedAtMs",
)  # fmt: skip


def signed_write_digest(fields: Mapping[str, Any]) -> bytes:
    """The 32-byte message a writer signs (docs/authorship.md, "Signed writes"):
    ``SHA-256("reseal/v1/signed-write" || 0x00 || JCS({ v: 1, lineageId, residualId, sessionId,
    generationEpoch, authority, payloadHash, manifestDigest, variablesDigest, boundaryDigest,
    supersedes, policyDigest, keyId, publicKey, signedAtMs }))``; ``supersedes`` and
    ``policyDigest`` are ``None`` when absent. A record header holds every digest, so a verifier
    rebuilds it from a stored record.

    :raises KeyError: when a field other than ``supersedes`` or ``policyDigest`` is missing
    """
    message: dict[str, Any] = {"v": 1}
    for name in _SIGNED_FIELDS:
        message[name] = fields.get(name) if name in ("supersedes", "policyDigest") else fields[name]
    supersedes = message["supersedes"]
    if supersedes is not None:
        message["supersedes"] = {"seq": supersedes["seq"], "recordHash": supersedes["recordHash"]}
    return bytes.fromhex(hash_canonical(HashDomain.SIGNED_WRITE, message))


def request_signing_digest(request: Mapping[str, Any], writer: Mapping[str, Any]) -> bytes:
    """:func:`signed_write_digest` of a write request (its bodies digested here) for the writer
    block ``writer`` (``keyId``, ``publicKey``, ``signedAtMs``); ``request``'s own ``writer`` is ignored."""
    policy = request.get("policy")
    return signed_write_digest(
        {
            **{
                name: request[name] for name in ("lineageId", "residualId", "sessionId", "generationEpoch", "authority")
            },
            "payloadHash": hash_canonical(HashDomain.PAYLOAD, request["payload"]),
            "manifestDigest": hash_canonical(HashDomain.MANIFEST, request["manifest"]),
            "variablesDigest": hash_canonical(
                HashDomain.VARIABLES, {"v": 1, "variablesUsed": request["variablesUsed"]}
            ),
            "boundaryDigest": boundary_digest(request["boundary"], request["declaredImmutableConstants"]),
            "supersedes": request.get("supersedes"),
            "policyDigest": policy_digest(policy) if policy is not None else None,
            "keyId": writer["keyId"],
            "publicKey": writer["publicKey"],
            "signedAtMs": writer["signedAtMs"],
        }
    )


def verify_writer_signature(digest: bytes, public_key: str, signature: str) -> bool:
    """Whether ``signature`` (base64, 64 bytes) is a pure Ed25519 (RFC 8032) signature of
    ``digest`` under ``public_key`` (base64 of the raw 32-byte key). Never raises: a key that
    is not a point, or text that is not canonical base64 of the right length, is ``False``."""
    if type(public_key) is not str or type(signature) is not str:
        return False
    if BASE64_32.fullmatch(public_key) is None or BASE64_64.fullmatch(signature) is None:
        return False
    try:
        key = Ed25519PublicKey.from_public_bytes(base64.b64decode(public_key))
        key.verify(base64.b64decode(signature), bytes(digest))
    except (InvalidSignature, ValueError):
        return False
    return True


def signature_age_problem(signed_at_ms: int, received_at_ms: int) -> str | None:
    """Why a signature's time is refused against when the queue received the message, or ``None``:
    older than :data:`MAX_SIGNATURE_AGE_MS` (a replay), or more than :data:`MAX_SIGNATURE_FUTURE_MS` ahead."""
    age = received_at_ms - signed_at_ms
    if age > MAX_SIGNATURE_AGE_MS:
        return f"the writer signed {age} ms before the queue received the message; at most {MAX_SIGNATURE_AGE_MS} ms (a replayed write)"
    if -age > MAX_SIGNATURE_FUTURE_MS:
        return f"signedAtMs lies {-age} ms after the queue received the message; at most {MAX_SIGNATURE_FUTURE_MS} ms of clock skew"
    return None


def write_signature_problem(request: Mapping[str, Any], received_at_ms: int) -> str | None:
    """Why a validated write request's writer signature is refused (``WRITER_SIGNATURE_INVALID``),
    or ``None``: the signature must verify over the recomputed signed-write digest, and
    ``signedAtMs`` must lie within the age window around ``received_at_ms``."""
    writer = request["writer"]
    digest = request_signing_digest(request, writer)
    if not verify_writer_signature(digest, writer["publicKey"], writer["signature"]):
        return (
            f"the writer signature does not verify under key {canonical_json(writer['keyId'][:256])} over this request"
        )
    return signature_age_problem(writer["signedAtMs"], received_at_ms)


def lineage_id_for(label: str, policy: Mapping[str, Any]) -> str:
    """The self-certifying id of a new lineage: ``<label>.<first 32 hex characters of policy_digest(policy)>``.

    :param label: 1–167 characters of ``[A-Za-z0-9._:@/+=-]``, starting with a letter or digit
    :raises InvalidInputError: for a bad label or policy
    """
    if type(label) is not str or len(label) > MAX_LINEAGE_LABEL_LENGTH or _LABEL.fullmatch(label) is None:
        check = Checker()
        check.add(
            "",
            f"expected 1–{MAX_LINEAGE_LABEL_LENGTH} characters of [A-Za-z0-9._:@/+=-], starting with a letter or digit",
        )
        check.raise_if_any("lineage label")
    return f"{label}.{policy_digest(parse_lineage_policy(policy))[:LINEAGE_ID_SUFFIX_HEX]}"


def lineage_id_matches_policy(lineage_id: str, policy: Mapping[str, Any]) -> bool:
    """Whether ``lineage_id`` is the self-certifying id of a lineage incepted with ``policy``."""
    dot = lineage_id.rfind(".")
    return dot >= 1 and lineage_id[dot + 1 :] == policy_digest(policy)[:LINEAGE_ID_SUFFIX_HEX]


def admit_write(state: AdmissionState, public_key: str, policy: Mapping[str, Any] | None) -> Admission:
    """Whether the writer ``public_key`` may extend a lineage, setting ``policy`` (or ``None``)
    (docs/authorship.md, "Lineage write policy"): inception at seq 0 (the policy the
    self-certifying id names, signed by one of its writers), a current writer's write or
    rotation (the recovery keys unchanged), or a recovery key's new policy. A lineage whose tip
    is format 1 is never extended. The reason never names the tip's epoch or head.
    """
    if state.legacy_tip:
        return Admission(
            refused="the lineage ends in a format-1 record: a legacy lineage is read-only (start a key-bound lineage)"
        )

    def is_writer(p: Mapping[str, Any]) -> bool:
        return any(w["publicKey"] == public_key for w in p["writers"])

    if state.seq == 0 or state.in_force is None:
        if state.seq != 0:
            return Admission(refused="no lineage write policy is in force")
        if policy is None:
            return Admission(refused="the first record of a lineage must set its write policy (inception)")
        if not lineage_id_matches_policy(state.lineage_id, policy):
            return Admission(refused="the lineage id does not end in the digest of the inception policy")
        if not is_writer(policy):
            return Admission(refused="the inception record is not signed by a writer of its policy")
        return Admission(admitted=AdmissionKind.INCEPTION)
    in_force = state.in_force
    if is_writer(in_force):
        if policy is None:
            return Admission(admitted=AdmissionKind.WRITE)
        if canonical_json(policy["recoveryKeys"]) != canonical_json(in_force["recoveryKeys"]):
            return Admission(refused="a writer may not change the recovery keys (only a recovery key may)")
        return Admission(admitted=AdmissionKind.ROTATION)
    if policy is not None and public_key in in_force["recoveryKeys"]:
        return Admission(admitted=AdmissionKind.RECOVERY)
    return Admission(refused="the writer key is not admitted to this lineage")
