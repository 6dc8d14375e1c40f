"""The stale-state guard offline against test/vectors/guard.json (docs/guard.md)."""

from __future__ import annotations

import copy
import hashlib

import pytest
from conftest import vectors

from reseal import InvalidInputError, evaluate_write, value_digest

FILE = vectors("guard.json")


@pytest.mark.parametrize("case", FILE["cases"], ids=[c["name"] for c in FILE["cases"]])
def test_case(case: dict) -> None:
    verdict = evaluate_write(case["request"], case["policy"])
    expected = case["expected"]
    assert verdict["isSafe"] == expected["isSafe"]
    assert [{"name": r["name"], "reason": r["reason"]} for r in verdict["rejectedVariables"]] == expected[
        "rejectedVariables"
    ]
    assert [{"field": v["field"], "reason": v["reason"]} for v in verdict["requestViolations"]] == expected[
        "requestViolations"
    ]
    assert verdict["verdictDigest"] == expected["verdictDigest"]
    plain = hashlib.sha256(b"reseal/v1/verdict-digest\x00" + expected["verdictPreimage"].encode()).hexdigest()
    assert plain == expected["verdictDigest"]


@pytest.mark.parametrize("case", FILE["invalid"], ids=[c["name"] for c in FILE["invalid"]])
def test_invalid_case(case: dict) -> None:
    with pytest.raises(InvalidInputError) as caught:
        evaluate_write(case["request"], case["policy"])
    assert case["expectedIssuePath"] in [issue.path for issue in caught.value.issues]


def test_value_digests() -> None:
    for entry in FILE["valueDigests"]:
        assert value_digest(entry["value"]) == entry["digest"]


def test_policy_and_manifest_seal_are_checked() -> None:
    safe = next(c for c in FILE["cases"] if c["name"] == "safe-operational")
    with pytest.raises(InvalidInputError, match="maxReceiptAgeSeconds"):
        evaluate_write(safe["request"], {"nowMs": 1, "maxReceiptAgeSeconds": 0})
    request = copy.deepcopy(safe["request"])
    request["manifest"]["preconditionSeal"] = "0" * 64
    with pytest.raises(InvalidInputError) as caught:
        evaluate_write(request, safe["policy"])
    assert caught.value.issues[0].path == "manifest.preconditionSeal"
    request = copy.deepcopy(safe["request"])
    request["payload"] = {"n": 2**53}
    with pytest.raises(InvalidInputError) as caught:
        evaluate_write(request, safe["policy"])
    assert caught.value.issues[0].path == "payload.n"
