"""Triage offline: key hashes, the composite seal, manifests and the delta isolator (docs/triage.md).

A manifest is read by its ``formatVersion`` first (docs/canonical-form.md, "Manifest versions"):
:data:`MANIFEST_FORMATS` maps each known version to its members; anything else is refused, never
guessed. A new version is an addition to that table and to :func:`parse_manifest`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Final

from ._checks import RESERVED_KEY, Checker, join, normal_form
from .canonical import HashDomain, hash_canonical, utf16_key
from .errors import InputIssue, InvalidInputError, ManifestSealMismatchError

__all__ = [
    "DeltaVerdict",
    "MANIFEST_FORMATS",
    "env_key_hash",
    "composite_seal",
    "parse_manifest",
    "manifest_digest",
    "build_manifest",
    "isolate_delta",
    "triage_report_digest",
    "triaged_detail",
]

_COMMON: Final = ("formatVersion", "preconditionSeal", "baselineKeyHashes", "structuralKeys", "claimDependencyMap")
MANIFEST_FORMATS: Final[Mapping[int, tuple[str, ...]]] = {
    1: _COMMON,
    2: (*_COMMON[:3], "absentKeys", *_COMMON[3:]),
}
"""Members of each known manifest format version (exactly these)."""

MAX_ENV_VALUE_UNITS: Final = 65_536


class DeltaVerdict:
    """Triage verdicts (docs/triage.md, "Verdicts")."""

    NO_DRIFT: Final = "NO_DRIFT"
    AMBIENT_DRIFT_ONLY: Final = "AMBIENT_DRIFT_ONLY"
    PARTIAL_REPROBE_REQUIRED: Final = "PARTIAL_REPROBE_REQUIRED"
    FULL_RECONSTRUCTION_REQUIRED: Final = "FULL_RECONSTRUCTION_REQUIRED"


_VERDICTS: Final = tuple(v for k, v in vars(DeltaVerdict).items() if k.isupper())


def _sorted(keys: Any) -> list[str]:
    return sorted(set(keys), key=utf16_key)


def _quote(key: str) -> str:
    return json.dumps(key, ensure_ascii=False)


def env_key_hash(key: str, value: str) -> str:
    """Hash of one environment key: ``reseal/v1/env-key`` over ``{"v":1,"key":…,"value":…}``.

    :raises InvalidInputError: a key that is empty, over 512 units, holds a control character or
        is ``__proto__``; a value over 65,536 units or not well-formed
    """
    check = Checker()
    if check.map_key(key, "key") and key == RESERVED_KEY:
        check.add("key", f'key "{RESERVED_KEY}" is reserved and refused')
    check.string(value, "value", MAX_ENV_VALUE_UNITS)
    check.raise_if_any("environment key")
    return hash_canonical(HashDomain.ENV_KEY, {"v": 1, "key": key, "value": value})


def composite_seal(key_hashes: Mapping[str, str]) -> str:
    """The composite precondition seal over every key hash of an environment (``reseal/v1/precondition-seal``)."""
    check = Checker()
    if check.safe_map(dict(key_hashes) if isinstance(key_hashes, Mapping) else key_hashes, "baselineKeyHashes"):
        for key, digest in key_hashes.items():
            check.hex_digest(digest, join("baselineKeyHashes", key))
    check.raise_if_any("key hashes")
    return hash_canonical(HashDomain.COMPOSITE_SEAL, {"v": 1, "baselineKeyHashes": dict(key_hashes)})


def _sorted_unique(check: Checker, value: Any, path: str, min_items: int = 0) -> bool:
    if type(value) is not list:
        check.add(path, "expected an array")
        return False
    ok = all(check.map_key(key, join(path, i)) for i, key in enumerate(value))
    if not ok:
        return False
    if len(value) < min_items:
        check.add(path, f"at least {min_items} key(s)")
        return False
    for i in range(1, len(value)):
        previous, current = value[i - 1], value[i]
        if not utf16_key(previous) < utf16_key(current):
            check.add(
                join(path, i),
                f"duplicate key {_quote(current)}"
                if previous == current
                else f"keys must be sorted: {_quote(current)} after {_quote(previous)}",
            )
            return False
    return True


def _check_env(check: Checker, env: Any, path: str) -> None:
    if check.safe_map(env, path):
        for key, value in env.items():
            check.string(value, join(path, key), MAX_ENV_VALUE_UNITS)


def _check_manifest(check: Checker, raw: Any, path: str) -> None:
    if type(raw) is not dict:
        check.add(path, "expected an object")
        return
    version = raw.get("formatVersion")
    fields = MANIFEST_FORMATS.get(version) if type(version) is int else None
    if fields is None:
        known = ", ".join(map(str, MANIFEST_FORMATS))
        check.add(join(path, "formatVersion"), f"unknown manifest formatVersion {version!r} (known: {known})")
        return
    check.obj(raw, path, fields)
    check.hex_digest(raw.get("preconditionSeal"), join(path, "preconditionSeal"))
    baseline = raw.get("baselineKeyHashes")
    if check.safe_map(baseline, join(path, "baselineKeyHashes")):
        for key, digest in baseline.items():
            check.hex_digest(digest, join(join(path, "baselineKeyHashes"), key))
    _sorted_unique(check, raw.get("structuralKeys"), join(path, "structuralKeys"))
    claims = raw.get("claimDependencyMap")
    if check.safe_map(claims, join(path, "claimDependencyMap")):
        for claim, keys in claims.items():
            _sorted_unique(check, keys, join(join(path, "claimDependencyMap"), claim), 1)
    if version == 2 and _sorted_unique(check, raw.get("absentKeys"), join(path, "absentKeys"), 1):
        present = {normal_form(k): k for k in baseline} if type(baseline) is dict else {}
        structural = raw.get("structuralKeys")
        named = {k for k in structural if type(k) is str} if type(structural) is list else set()
        if type(claims) is dict:
            for keys in claims.values():
                if type(keys) is list:
                    named.update(k for k in keys if type(k) is str)
        for i, key in enumerate(raw["absentKeys"]):
            conflict = _presence_conflict(key, present, "baselineKeyHashes")
            message = (
                f"key {_quote(key)} {conflict}"
                if conflict
                else None
                if key in named
                else f"key {_quote(key)} is declared absent but no structural key or claim names it"
            )
            if message:
                check.add(join(join(path, "absentKeys"), i), message)


def _presence_conflict(key: str, present: Mapping[str, str], where: str) -> str | None:
    if key == RESERVED_KEY:
        return "is reserved and refused (no environment may hold it)"
    match = present.get(normal_form(key))
    if match is None:
        return None
    if match == key:
        return f"is declared absent but is in {where}"
    return f"is declared absent but {where} holds {_quote(match)}, the same text in another Unicode normal form"


def parse_manifest(raw: Any) -> dict[str, Any]:
    """Validates a sealed dependency manifest of a known format version (1 or 2).

    :raises InvalidInputError: naming each bad field; an unknown ``formatVersion`` at ``formatVersion``
    """
    check = Checker()
    _check_manifest(check, raw, "")
    check.raise_if_any("sealed dependency manifest")
    return raw  # type: ignore[no-any-return]


def manifest_digest(manifest: Any) -> str:
    """``reseal/v1/manifest`` over the whole validated manifest (the header's ``manifestDigest``)."""
    return hash_canonical(HashDomain.MANIFEST, parse_manifest(manifest))


def build_manifest(record: Mapping[str, Any]) -> dict[str, Any]:
    """Builds the sealed dependency manifest of a write (docs/triage.md, "The manifest").

    ``record`` is ``{ env, structuralKeys, structuralAbsentKeys?, claimDependencyMap }``, where
    ``claimDependencyMap`` maps a claim id to its causal keys (a list, or ``{ causalKeys?,
    absentKeys? }``), or is a list of ``{ claimId, causalKeys, absentKeys? }``. Declared-absent keys
    make a format-2 manifest; otherwise it is format 1.

    :raises InvalidInputError: naming each bad field (a key not in ``env``, an absent key that is
        present, a claim with no key, a repeated claim id)
    """
    check = Checker()
    if not check.obj(record, "", ("env", "structuralKeys", "claimDependencyMap"), ("structuralAbsentKeys",)):
        check.raise_if_any("manifest input")
    env = record.get("env")
    _check_env(check, env, "env")
    structural = record.get("structuralKeys")
    structural_absent = record.get("structuralAbsentKeys", [])
    for name, keys in (("structuralKeys", structural), ("structuralAbsentKeys", structural_absent)):
        if type(keys) is not list:
            check.add(name, "expected an array")
        else:
            for i, key in enumerate(keys):
                check.map_key(key, join(name, i))
    entries = _claim_entries(check, record.get("claimDependencyMap"))
    check.raise_if_any("manifest input")
    assert isinstance(env, dict) and isinstance(structural, list) and isinstance(structural_absent, list)

    present = {normal_form(k): k for k in env}
    issues: list[InputIssue] = []
    for i, key in enumerate(structural):
        if key not in env:
            issues.append(InputIssue(f"structuralKeys.{i}", f"structural key {_quote(key)} is not in env"))
    for i, key in enumerate(structural_absent):
        conflict = _presence_conflict(key, present, "env")
        if conflict:
            issues.append(InputIssue(f"structuralAbsentKeys.{i}", f"structural key {_quote(key)} {conflict}"))
    seen: dict[str, str] = {}
    claims: dict[str, list[str]] = {}
    absent_keys = list(structural_absent)
    for claim_id, at, causal, causal_at, absent, empty_at, claim_at in entries:
        previous = seen.get(normal_form(claim_id))
        if previous is None:
            seen[normal_form(claim_id)] = claim_id
        else:
            issues.append(
                InputIssue(
                    claim_at,
                    f"claim id {_quote(claim_id)} is repeated"
                    if previous == claim_id
                    else f"claim ids {_quote(previous)} and {_quote(claim_id)} are the same text in different Unicode normal forms",
                )
            )
            continue
        if not causal and not absent:
            issues.append(InputIssue(empty_at, "a claim must name at least one causal key"))
        for i, key in enumerate(causal):
            if key not in env:
                issues.append(
                    InputIssue(
                        f"{at}.{causal_at}{i}", f"causal key {_quote(key)} of claim {_quote(claim_id)} is not in env"
                    )
                )
        for i, key in enumerate(absent):
            conflict = _presence_conflict(key, present, "env")
            if conflict:
                issues.append(
                    InputIssue(
                        f"{at}.absentKeys.{i}", f"causal key {_quote(key)} of claim {_quote(claim_id)} {conflict}"
                    )
                )
        absent_keys.extend(absent)
        claims[claim_id] = _sorted([*causal, *absent])
    if issues:
        raise InvalidInputError("manifest input", issues)

    baseline = {
        key: hash_canonical(HashDomain.ENV_KEY, {"v": 1, "key": key, "value": env[key]}) for key in _sorted(env)
    }
    manifest: dict[str, Any] = {
        "formatVersion": 2 if absent_keys else 1,
        "preconditionSeal": hash_canonical(HashDomain.COMPOSITE_SEAL, {"v": 1, "baselineKeyHashes": baseline}),
        "baselineKeyHashes": baseline,
    }
    if absent_keys:
        manifest["absentKeys"] = _sorted(absent_keys)
    manifest["structuralKeys"] = _sorted([*structural, *structural_absent])
    manifest["claimDependencyMap"] = {claim: claims[claim] for claim in _sorted(claims)}
    return manifest


_Entry = tuple[str, str, list[str], str, list[str], str, str]


def _claim_entries(check: Checker, raw: Any) -> list[_Entry]:
    """(claimId, at, causal, causalAt, absent, emptyAt, claimAt) per claim of either input form."""
    entries: list[_Entry] = []

    def keys(value: Any, path: str) -> list[str]:
        if type(value) is not list:
            check.add(path, "expected an array")
            return []
        return [k for i, k in enumerate(value) if check.map_key(k, join(path, i))]

    if type(raw) is list:
        for index, item in enumerate(raw):
            at = f"claimDependencyMap.{index}"
            if not check.obj(item, at, ("claimId", "causalKeys"), ("absentKeys",)):
                continue
            if not check.map_key(item.get("claimId"), f"{at}.claimId"):
                continue
            causal = keys(item.get("causalKeys"), f"{at}.causalKeys")
            absent = keys(item.get("absentKeys", []), f"{at}.absentKeys")
            entries.append((item["claimId"], at, causal, "causalKeys.", absent, f"{at}.causalKeys", f"{at}.claimId"))
        return entries
    if not check.safe_map(raw, "claimDependencyMap"):
        return entries
    for claim_id, value in raw.items():
        at = f"claimDependencyMap.{claim_id}"
        if type(value) is list:
            if not value:
                check.add(at, "a claim must name at least one causal key")
                continue
            entries.append((claim_id, at, keys(value, at), "", [], at, at))
        elif check.obj(value, at, (), ("causalKeys", "absentKeys")):
            causal = keys(value.get("causalKeys", []), f"{at}.causalKeys")
            absent = keys(value.get("absentKeys", []), f"{at}.absentKeys")
            entries.append((claim_id, at, causal, "causalKeys.", absent, at, at))
    return entries


def isolate_delta(manifest: Any, current_env: Any) -> dict[str, Any]:
    """The delta isolator (docs/triage.md, "Rules"): which claims of a record still stand.

    :param manifest: the record's sealed dependency manifest (format 1 or 2)
    :param current_env: the environment now, ``{ key: value }``
    :returns: the report ``{ formatVersion, verdict, sealIntact, driftedKeys: { changed, vanished,
        appeared }, structuralDrift, unattributedKeys, retainedClaims, invalidatedClaims, reason }``,
        every list sorted by UTF-16 code units
    :raises InvalidInputError: a malformed manifest or environment
    :raises ManifestSealMismatchError: a non-empty ``baselineKeyHashes`` whose composite seal is
        not the manifest's ``preconditionSeal``
    """
    m = parse_manifest(manifest)
    check = Checker()
    _check_env(check, current_env, "")
    check.raise_if_any("current environment")
    env: dict[str, str] = current_env
    baseline: dict[str, str] = m["baselineKeyHashes"]
    if baseline:
        recomputed = hash_canonical(HashDomain.COMPOSITE_SEAL, {"v": 1, "baselineKeyHashes": baseline})
        if recomputed != m["preconditionSeal"]:
            raise ManifestSealMismatchError(m["preconditionSeal"], recomputed)
    current = {k: hash_canonical(HashDomain.ENV_KEY, {"v": 1, "key": k, "value": v}) for k, v in env.items()}
    changed = _sorted(k for k in env if k in baseline and baseline[k] != current[k])
    vanished = _sorted(k for k in baseline if k not in env)
    appeared = _sorted(k for k in env if k not in baseline)
    if baseline:
        intact = not (changed or vanished or appeared)
    else:
        intact = (
            hash_canonical(HashDomain.COMPOSITE_SEAL, {"v": 1, "baselineKeyHashes": current}) == m["preconditionSeal"]
        )
    return _judge(m, changed, vanished, appeared, intact)


def _judge(
    m: dict[str, Any], changed: list[str], vanished: list[str], appeared: list[str], intact: bool
) -> dict[str, Any]:
    baseline = m["baselineKeyHashes"]
    absent = set(m.get("absentKeys", []) if m["formatVersion"] == 2 else [])
    absent_by_form: dict[str, list[str]] = {}
    for key in absent:
        absent_by_form.setdefault(normal_form(key), []).append(key)
    all_claims = _sorted(m["claimDependencyMap"])
    claims_by_key: dict[str, list[str]] = {}
    unattributed: set[str] = set()

    def attributed(key: str) -> bool:
        return key in baseline or key in absent

    unattributed.update(k for k in m["structuralKeys"] if not attributed(k))
    for claim in all_claims:
        for key in m["claimDependencyMap"][claim]:
            claims_by_key.setdefault(key, []).append(claim)
            if not attributed(key):
                unattributed.add(key)
    unattributed_keys = _sorted(unattributed)

    def report(verdict: str, reason: str, **fields: Any) -> dict[str, Any]:
        return {
            "formatVersion": 1,
            "verdict": verdict,
            "sealIntact": intact,
            "driftedKeys": fields.get("driftedKeys", {"changed": [], "vanished": [], "appeared": []}),
            "structuralDrift": fields.get("structuralDrift", []),
            "unattributedKeys": unattributed_keys,
            "retainedClaims": fields.get("retainedClaims", []),
            "invalidatedClaims": fields.get("invalidatedClaims", []),
            "reason": reason,
        }

    if intact:
        return report(
            DeltaVerdict.NO_DRIFT,
            "composite precondition seal intact: the environment is unchanged since write time; every claim stands",
            retainedClaims=all_claims,
        )
    drifted_keys = {"changed": changed, "vanished": vanished, "appeared": appeared}

    def full(reason: str, structural_drift: list[str] | None = None) -> dict[str, Any]:
        return report(
            DeltaVerdict.FULL_RECONSTRUCTION_REQUIRED,
            reason,
            driftedKeys=drifted_keys,
            structuralDrift=structural_drift or [],
            invalidatedClaims=all_claims,
        )

    if not baseline:
        return full(
            "composite seal broken and the record carries no baselineKeyHashes: drift cannot be attributed to keys (docs/triage.md rule 2); fail closed"
        )
    if not all_claims:
        return full(
            "composite seal broken and the record carries no claimDependencyMap: claims cannot be partitioned (docs/triage.md rule 4); fail closed"
        )
    lost = set(changed) | set(vanished)
    arrived: set[str] = set()
    for key in appeared:
        arrived.update(absent_by_form.get(normal_form(key), []))
    structural_drift = [k for k in m["structuralKeys"] if k in lost or k in arrived]
    if unattributed_keys:
        one = len(unattributed_keys) == 1
        return full(
            f"composite seal broken and {_quote_list(unattributed_keys)} {'has' if one else 'have'} no baseline key hash: "
            f"drift on {'it' if one else 'them'} cannot be attributed (unattributed drift policy); fail closed",
            structural_drift,
        )
    if structural_drift:
        return full(_structural_reason(structural_drift, arrived), structural_drift)
    invalidated: set[str] = set()
    for keys in (changed, vanished, appeared, arrived):
        for key in keys:
            invalidated.update(claims_by_key.get(key, []))
    drifted = len(changed) + len(vanished) + len(appeared)
    if not invalidated:
        return report(
            DeltaVerdict.AMBIENT_DRIFT_ONLY,
            f"{drifted} ambient key{'' if drifted == 1 else 's'} drifted; no structural or causal key did, so every claim stands (docs/triage.md rule 8)",
            driftedKeys=drifted_keys,
            retainedClaims=all_claims,
        )
    arrived_note = (
        f"; declared absent at write time and present now: {_quote_list(_sorted(arrived))}" if arrived else ""
    )
    if len(invalidated) == len(all_claims):
        return full(
            f"every claim ({len(all_claims)}) depends on a drifted key: differential recovery saves nothing (docs/triage.md rule 9){arrived_note}"
        )
    invalidated_claims = _sorted(invalidated)
    return report(
        DeltaVerdict.PARTIAL_REPROBE_REQUIRED,
        f"{len(invalidated_claims)} of {len(all_claims)} claims depend on drifted keys and are quarantined until re-probed; "
        f"the other {len(all_claims) - len(invalidated_claims)} stand (docs/triage.md rule 10){arrived_note}",
        driftedKeys=drifted_keys,
        retainedClaims=[c for c in all_claims if c not in invalidated],
        invalidatedClaims=invalidated_claims,
    )


def _structural_reason(structural_drift: Sequence[str], arrived: set[str]) -> str:
    lost = [k for k in structural_drift if k not in arrived]
    came = [k for k in structural_drift if k in arrived]

    def keys(items: Sequence[str]) -> str:
        return f"structural key{'' if len(items) == 1 else 's'} {_quote_list(items)}"

    parts = ([f"{keys(lost)} changed or vanished"] if lost else []) + (
        [f"{keys(came)} declared absent at write time appeared"] if came else []
    )
    source = "docs/triage.md rule 6a" if came else "docs/triage.md rule 6"
    return f"{' and '.join(parts)}: the whole record is invalid ({source})"


def _quote_list(keys: Sequence[str], limit: int = 10) -> str:
    shown = ", ".join(_quote(k) for k in keys[:limit])
    return f"{shown} and {len(keys) - limit} more" if len(keys) > limit else shown


_REPORT_FIELDS: Final = (
    "formatVersion", "verdict", "sealIntact", "driftedKeys", "structuralDrift",
    "unattributedKeys", "retainedClaims", "invalidatedClaims", "reason",
)  # fmt: skip


def triage_report_digest(report: Any) -> str:
    """``reseal/v1/triage-report`` over a validated triage report.

    :raises InvalidInputError: naming each malformed field
    """
    check = Checker()
    if check.obj(report, "", _REPORT_FIELDS):
        if report.get("formatVersion") != 1 or type(report.get("formatVersion")) is not int:
            check.add("formatVersion", "expected 1")
        check.enum(report.get("verdict"), "verdict", _VERDICTS)
        check.boolean(report.get("sealIntact"), "sealIntact")
        drifted = report.get("driftedKeys")
        if check.obj(drifted, "driftedKeys", ("changed", "vanished", "appeared")):
            for name in ("changed", "vanished", "appeared"):
                _sorted_unique(check, drifted.get(name), f"driftedKeys.{name}")
        for name in ("structuralDrift", "unattributedKeys", "retainedClaims", "invalidatedClaims"):
            _sorted_unique(check, report.get(name), name)
        check.string(report.get("reason"), "reason", 4096, 1)
    check.raise_if_any("triage report")
    return hash_canonical(HashDomain.TRIAGE_REPORT, report)


def triaged_detail(
    answer: Mapping[str, Any], header: Mapping[str, Any], report: Mapping[str, Any], proof: Mapping[str, Any]
) -> dict[str, Any]:
    """The ``TRIAGED`` answer to a recall (docs/pipeline.md, "Message shapes"; the TypeScript
    ``triagedDetail``): the proven record's seq and residual id, ``VERIFIED_INTACT``, the delta
    isolated against the caller's environment, and the proof a client checks it with. Triage stores
    it as its report; a client recalling without triage builds the same answer from its own reads
    (docs/verifiable-log.md, "Recall", "Without triage"), so both are decided by the same steps.

    :param answer: the recall it answers and when: ``requestId``, ``lineageId``, ``completedAtMs``
        (ms since the Unix epoch)
    :param header: the proven record's header (its ``monotonicSequenceNumber`` and ``residualId``)
    :param report: the delta isolation report (:func:`isolate_delta`)
    :param proof: ``{ checkpoint, treeHead, seq, recordHash, inclusion, consistency }``
    """
    return {
        "formatVersion": 1,
        "requestId": answer["requestId"],
        "lineageId": answer["lineageId"],
        "seq": header["monotonicSequenceNumber"],
        "residualId": header["residualId"],
        "outcome": "TRIAGED",
        "verification": {"verdict": "VERIFIED_INTACT", "firstFailure": None},
        "report": dict(report),
        "proof": dict(proof),
        "refusalReason": None,
        "refusalCode": None,
        "completedAtMs": answer["completedAtMs"],
    }
