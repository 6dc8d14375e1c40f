"""Receipts of format 2, the whole deployment chain, verified offline as the TypeScript core verifies
them (test/vectors/receipt-v2.json, docs/verifiable-log.md, "Receipts"): the vector's receipt with
its keys, policy and clock, and each of its cases (an edited index proof, a wrong deployment
checkpoint, a record the residual id does not map, cosignatures too old, an unknown format, ...)
given the same verdict, refusal code and freshness flag as ``verifyChainReceipt``."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from conftest import vectors

from reseal import (
    InvalidInputError,
    check_record_integrity,
    freshness_policy,
    parse_cosigner_key,
    parse_policy,
    parse_verifier_key,
    verify_chain_receipt,
    verify_receipt,
)
from reseal import VerificationVerdict as V

VECTOR = vectors("receipt-v2.json")
RECEIPT = VECTOR["receipt"]


def edited(case: dict[str, Any]) -> Any:
    """The case's receipt: its own, or the vector's with each ``{path, value}`` set."""
    receipt = copy.deepcopy(case.get("receipt", RECEIPT))
    for edit in case.get("edits", []):
        at = receipt
        for step in edit["path"][:-1]:
            at = at[step]
        at[edit["path"][-1]] = edit["value"]
    return receipt


def test_the_vector_names_its_keys_policy_and_clock_consistently() -> None:
    log_key = parse_verifier_key(VECTOR["logKey"])
    assert log_key.public_key.hex() == VECTOR["logPublicKeyHex"]
    witness_key = parse_cosigner_key(VECTOR["witnessKey"])
    assert witness_key.public_key.hex() == VECTOR["witnessPublicKeyHex"]
    policy = parse_policy(VECTOR["policy"])
    assert [key for key, _ in policy.logs] == [log_key]
    assert [w.key for w in policy.witnesses] == [witness_key]
    assert policy.quorum.kind == "WITNESS"
    assert isinstance(VECTOR["source"], str) and isinstance(VECTOR["note"], str)
    assert VECTOR["cosignedAt"] < VECTOR["nowSeconds"] <= VECTOR["cosignedAt"] + VECTOR["maxAgeSeconds"]


def test_the_vector_receipt_verifies_with_every_step_as_the_vector_says() -> None:
    result = verify_receipt(
        RECEIPT,
        policy=VECTOR["policy"],
        now_seconds=VECTOR["nowSeconds"],
        max_age_seconds=VECTOR["maxAgeSeconds"],
    )
    assert result.verdict == V.VERIFIED_INTACT, result.reason
    assert result.format_version == 2
    assert result.refusal is None
    assert result.freshness_checked is True
    assert result.checkpoint is None  # no lineage checkpoint in a format-2 receipt
    assert result.record == RECEIPT["record"]
    integrity = check_record_integrity(RECEIPT["record"])
    header = RECEIPT["record"]["header"]
    assert header["lineageId"] == RECEIPT["lineageId"]
    assert RECEIPT["inclusion"]["leafIndex"] == header["monotonicSequenceNumber"]
    assert RECEIPT["inclusion"]["treeSize"] == RECEIPT["index"]["lineage"]["value"]["treeSize"]
    assert RECEIPT["index"]["residual"]["value"] == {
        "seq": header["monotonicSequenceNumber"],
        "recordHash": getattr(integrity, "record_hash", None),
    }
    deployment = result.deployment
    assert deployment is not None
    assert deployment.witnessed is True
    assert deployment.quorum_time == VECTOR["cosignedAt"]
    assert deployment.checkpoint.origin == parse_verifier_key(VECTOR["logKey"]).name
    assert deployment.checkpoint.note == RECEIPT["deployment"]["checkpoint"]
    assert deployment.checkpoint.size == int(RECEIPT["deployment"]["checkpoint"].split("\n")[1])


@pytest.mark.parametrize("case", VECTOR["cases"], ids=[c["name"] for c in VECTOR["cases"]])
def test_each_case_gets_the_typescript_verdict_and_refusal(case: dict[str, Any]) -> None:
    text = case.get("policy", VECTOR["policy"])
    now = case.get("nowSeconds", VECTOR["nowSeconds"])
    receipt = edited(case)
    result = verify_receipt(receipt, policy=text, now_seconds=now, max_age_seconds=case["maxAgeSeconds"])
    found = {"verdict": result.verdict, "refusal": result.refusal, "freshnessChecked": result.freshness_checked}
    assert found == case["expected"], result.reason
    if case["expected"]["verdict"] != V.VERIFIED_INTACT:
        assert result.record is None
    # The format-2 verifier itself, as the TypeScript `verifyChainReceipt` is called in the vector.
    direct = verify_chain_receipt(receipt, parse_policy(text), now_seconds=now, max_age_seconds=case["maxAgeSeconds"])
    assert {"verdict": direct.verdict, "refusal": direct.refusal, "freshnessChecked": direct.freshness_checked} == (
        case["expected"]
    )


def test_the_cases_cover_every_refusal_code_and_verdict() -> None:
    codes = {c["expected"]["refusal"] for c in VECTOR["cases"]}
    assert codes >= {"POLICY_NOT_MET", "COSIGNATURES_TOO_OLD", "LEAF_NOT_LAST", "INDEX_PROOF_INVALID", None}
    verdicts = {c["expected"]["verdict"] for c in VECTOR["cases"]}
    assert verdicts >= {V.VERIFIED_INTACT, V.UNVERIFIED_TAMPER_RISK, V.LINEAGE_BROKEN, V.HASH_MISMATCH}


def test_freshness_is_checked_only_when_asked() -> None:
    late = VECTOR["cosignedAt"] + VECTOR["maxAgeSeconds"] + 3600
    old = verify_receipt(RECEIPT, policy=VECTOR["policy"], now_seconds=late)
    assert (old.verdict, old.freshness_checked) == (V.VERIFIED_INTACT, False)
    assert "freshness not checked" in old.reason
    stale = verify_receipt(RECEIPT, policy=VECTOR["policy"], now_seconds=late, max_age_seconds=VECTOR["maxAgeSeconds"])
    assert (stale.verdict, stale.refusal) == (V.UNVERIFIED_TAMPER_RISK, "COSIGNATURES_TOO_OLD")


def test_the_receipt_text_a_freshness_policy_or_the_log_key_alone_work_too() -> None:
    now = VECTOR["nowSeconds"]
    text = json.dumps(RECEIPT)
    assert verify_receipt(text, policy=VECTOR["policy"], now_seconds=now).verdict == V.VERIFIED_INTACT
    policy = freshness_policy(VECTOR["policy"])
    assert verify_receipt(text.encode(), policy=policy, now_seconds=now).verdict == V.VERIFIED_INTACT
    # The log key alone is `quorum none`: what the log signed, unwitnessed (docs/cli.md, `verify --receipt`).
    alone = verify_receipt(RECEIPT, VECTOR["logKey"], now_seconds=now)
    assert alone.verdict == V.VERIFIED_INTACT
    assert alone.deployment is not None and alone.deployment.witnessed is False
    assert alone.deployment.quorum_time is None


def test_a_format_2_receipt_without_a_policy_or_key_is_the_callers_error() -> None:
    with pytest.raises(InvalidInputError):
        verify_receipt(RECEIPT)
    with pytest.raises(InvalidInputError):
        verify_receipt(RECEIPT, policy=VECTOR["policy"], now_seconds=VECTOR["nowSeconds"], max_age_seconds=0)


@pytest.mark.parametrize(
    "bad",
    [None, [], "", "{", {"formatVersion": 2}, {**RECEIPT, "record": None}, {**RECEIPT, "index": {}}, 2],
)
def test_a_hostile_receipt_gets_a_verdict_never_an_exception(bad: Any) -> None:
    result = verify_receipt(bad, policy=VECTOR["policy"], now_seconds=VECTOR["nowSeconds"], max_age_seconds=180)
    assert result.verdict != V.VERIFIED_INTACT
    assert result.record is None
