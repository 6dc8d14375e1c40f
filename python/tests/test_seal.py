"""Records and chain verification against test/vectors/seal.json (docs/sealing.md)."""

from __future__ import annotations

import base64
import copy
import hashlib
import hmac
from typing import Any

import pytest
from conftest import vectors

from reseal import (
    HEADER_FORMATS,
    AnchorKeyMismatchError,
    InvalidInputError,
    LocalHmacAnchor,
    canonical_json,
    check_record_integrity,
    genesis_parent_hash,
    header_bytes,
    payload_hash,
    record_hash_of,
    variables_digest,
    verify_chain,
)
from reseal import (
    VerificationVerdict as V,
)

FILE = vectors("seal.json")
KEY = bytes.fromhex(FILE["keyHex"])
LINEAGE = FILE["lineageId"]


def records() -> list[dict[str, Any]]:
    return copy.deepcopy([v["record"] for v in FILE["records"]])


def anchor() -> LocalHmacAnchor:
    return LocalHmacAnchor(FILE["keyId"], KEY)


def test_vector_hashes_and_macs() -> None:
    assert bytes(range(32)) == KEY
    assert genesis_parent_hash(LINEAGE) == FILE["genesisParentHash"]
    for vector in FILE["records"]:
        record = vector["record"]
        assert canonical_json(record["header"]) == vector["canonicalHeader"]
        assert canonical_json(record["payload"]) == vector["canonicalPayload"]
        assert payload_hash(record["payload"]) == vector["payloadHash"] == record["header"]["payloadHash"]
        assert canonical_json({"v": 1, "variablesUsed": record["variablesUsed"]}) == vector["canonicalVariables"]
        assert (
            variables_digest(record["variablesUsed"])
            == vector["variablesDigest"]
            == record["header"]["variablesDigest"]
        )
        assert record_hash_of(record["header"]) == vector["recordHash"]
        independent = hmac.new(KEY, vector["canonicalHeader"].encode(), hashlib.sha256).digest()
        assert base64.b64encode(independent).decode() == vector["mac"]
        assert anchor().generate_mac(header_bytes(record["header"])) == record["anchor"]


def test_the_vector_chain_verifies_with_the_key() -> None:
    chain = records()
    result = verify_chain(chain, LINEAGE, anchor=anchor(), checkpoint={"seq": 1, "recordHash": chain[1]["recordHash"]})
    assert result.verdict == V.VERIFIED_INTACT
    assert [r.verdict for r in result.records] == [V.VERIFIED_INTACT] * 2
    assert result.head == {"seq": 1, "recordHash": chain[1]["recordHash"]}
    assert result.mac_checked


def test_without_a_key_nothing_is_intact_but_definite_failures_show() -> None:
    result = verify_chain(records(), LINEAGE)
    assert result.verdict == V.UNVERIFIED_TAMPER_RISK
    assert not result.mac_checked
    assert "MAC not checked" in result.records[0].reason
    chain = records()
    chain[1]["payload"]["exitCode"] = 2
    assert verify_chain(chain, LINEAGE).verdict == V.HASH_MISMATCH


def leaves(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in leaves(v, (*path, k))]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in leaves(v, (*path, i))]
    return [path]


def edit(record: dict[str, Any], path: tuple[Any, ...]) -> None:
    target = record
    for step in path[:-1]:
        target = target[step]
    old = target[path[-1]]
    target[path[-1]] = (
        not old
        if isinstance(old, bool)
        else old + 1
        if isinstance(old, int)
        else "0" * 64
        if isinstance(old, str) and len(old) == 64
        else f"{old}x"
        if isinstance(old, str)
        else "x"
    )


@pytest.mark.parametrize("path", leaves(FILE["records"][1]["record"]), ids=lambda p: ".".join(map(str, p)))
def test_an_edit_to_any_stored_leaf_is_detected_at_that_record(path: tuple[Any, ...]) -> None:
    chain = records()
    edit(chain[1], path)
    result = verify_chain(chain, LINEAGE, anchor=anchor())
    assert result.verdict != V.VERIFIED_INTACT
    assert result.records[0].verdict == V.VERIFIED_INTACT
    # A changed formatVersion may name a format this verifier does not know: cannot verify.
    allowed_unverified = path == ("header", "formatVersion")
    assert result.records[1].verdict != V.VERIFIED_INTACT
    assert allowed_unverified or result.records[1].verdict != V.UNVERIFIED_TAMPER_RISK, result.records[1]


def test_a_consistent_rewrite_without_the_key_fails_the_mac() -> None:
    chain = records()
    chain[1]["payload"]["exitCode"] = 0
    chain[1]["header"]["payloadHash"] = payload_hash(chain[1]["payload"])
    chain[1]["recordHash"] = record_hash_of(chain[1]["header"])
    assert isinstance(check_record_integrity(chain[1]).record_hash, str)  # type: ignore[union-attr]
    forger = LocalHmacAnchor(FILE["keyId"], b"\x01" * 32)
    chain[1]["anchor"] = forger.generate_mac(header_bytes(chain[1]["header"]))
    result = verify_chain(chain, LINEAGE, anchor=anchor())
    assert result.verdict == V.HASH_MISMATCH
    assert result.records[1].reason == "anchor invalid: tampered or forged"


