"""Receipts and signed outcomes written by the TypeScript core verify here, offline; tampered ones
do not (docs/verifiable-log.md, "Receipts" and "Signed outcomes")."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from conftest import vectors

from reseal import (
    Checkpoint,
    Ed25519NoteSigner,
    OutcomeVerificationError,
    check_conflict,
    check_consistency,
    check_rejection,
    checkpoint_origin,
    leaf_hash,
    merkle_tree_hash,
    node_hash,
    open_outcome,
    parse_verifier_key,
    request_digest,
    sign_checkpoint,
    verify_receipt,
)
from reseal import (
    VerificationVerdict as V,
)
from reseal.witness import Ed25519Cosigner, format_cosigner_key


def test_receipts_exported_by_the_typescript_core_verify(ts_artifacts: dict[str, Any]) -> None:
    key = parse_verifier_key(ts_artifacts["verifierKey"])
    for seq, receipt in enumerate(ts_artifacts["receipts"]):
        result = verify_receipt(receipt, key)
        assert result.verdict == V.VERIFIED_INTACT, result.reason
        assert result.record == ts_artifacts["records"][seq]
        assert result.checkpoint is not None and result.checkpoint.size == 3
        # As a file: the text, with the key as its string.
        assert verify_receipt(json.dumps(receipt), ts_artifacts["verifierKey"]).verdict == V.VERIFIED_INTACT


def tampered(receipt: dict[str, Any], change: Any) -> dict[str, Any]:
    copy_ = copy.deepcopy(receipt)
    change(copy_)
    return copy_


@pytest.mark.parametrize(
    ("change", "verdict"),
    [
        (lambda r: r["record"]["payload"].update(extra=1), V.HASH_MISMATCH),
        (lambda r: r["inclusion"].update(leafIndex=2), V.LINEAGE_BROKEN),
        (lambda r: r["inclusion"]["inclusionProof"].reverse(), V.HASH_MISMATCH),
        (lambda r: r.update(checkpoint=r["checkpoint"].replace("\n3\n", "\n4\n")), V.HASH_MISMATCH),
        (lambda r: r.update(lineageId="lineage-other"), V.HASH_MISMATCH),
        (lambda r: r.update(extra=True), V.HASH_MISMATCH),
    ],
    ids=["payload", "leaf index", "proof", "checkpoint", "lineage", "unknown member"],
)
def test_tampered_typescript_receipts_fail(ts_artifacts: dict[str, Any], change: Any, verdict: str) -> None:
    receipt = tampered(ts_artifacts["receipts"][1], change)
    result = verify_receipt(receipt, ts_artifacts["verifierKey"])
    assert result.verdict == verdict, result.reason
    assert result.record is None


def test_a_receipt_text_repeating_a_member_is_refused(ts_artifacts: dict[str, Any]) -> None:
    text = json.dumps(ts_artifacts["receipts"][0])
    text = text.replace('"formatVersion": 1,', '"formatVersion": 1, "formatVersion": 1,', 1)
    result = verify_receipt(text, ts_artifacts["verifierKey"])
    assert result.verdict == V.HASH_MISMATCH
    assert "repeated" in result.reason


def test_a_receipt_built_from_the_seal_vectors_verifies() -> None:
    seal, log = vectors("seal.json"), vectors("log.json")["reseal"]["checkpoint"]
    records = [v["record"] for v in seal["records"]]
    leaves = [bytes.fromhex(r["recordHash"]) for r in records]
    signer = Ed25519NoteSigner(log["keyName"], bytes.fromhex(log["seedHex"]))
    origin = checkpoint_origin(log["keyName"], seal["lineageId"])
    note = sign_checkpoint(Checkpoint(origin, 2, merkle_tree_hash(leaves)), signer)
    assert merkle_tree_hash(leaves) == node_hash(leaf_hash(leaves[0]), leaf_hash(leaves[1]))
    receipt = {
        "formatVersion": 1,
        "type": "reseal-receipt",
        "lineageId": seal["lineageId"],
        "record": records[0],
        "inclusion": {"leafIndex": 0, "treeSize": 2, "inclusionProof": [leaf_hash(leaves[1]).hex()]},
        "checkpoint": note,
    }
    assert verify_receipt(receipt, log["verifierKey"]).verdict == V.VERIFIED_INTACT
    other = Ed25519NoteSigner(log["keyName"], bytes(32))
    assert verify_receipt(receipt, other.verifier_key).verdict == V.HASH_MISMATCH

    # A format-1 receipt carries no deployment chain (docs/cli.md, `verify --receipt`): a policy
    # with a quorum fails closed; quorum none (or a maximum age) says freshness was not checked.
    witness = format_cosigner_key(Ed25519Cosigner("reseal/test-witness", bytes(range(32, 64))).key)
    witnessed = f"log {log['verifierKey']}\nwitness w1 {witness}\nquorum w1\n"
    refused = verify_receipt(receipt, policy=witnessed, max_age_seconds=60)
    assert (refused.verdict, refused.refusal, refused.record) == (V.UNVERIFIED_TAMPER_RISK, "POLICY_NOT_MET", None)
    assert "format-1 receipt carries no deployment chain" in refused.reason and "format 2" in refused.reason
    unwitnessed = verify_receipt(receipt, policy=f"log {log['verifierKey']}\nquorum none\n")
    assert unwitnessed.verdict == V.VERIFIED_INTACT and "freshness not checked" in unwitnessed.reason
    aged = verify_receipt(receipt, log["verifierKey"], max_age_seconds=60)
    assert aged.verdict == V.VERIFIED_INTACT and "freshness not checked" in aged.reason


def test_consistency_between_checkpoints() -> None:
    leaves = [bytes.fromhex(h) for h in vectors("log.json")["reseal"]["leavesHex"]]
    older = Checkpoint("o", 4, merkle_tree_hash(leaves[:4]))
    newer = Checkpoint("o", 7, merkle_tree_hash(leaves[:7]))
    proof = [merkle_tree_hash(leaves[4:7]).hex()]
    assert check_consistency(older, newer, proof).verdict == V.VERIFIED_INTACT
    assert check_consistency(newer, older, proof).verdict == V.TRUNCATION_DETECTED
    fork = Checkpoint("o", 7, merkle_tree_hash([*leaves[:6], b"x" * 32]))
    assert check_consistency(older, fork, proof).verdict == V.LINEAGE_BROKEN


def test_a_rejection_signed_by_the_typescript_core_verifies_and_matches(ts_artifacts: dict[str, Any]) -> None:
    key = parse_verifier_key(ts_artifacts["verifierKey"])
    statement = open_outcome(ts_artifacts["rejectionNote"], key, key.name)
    rejection = ts_artifacts["rejection"]
    assert statement["kind"] == "REJECTED" and statement["stage"] == "GUARD"
    assert statement["requestDigest"] == request_digest(ts_artifacts["request"]) == rejection["requestDigest"]
    check_rejection(rejection, statement)
    edited = {**rejection, "bodyPreview": rejection["bodyPreview"] + " "}
    with pytest.raises(OutcomeVerificationError, match="contentDigest"):
        check_rejection(edited, statement)
    with pytest.raises(OutcomeVerificationError, match="reason"):
        check_rejection({**rejection, "reason": "SCHEMA_VIOLATION"}, statement)
    with pytest.raises(OutcomeVerificationError, match="not reseal/other"):
        open_outcome(ts_artifacts["rejectionNote"], key, "reseal/other")
    other = Ed25519NoteSigner(key.name, bytes(32)).verifier_key
    with pytest.raises(OutcomeVerificationError, match="no signature line"):
        open_outcome(ts_artifacts["rejectionNote"], other, key.name)


def test_a_conflict_signed_by_the_typescript_core_verifies_and_matches(ts_artifacts: dict[str, Any]) -> None:
    key = parse_verifier_key(ts_artifacts["verifierKey"])
    statement = open_outcome(ts_artifacts["conflictNote"], key, key.name)
    conflict = ts_artifacts["conflict"]
    assert (statement["kind"], statement["stage"], statement["reason"]) == ("CONFLICT", "SEALER", "STALE_EPOCH")
    check_conflict(conflict, statement)
    edited = copy.deepcopy(conflict)
    edited["observedHead"]["seq"] = 1
    with pytest.raises(OutcomeVerificationError, match="contentDigest"):
        check_conflict(edited, statement)
    with pytest.raises(OutcomeVerificationError, match="kind"):
        check_rejection(
            {**ts_artifacts["rejection"], **{k: conflict[k] for k in ("reason", "lineageId", "residualId")}}, statement
        )
