"""Triage offline against test/vectors/triage.json (docs/triage.md, docs/canonical-form.md)."""

from __future__ import annotations

import copy

import pytest
from conftest import vectors

from reseal import (
    MANIFEST_FORMATS,
    DeltaVerdict,
    InvalidInputError,
    ManifestSealMismatchError,
    build_manifest,
    composite_seal,
    env_key_hash,
    isolate_delta,
    manifest_digest,
    parse_manifest,
    triage_report_digest,
)

CASES = vectors("triage.json")["cases"]


def test_every_verdict_and_both_manifest_formats_are_exercised() -> None:
    verdicts = {c["expected"]["report"]["verdict"] for c in CASES}
    assert verdicts == {
        DeltaVerdict.NO_DRIFT,
        DeltaVerdict.AMBIENT_DRIFT_ONLY,
        DeltaVerdict.PARTIAL_REPROBE_REQUIRED,
        DeltaVerdict.FULL_RECONSTRUCTION_REQUIRED,
    }
    assert {c["expected"]["manifest"]["formatVersion"] for c in CASES} == set(MANIFEST_FORMATS)


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_case(case: dict) -> None:
    expected = case["expected"]
    manifest = build_manifest(case["record"])
    assert manifest == expected["manifest"]
    for key, value in case["record"]["env"].items():
        assert env_key_hash(key, value) == manifest["baselineKeyHashes"][key]
    assert composite_seal(manifest["baselineKeyHashes"]) == manifest["preconditionSeal"]
    assert manifest_digest(manifest) == expected["manifestDigest"]
    for key, value in case["currentEnv"].items():
        assert env_key_hash(key, value) == expected["currentKeyHashes"][key]
    assert composite_seal(expected["currentKeyHashes"]) == expected["currentSeal"]
    report = isolate_delta(expected["manifest"], case["currentEnv"])
    assert report == expected["report"]
    assert report["sealIntact"] == (expected["currentSeal"] == manifest["preconditionSeal"])
    assert triage_report_digest(report) == expected["reportDigest"]


def format2() -> dict:
    return copy.deepcopy(
        next(c for c in CASES if c["expected"]["manifest"]["formatVersion"] == 2)["expected"]["manifest"]
    )


def test_unknown_format_versions_are_refused_never_guessed() -> None:
    for version in (0, 3, "2", 2.5, None):
        manifest = format2()
        manifest["formatVersion"] = version
        with pytest.raises(InvalidInputError) as caught:
            parse_manifest(manifest)
        assert caught.value.issues[0].path == "formatVersion"


def test_format_members_are_exact() -> None:
    manifest = format2()
    manifest["formatVersion"] = 1
    with pytest.raises(InvalidInputError, match="absentKeys"):
        parse_manifest(manifest)
    manifest = format2()
    manifest["absentKeys"] = ["ARCH"]
    with pytest.raises(InvalidInputError, match="declared absent but is in baselineKeyHashes"):
        parse_manifest(manifest)


def test_a_manifest_whose_seal_does_not_match_its_key_hashes_is_refused() -> None:
    manifest = format2()
    manifest["preconditionSeal"] = "0" * 64
    with pytest.raises(ManifestSealMismatchError):
        isolate_delta(manifest, {})


def test_map_inputs_refuse_proto_nfc_collisions_and_control_characters() -> None:
    with pytest.raises(InvalidInputError, match="reserved"):
        env_key_hash("__proto__", "x")
    with pytest.raises(InvalidInputError, match="control character"):
        env_key_hash("A\nB", "x")
    with pytest.raises(InvalidInputError, match="normal forms"):
        isolate_delta(format2(), {"caf\u00e9": "1", "cafe\u0301": "2"})
    with pytest.raises(InvalidInputError, match="is not in env"):
        build_manifest({"env": {}, "structuralKeys": ["ARCH"], "claimDependencyMap": {}})
    with pytest.raises(InvalidInputError, match="repeated"):
        build_manifest(
            {
                "env": {"A": "1"},
                "structuralKeys": [],
                "claimDependencyMap": [{"claimId": "c", "causalKeys": ["A"]}, {"claimId": "c", "causalKeys": ["A"]}],
            }
        )