def test_truncation_reorder_replay_and_other_lineage() -> None:
    chain = records()
    assert verify_chain(chain[:1], LINEAGE, anchor=anchor(), checkpoint={"seq": 1}).verdict == V.TRUNCATION_DETECTED
    assert verify_chain([], LINEAGE, anchor=anchor(), checkpoint={"seq": 0}).verdict == V.TRUNCATION_DETECTED
    assert verify_chain(chain[::-1], LINEAGE, anchor=anchor()).verdict == V.SEQUENCE_REPLAYED
    assert verify_chain([chain[0], chain[0]], LINEAGE, anchor=anchor()).verdict == V.SEQUENCE_REPLAYED
    assert verify_chain(chain[1:], LINEAGE, anchor=anchor()).verdict == V.LINEAGE_BROKEN
    assert verify_chain(chain, "other-lineage", anchor=anchor()).verdict == V.LINEAGE_BROKEN
    fork = verify_chain(chain, LINEAGE, anchor=anchor(), checkpoint={"seq": 1, "recordHash": "0" * 64})
    assert fork.verdict == V.LINEAGE_BROKEN


def test_a_trusted_start_verifies_a_suffix() -> None:
    chain = records()
    start = {"afterSeq": 0, "afterRecordHash": chain[0]["recordHash"], "generationEpoch": 1}
    assert verify_chain(chain[1:], LINEAGE, anchor=anchor(), trusted_start=start).verdict == V.VERIFIED_INTACT
    start["afterRecordHash"] = "0" * 64
    assert verify_chain(chain[1:], LINEAGE, anchor=anchor(), trusted_start=start).verdict == V.LINEAGE_BROKEN


def test_another_key_or_an_unknown_format_cannot_be_verified() -> None:
    other = LocalHmacAnchor("other-key", KEY)
    result = verify_chain(records(), LINEAGE, anchor=other)
    assert result.verdict == V.UNVERIFIED_TAMPER_RISK
    assert "cannot be checked" in result.records[0].reason
    chain = records()
    chain[0]["header"]["formatVersion"] = max(HEADER_FORMATS) + 1
    result = verify_chain(chain, LINEAGE, anchor=anchor())
    assert result.verdict == V.UNVERIFIED_TAMPER_RISK
    assert "not known to this verifier" in result.records[0].reason
    assert result.records[1].reason.startswith("not verified: follows the failure at seq 0")


def test_local_hmac_anchor_rules() -> None:
    with pytest.raises(InvalidInputError, match="at least 32 bytes"):
        LocalHmacAnchor("k", b"short")
    signature = anchor().generate_mac(b"message")
    with pytest.raises(AnchorKeyMismatchError):
        LocalHmacAnchor("other", KEY).verify_mac(b"message", signature)
    assert anchor().verify_mac(b"message", signature)
    assert not anchor().verify_mac(b"other message", signature)
    with pytest.raises(InvalidInputError):
        verify_chain("not a list", LINEAGE)  # type: ignore[arg-type]


def sealed_chain(length: int) -> list[dict[str, Any]]:
    """``length`` records sealed here with the vector key, from the first vector record's bodies."""
    template = records()[0]
    chain: list[dict[str, Any]] = []
    for seq in range(length):
        record = copy.deepcopy(template)
        header = record["header"]
        header.update(
            monotonicSequenceNumber=seq,
            residualId=f"residual-{seq}",
            parentRecordHash=chain[-1]["recordHash"] if chain else genesis_parent_hash(LINEAGE),
        )
        record["recordHash"] = record_hash_of(header)
        record["anchor"] = anchor().generate_mac(header_bytes(header))
        chain.append(record)
    return chain


def test_a_longer_chain_its_head_and_the_first_failure() -> None:
    chain = sealed_chain(40)
    intact = verify_chain(chain, LINEAGE, anchor=anchor(), checkpoint={"seq": 39})
    assert intact.verdict == V.VERIFIED_INTACT
    assert intact.head == {"seq": 39, "recordHash": chain[39]["recordHash"]}
    del chain[17]
    broken = verify_chain(chain, LINEAGE, anchor=anchor())
    assert broken.verdict == V.LINEAGE_BROKEN
    assert broken.first_failure is not None and broken.first_failure.seq == 18
    assert broken.head == {"seq": 16, "recordHash": chain[16]["recordHash"]}
    assert [r.verdict for r in broken.records[:17]] == [V.VERIFIED_INTACT] * 17
    assert all(r.reason.startswith("not verified: follows the failure at seq 18") for r in broken.records[18:])
    start = {"afterSeq": 39, "afterRecordHash": intact.head["recordHash"]}
    assert verify_chain([], LINEAGE, anchor=anchor(), trusted_start=start).head == {
        "seq": 39,
        "recordHash": start["afterRecordHash"],
    }
