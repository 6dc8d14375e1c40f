"""The stale-state guard, offline (docs/guard.md): whether a residual write may proceed.

:func:`evaluate_write` validates a ``ResidualWriteRequest`` once (docs/pipeline.md, "Message
shapes") and applies the freshness rules V1–V6, the epoch rules E1–E3 and the request rules;
the verdict digest binds the request's identity to the sorted (name, reason) pairs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from ._checks import AUTHORITIES, NO_CONTROL, RESERVED_KEY, Checker, join
from .canonical import HashDomain, canonical_bytes, hash_canonical, utf16_key
from .errors import CanonicalizationError
from .triage import _check_manifest

__all__ = [
    "DEFAULT_MAX_RECEIPT_AGE_SECONDS",
    "DEFAULT_MAX_CLOCK_SKEW_SECONDS",
    "MAX_PAYLOAD_BYTES",
    "value_digest",
    "parse_write_request",
    "evaluate_write",
    "verdict_digest",
]

DEFAULT_MAX_RECEIPT_AGE_SECONDS: Final = 900
"""Receipt age every Reseal entry point uses when none is configured (docs/guard.md, "Default receipt age")."""
DEFAULT_MAX_CLOCK_SKEW_SECONDS: Final = 5
MAX_RECEIPT_AGE_LIMIT_SECONDS: Final = 31_536_000
MAX_CLOCK_SKEW_LIMIT_SECONDS: Final = 300
MAX_VARIABLES: Final = 256
MAX_DECLARED_CONSTANTS: Final = 256
MAX_PAYLOAD_BYTES: Final = 262_144
MAX_VARIABLE_VALUE_BYTES: Final = 16_384
MAX_PROBE_LENGTH: Final = 1024
FRESHNESS: Final = ("FRESH_GENERATED", "VERIFIED_INHERITED", "UNVERIFIED_INHERITED", "IMMUTABLE_CONSTANT")
REQUEST_FIELDS: Final = (
    "formatVersion", "residualId", "lineageId", "sessionId", "generationEpoch", "authority",
    "payload", "variablesUsed", "boundary", "declaredImmutableConstants", "manifest", "writer",
)  # fmt: skip
WRITER_FIELDS: Final = ("keyId", "publicKey", "signedAtMs", "signature")
"""The writer block every request carries (docs/authorship.md, "Signed writes"); its signature is
checked by the guard service and the sealer, not by :func:`evaluate_write`."""


def value_digest(value: str) -> str:
    """Digest of a value a freshness probe observed: ``reseal/v1/value`` over ``{"v":1,"value":…}``."""
    return hash_canonical(HashDomain.VALUE, {"v": 1, "value": value})


def _pointer_path(base: str, pointer: str) -> str:
    segments = [s.replace("~1", "/").replace("~0", "~") for s in pointer[1:].split("/")] if pointer else []
    return ".".join([base, *segments])


def _reserved_key_path(value: Any, path: list[str]) -> list[str] | None:
    if isinstance(value, list):
        for index, item in enumerate(value):
            found = _reserved_key_path(item, [*path, str(index)])
            if found:
                return found
    elif isinstance(value, dict):
        for key, item in value.items():
            if key == RESERVED_KEY:
                return [*path, key]
            found = _reserved_key_path(item, [*path, key])
            if found:
                return found
    return None


def check_payload(check: Checker, value: Any, path: str) -> None:
    """A payload: canonicalizable, no ``__proto__`` key at any depth, at most 256 KiB canonical."""
    try:
        size = len(canonical_bytes(value))
    except CanonicalizationError as error:
        check.add(_pointer_path(path, error.path), error.reason)
        return
    reserved = _reserved_key_path(value, [])
    if reserved:
        check.add(".".join([path, *reserved]), f'key "{RESERVED_KEY}" is reserved and refused')
    elif size > MAX_PAYLOAD_BYTES:
        check.add(path, f"payload is {size} canonical bytes; the limit is {MAX_PAYLOAD_BYTES}")


def check_variable(check: Checker, variable: Any, path: str) -> None:
    """One ``SessionVariable`` with its optional freshness probe receipt."""
    if not check.obj(variable, path, ("name", "value", "freshness", "sourceEpoch"), ("receipt",)):
        return
    check.string(variable.get("name"), join(path, "name"), 256, 1, NO_CONTROL, "name holds a control character")
    value = variable.get("value")
    if (
        check.string(value, join(path, "value"), MAX_VARIABLE_VALUE_BYTES)
        and len(value.encode()) > MAX_VARIABLE_VALUE_BYTES
    ):
        check.add(join(path, "value"), f"at most {MAX_VARIABLE_VALUE_BYTES} bytes of UTF-8")
    check.enum(variable.get("freshness"), join(path, "freshness"), FRESHNESS)
    check.safe_int(variable.get("sourceEpoch"), join(path, "sourceEpoch"))
    if "receipt" in variable:
        receipt, at = variable["receipt"], join(path, "receipt")
        if check.obj(receipt, at, ("probe", "observedValueDigest", "sessionId", "probedAtMs")):
            check.string(receipt.get("probe"), join(at, "probe"), MAX_PROBE_LENGTH)
            check.hex_digest(receipt.get("observedValueDigest"), join(at, "observedValueDigest"))
            check.identifier(receipt.get("sessionId"), join(at, "sessionId"))
            check.safe_int(receipt.get("probedAtMs"), join(at, "probedAtMs"))


def parse_write_request(raw: Any) -> dict[str, Any]:
    """Validates an untrusted ``ResidualWriteRequest`` (strict objects at every level).

    :raises InvalidInputError: naming each bad field, e.g. ``variablesUsed.1.name`` for a repeated
        variable name, ``payload.__proto__``, ``boundary.predecessorEpoch`` when only the
        predecessor session is named
    """
    check = Checker()
    if not check.obj(raw, "", REQUEST_FIELDS, ("supersedes", "policy")):
        check.raise_if_any("residual write request")
    if "formatVersion" in raw and (raw["formatVersion"] != 1 or type(raw["formatVersion"]) is not int):
        check.add("formatVersion", "expected 1")
    for name in ("residualId", "lineageId", "sessionId"):
        if name in raw:
            check.identifier(raw[name], name)
    if "generationEpoch" in raw:
        check.safe_int(raw["generationEpoch"], "generationEpoch")
    if "authority" in raw:
        check.enum(raw["authority"], "authority", AUTHORITIES)
    if "payload" in raw:
        check_payload(check, raw["payload"], "payload")
    variables = raw.get("variablesUsed")
    if "variablesUsed" in raw:
        if type(variables) is not list or len(variables) > MAX_VARIABLES:
            check.add("variablesUsed", f"expected an array of at most {MAX_VARIABLES} variables")
        else:
            for i, variable in enumerate(variables):
                check_variable(check, variable, f"variablesUsed.{i}")
            check.unique_names(
                [v.get("name") if type(v) is dict else None for v in variables], lambda i: f"variablesUsed.{i}.name"
            )
    boundary = raw.get("boundary")
    if "boundary" in raw and check.obj(
        boundary, "boundary", ("activeSessionId", "boundaryAtMs"), ("predecessorSessionId", "predecessorEpoch")
    ):
        check.identifier(boundary.get("activeSessionId"), "boundary.activeSessionId")
        check.safe_int(boundary.get("boundaryAtMs"), "boundary.boundaryAtMs")
        if "predecessorSessionId" in boundary:
            check.identifier(boundary["predecessorSessionId"], "boundary.predecessorSessionId")
        if "predecessorEpoch" in boundary:
            check.safe_int(boundary["predecessorEpoch"], "boundary.predecessorEpoch")
        for given, missing in (
            ("predecessorSessionId", "predecessorEpoch"),
            ("predecessorEpoch", "predecessorSessionId"),
        ):
            if given in boundary and missing not in boundary:
                check.add(f"boundary.{missing}", f"required when {given} is given (a predecessor is named by both)")
    writer = raw.get("writer")
    if "writer" in raw and check.obj(writer, "writer", WRITER_FIELDS):
        check.string(writer.get("keyId"), "writer.keyId", 2048, 1, NO_CONTROL, "key id holds a control character")
        check.string(writer.get("publicKey"), "writer.publicKey", 44, 44)
        check.safe_int(writer.get("signedAtMs"), "writer.signedAtMs")
        check.string(writer.get("signature"), "writer.signature", 88, 88)
    if "policy" in raw:
        check.obj(raw["policy"], "policy", ("v", "writers", "recoveryKeys"))
    constants = raw.get("declaredImmutableConstants")
    if "declaredImmutableConstants" in raw:
        if type(constants) is not list or len(constants) > MAX_DECLARED_CONSTANTS:
            check.add("declaredImmutableConstants", f"expected an array of at most {MAX_DECLARED_CONSTANTS} names")
        else:
            for i, name in enumerate(constants):
                check.string(
                    name, f"declaredImmutableConstants.{i}", 256, 1, NO_CONTROL, "name holds a control character"
                )
            check.unique_names(constants, lambda i: f"declaredImmutableConstants.{i}")
    if "manifest" in raw:
        before = len(check.issues)
        _check_manifest(check, raw["manifest"], "manifest")
        manifest = raw["manifest"]
        if len(check.issues) == before and manifest["baselineKeyHashes"]:
            recomputed = hash_canonical(
                HashDomain.COMPOSITE_SEAL, {"v": 1, "baselineKeyHashes": manifest["baselineKeyHashes"]}
            )
            if recomputed != manifest["preconditionSeal"]:
                check.add(
                    "manifest.preconditionSeal",
                    f"preconditionSeal does not match compositeSeal(baselineKeyHashes) (expected {recomputed}): "
                    "the manifest is corrupt and could never be triaged",
                )
    if "supersedes" in raw and check.obj(raw["supersedes"], "supersedes", ("seq", "recordHash")):
        check.safe_int(raw["supersedes"].get("seq"), "supersedes.seq")
        check.hex_digest(raw["supersedes"].get("recordHash"), "supersedes.recordHash")
    check.raise_if_any("residual write request")
    return raw  # type: ignore[no-any-return]


def _resolve_policy(policy: Mapping[str, Any]) -> dict[str, int]:
    check = Checker()
    if check.obj(policy, "", ("nowMs", "maxReceiptAgeSeconds"), ("maxClockSkewSeconds",)):
        check.safe_int(policy.get("nowMs"), "nowMs")
        age = policy.get("maxReceiptAgeSeconds")
        if not (type(age) is int and 1 <= age <= MAX_RECEIPT_AGE_LIMIT_SECONDS):
            check.add("maxReceiptAgeSeconds", f"expected an integer from 1 to {MAX_RECEIPT_AGE_LIMIT_SECONDS}")
        skew = policy.get("maxClockSkewSeconds", DEFAULT_MAX_CLOCK_SKEW_SECONDS)
        if not (type(skew) is int and 0 <= skew <= MAX_CLOCK_SKEW_LIMIT_SECONDS):
            check.add("maxClockSkewSeconds", f"expected an integer from 0 to {MAX_CLOCK_SKEW_LIMIT_SECONDS}")
    check.raise_if_any("guard policy")
    return {
        "nowMs": policy["nowMs"],
        "maxReceiptAgeSeconds": policy["maxReceiptAgeSeconds"],
        "maxClockSkewSeconds": policy.get("maxClockSkewSeconds", DEFAULT_MAX_CLOCK_SKEW_SECONDS),
    }


def _reject(name: str, reason: str, detail: str) -> dict[str, str]:
    return {"name": name, "reason": reason, "detail": detail}


def _check_receipt(
    receipt: dict[str, Any], value: str, boundary: dict[str, Any], policy: dict[str, int]
) -> list[tuple[str, str]]:
    failures: list[tuple[str, str]] = []
    if receipt["probe"].strip() == "":
        failures.append(("RECEIPT_PROBE_UNNAMED", "the receipt does not name the probe that re-verified the value"))
    if receipt["observedValueDigest"] != value_digest(value):
        failures.append(
            (
                "RECEIPT_VALUE_MISMATCH",
                "the probe observed a different value than the one being written; re-probe or write the observed value",
            )
        )
    if receipt["sessionId"] != boundary["activeSessionId"]:
        failures.append(
            (
                "RECEIPT_WRONG_SESSION",
                f"the probe ran in session {receipt['sessionId']}, not in the active session {boundary['activeSessionId']}",
            )
        )
    if receipt["probedAtMs"] <= boundary["boundaryAtMs"]:
        failures.append(
            (
                "RECEIPT_BEFORE_BOUNDARY",
                f"the probe ran at {receipt['probedAtMs']} ms, not after the session boundary at {boundary['boundaryAtMs']} ms",
            )
        )
    ahead = receipt["probedAtMs"] - policy["nowMs"]
    if ahead > policy["maxClockSkewSeconds"] * 1000:
        failures.append(
            (
                "RECEIPT_FROM_FUTURE",
                f"the probe claims {ahead} ms after now; at most {policy['maxClockSkewSeconds']} s of clock skew is tolerated",
            )
        )
    age = policy["nowMs"] - receipt["probedAtMs"]
    if age > policy["maxReceiptAgeSeconds"] * 1000:
        failures.append(
            (
                "RECEIPT_EXPIRED",
                f"the probe is {age} ms old; receipts older than {policy['maxReceiptAgeSeconds']} s are refused",
            )
        )
    return failures


def _judge_variable(
    v: dict[str, Any], request: dict[str, Any], declared: set[str], policy: dict[str, int]
) -> list[dict[str, str]]:
    name, freshness, epoch = v["name"], v["freshness"], request["generationEpoch"]
    if freshness == "FRESH_GENERATED":
        if v["sourceEpoch"] == epoch:
            return []
        return [
            _reject(
                name,
                "EPOCH_COLLAPSE",
                f"a freshly generated variable must come from the write's generation epoch {epoch}, not epoch {v['sourceEpoch']}",
            )
        ]
    if freshness == "IMMUTABLE_CONSTANT":
        if name in declared:
            return []
        return [
            _reject(
                name,
                "UNDECLARED_IMMUTABLE_CONSTANT",
                "claimed as an immutable constant but not listed in declaredImmutableConstants",
            )
        ]
    if freshness == "VERIFIED_INHERITED":
        if "receipt" not in v:
            return [_reject(name, "MISSING_RECEIPT", "claimed as re-verified but carries no freshness probe receipt")]
        return [_reject(name, r, d) for r, d in _check_receipt(v["receipt"], v["value"], request["boundary"], policy)]
    return [
        _reject(
            name,
            "UNVERIFIED_INHERITED",
            f"inherited from epoch {v['sourceEpoch']} and not re-verified; re-probe it or strip it from the write",
        )
    ]


def _judge_inherited_epoch(v: dict[str, Any], request: dict[str, Any]) -> list[dict[str, str]]:
    if v["freshness"] not in ("VERIFIED_INHERITED", "UNVERIFIED_INHERITED"):
        return []
    name, source, epoch = v["name"], v["sourceEpoch"], request["generationEpoch"]
    boundary = request["boundary"]
    out: list[dict[str, str]] = []
    if source >= epoch:
        out.append(
            _reject(
                name,
                "INHERITED_EPOCH_NOT_PAST",
                f"inherited from epoch {source}, which is not before the write's generation epoch {epoch}; a value from this epoch is FRESH_GENERATED, and none can come from a later one",
            )
        )
    if "predecessorEpoch" not in boundary or "predecessorSessionId" not in boundary:
        out.append(
            _reject(
                name,
                "INHERITED_WITHOUT_PREDECESSOR",
                "marked as inherited, but the boundary names no predecessor (a cold start has no inherited context); name the predecessor session and epoch, or regenerate the value",
            )
        )
    elif source > boundary["predecessorEpoch"]:
        out.append(
            _reject(
                name,
                "INHERITED_EPOCH_AFTER_PREDECESSOR",
                f"inherited from epoch {source}, later than the predecessor {boundary['predecessorSessionId']}'s epoch {boundary['predecessorEpoch']}; the predecessor cannot hand over a value from after its own epoch",
            )
        )
    return out


def _judge_request(request: dict[str, Any], policy: dict[str, int]) -> list[dict[str, str]]:
    boundary = request["boundary"]
    out: list[dict[str, str]] = []
    if request["sessionId"] != boundary["activeSessionId"]:
        out.append(
            {
                "field": "sessionId",
                "reason": "SESSION_MISMATCH",
                "detail": f"the write is attributed to session {request['sessionId']}, but the active session is {boundary['activeSessionId']}",
            }
        )
    if boundary.get("predecessorSessionId") == boundary["activeSessionId"]:
        out.append(
            {
                "field": "boundary.predecessorSessionId",
                "reason": "SESSION_COLLAPSE",
                "detail": f"the active session {boundary['activeSessionId']} is named as its own predecessor",
            }
        )
    if "predecessorEpoch" in boundary and request["generationEpoch"] <= boundary["predecessorEpoch"]:
        out.append(
            {
                "field": "generationEpoch",
                "reason": "EPOCH_COLLAPSE",
                "detail": f"generation epoch {request['generationEpoch']} is not greater than the predecessor's epoch {boundary['predecessorEpoch']}",
            }
        )
    ahead = boundary["boundaryAtMs"] - policy["nowMs"]
    if ahead > policy["maxClockSkewSeconds"] * 1000:
        out.append(
            {
                "field": "boundary.boundaryAtMs",
                "reason": "BOUNDARY_FROM_FUTURE",
                "detail": f"the session boundary lies {ahead} ms after now; at most {policy['maxClockSkewSeconds']} s of clock skew is tolerated",
            }
        )
    return out


def verdict_digest(
    request: Mapping[str, Any], rejected: Sequence[Mapping[str, str]], violations: Sequence[Mapping[str, str]]
) -> str:
    """``reseal/v1/verdict-digest`` of a verdict (docs/guard.md, "Verdict digest"); lists sorted here."""
    pairs = sorted(
        ({"name": r["name"], "reason": r["reason"]} for r in rejected),
        key=lambda r: (utf16_key(r["name"]), utf16_key(r["reason"])),
    )
    fields = sorted(
        ({"field": v["field"], "reason": v["reason"]} for v in violations),
        key=lambda v: (utf16_key(v["field"]), utf16_key(v["reason"])),
    )
    return hash_canonical(
        HashDomain.VERDICT,
        {
            "formatVersion": 1,
            "residualId": request["residualId"],
            "lineageId": request["lineageId"],
            "sessionId": request["sessionId"],
            "generationEpoch": request["generationEpoch"],
            "authority": request["authority"],
            "isSafe": not pairs and not fields,
            "rejectedVariables": pairs,
            "requestViolations": fields,
        },
    )


def evaluate_write(request: Any, policy: Mapping[str, Any]) -> dict[str, Any]:
    """The stale-state guard's verdict on one write (docs/guard.md, "Rules"). Pure: reads no clock.

    :param request: a ``ResidualWriteRequest`` as untrusted JSON (see :func:`parse_write_request`)
    :param policy: ``{ nowMs, maxReceiptAgeSeconds, maxClockSkewSeconds? }`` (ms since the epoch,
        seconds; skew defaults to 5)
    :returns: ``{ isSafe, rejectedVariables: [{ name, reason, detail }], requestViolations:
        [{ field, reason, detail }], verdictDigest }``, lists sorted by (name or field, reason)
    :raises InvalidInputError: a malformed policy or request; malformed input never gets a verdict
    """
    resolved = _resolve_policy(policy)
    parsed = parse_write_request(request)
    declared = set(parsed["declaredImmutableConstants"])
    historical = parsed["authority"] == "HISTORICAL_ATTRIBUTION"
    rejected: list[dict[str, str]] = []
    for v in parsed["variablesUsed"]:
        if not historical:
            rejected.extend(_judge_variable(v, parsed, declared, resolved))
        rejected.extend(_judge_inherited_epoch(v, parsed))
    rejected.sort(key=lambda r: (utf16_key(r["name"]), utf16_key(r["reason"])))
    violations = sorted(_judge_request(parsed, resolved), key=lambda v: (utf16_key(v["field"]), utf16_key(v["reason"])))
    return {
        "isSafe": not rejected and not violations,
        "rejectedVariables": rejected,
        "requestViolations": violations,
        "verdictDigest": verdict_digest(parsed, rejected, violations),
    }
