"""The verifiable index against test/vectors/index.json (docs/verifiable-index.md, "Vectors")."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest
from conftest import vectors

from reseal import (
    INDEX_EMPTY_HASH,
    INDEX_TAGS,
    RESIDUAL_SHARED_PATH_BITS,
    IndexProof,
    IndexProofFormatError,
    InvalidInputError,
    check_index_absence,
    check_index_presence,
    decode_index_proof,
    encode_index_proof,
    index_entry_digest,
    index_entry_key,
    index_key_path,
    index_leaf_hash,
    index_node_hash,
    index_proof_from_json,
    index_proof_to_json,
    index_root,
    parse_index_entry,
)

INDEX = vectors("index.json")
ROOT = bytes.fromhex(INDEX["rootHex"])
PROOFS = INDEX["proofs"]


def check(case: dict[str, Any], root: bytes, proof: Any) -> Any:
    if case["kind"] == "presence":
        return check_index_presence(root, case["entry"], proof)
    return check_index_absence(root, case["key"], proof)


def test_tags_and_the_empty_hash() -> None:
    assert INDEX["tags"] == INDEX_TAGS
    assert INDEX_EMPTY_HASH.hex() == INDEX["emptyHex"]
    assert hashlib.sha256(b"reseal/v1/index-empty\x00").digest() == INDEX_EMPTY_HASH


@pytest.mark.parametrize("case", INDEX["entries"], ids=lambda c: c["keyMessage"])
def test_key_paths_entry_digests_and_leaf_hashes(case: dict[str, Any]) -> None:
    entry = parse_index_entry(case["entry"])
    key_path = index_key_path(index_entry_key(entry))
    assert key_path.hex() == case["keyPathHex"]
    key_hash = hashlib.sha256(b"reseal/v1/index-key\x00" + case["keyMessage"].encode()).digest()
    assert key_hash.hex() == case["keyHashHex"]
    if entry["kind"] == "lineage":
        assert key_path == key_hash
    digest = index_entry_digest(entry)
    assert digest.hex() == case["entryDigestHex"]
    assert digest == hashlib.sha256(b"reseal/v1/index-entry\x00" + case["entryMessage"].encode()).digest()
    assert index_leaf_hash(key_path, digest).hex() == case["leafHashHex"]


def test_a_residual_path_starts_with_its_lineage_path() -> None:
    # docs/verifiable-index.md, "Keys": bits 0 … P − 1 from the lineage's path, the rest from the
    # residual key's own hash, bit 0 the most significant bit of byte 0.
    p = INDEX["residualSharedPathBits"]
    assert p == RESIDUAL_SHARED_PATH_BITS
    bits = lambda h: bin(int(h, 16))[2:].zfill(256)  # noqa: E731
    lineages = {c["entry"]["lineageId"]: c for c in INDEX["entries"] if c["entry"]["kind"] == "lineage"}
    residuals = [c for c in INDEX["entries"] if c["entry"]["kind"] == "residual"]
    assert residuals
    for case in residuals:
        lineage = lineages[case["entry"]["lineageId"]]
        assert bits(case["keyPathHex"]) == bits(lineage["keyPathHex"])[:p] + bits(case["keyHashHex"])[p:]
        assert case["keyPathHex"] != case["keyHashHex"]


def test_the_root_of_the_vector_map() -> None:
    assert index_root([c["entry"] for c in INDEX["entries"]]) == ROOT
    assert index_root([]) == INDEX_EMPTY_HASH
    one = INDEX["entries"][0]
    assert index_root([one["entry"]]).hex() == one["leafHashHex"]  # the leaf shortcut
    with pytest.raises(InvalidInputError, match="same key"):
        index_root([one["entry"], one["entry"]])


def test_the_update_vector_root() -> None:
    # The batch's rules (docs/verifiable-index.md, "Updates"): a lineage head moves forward, a new
    # residual id is added, a residual id already set never changes (refused: RESIDUAL_CHANGED).
    update = INDEX["update"]
    entries = {index_key_path(index_entry_key(c["entry"])): c["entry"] for c in INDEX["entries"]}
    refused = []
    for item in update["updates"]:
        entry = {k: v for k, v in item.items() if k != "consistentFrom"}
        path = index_key_path(index_entry_key(entry))
        if entry["kind"] == "residual" and path in entries and entries[path]["value"] != entry["value"]:
            refused.append("RESIDUAL_CHANGED")
            continue
        if "consistentFrom" in item:
            old = entries[path]["value"]
            assert (old["treeSize"], old["rootHash"]) == tuple(item["consistentFrom"].values())
        entries[path] = entry
    assert refused == update["findings"]
    assert index_root(entries.values()).hex() == update["rootHex"]


@pytest.mark.parametrize("case", PROOFS, ids=lambda c: f"{c['kind']}-{c['note']}")
def test_every_vector_proof_holds_in_both_forms(case: dict[str, Any]) -> None:
    binary = bytes.fromhex(case["proofHex"])
    assert check(case, ROOT, binary) is None
    assert check(case, ROOT, case["proofJson"]) is None
    decoded = decode_index_proof(binary)
    assert decoded == index_proof_from_json(case["proofJson"])
    assert encode_index_proof(decoded) == binary
    assert index_proof_to_json(decoded) == case["proofJson"]


@pytest.mark.parametrize("case", PROOFS, ids=lambda c: f"{c['kind']}-{c['note']}")
def test_every_bit_flip_of_a_proof_or_the_root_is_refused(case: dict[str, Any]) -> None:
    binary = bytes.fromhex(case["proofHex"])
    for i in range(len(binary) * 8):
        flipped = bytearray(binary)
        flipped[i // 8] ^= 0x80 >> (i % 8)
        assert check(case, ROOT, bytes(flipped)) is not None, f"bit {i} of the proof"
    for i in range(256):
        root = bytearray(ROOT)
        root[i // 8] ^= 0x80 >> (i % 8)
        assert check(case, bytes(root), binary) is not None, f"bit {i} of the root"


def test_a_changed_entry_value_or_another_key_is_refused() -> None:
    case = PROOFS[0]
    entry = {**case["entry"], "value": {**case["entry"]["value"], "treeSize": 4}}
    assert getattr(check_index_presence(ROOT, entry, bytes.fromhex(case["proofHex"])), "code", None) == "ROOT_MISMATCH"
    other = {**case["entry"], "lineageId": "lineage-9"}
    assert check_index_presence(ROOT, other, bytes.fromhex(case["proofHex"])) is not None


def test_kinds_are_not_interchangeable() -> None:
    presence = next(c for c in PROOFS if c["kind"] == "presence")
    absence = next(c for c in PROOFS if c["kind"] == "absence")
    found = check_index_absence(ROOT, presence["key"], bytes.fromhex(presence["proofHex"]))
    assert found is not None and found.code == "WRONG_KIND"
    found = check_index_presence(ROOT, presence["entry"], bytes.fromhex(absence["proofHex"]))
    assert found is not None and found.code == "WRONG_KIND"


def test_an_absence_shown_by_the_keys_own_leaf_or_a_leaf_off_its_path_is_refused() -> None:
    case = next(c for c in PROOFS if c["proofJson"]["leaf"] is not None)
    proof = decode_index_proof(bytes.fromhex(case["proofHex"]))
    assert proof.leaf is not None
    own = index_key_path(case["key"])
    found = check_index_absence(ROOT, case["key"], IndexProof("absence", proof.siblings, (own, proof.leaf[1])))
    assert found is not None and found.code == "WRONG_KIND"
    off = bytes([proof.leaf[0][0] ^ 0x80]) + proof.leaf[0][1:]
    found = check_index_absence(ROOT, case["key"], IndexProof("absence", proof.siblings, (off, proof.leaf[1])))
    assert found is not None and found.code == "NOT_ON_PATH"


@pytest.mark.parametrize(
    ("proof", "where"),
    [
        ({"v": 2, "kind": "presence", "siblings": [], "leaf": None}, "v"),
        ({"v": 1, "kind": "both", "siblings": [], "leaf": None}, "kind"),
        ({"v": 1, "kind": "presence", "siblings": ["AB" * 32], "leaf": None}, "siblings.0"),
        ({"v": 1, "kind": "presence", "siblings": [INDEX_EMPTY_HASH.hex()], "leaf": None}, "siblings.0"),
        (
            {"v": 1, "kind": "presence", "siblings": [], "leaf": {"keyPath": "00" * 32, "entryDigest": "00" * 32}},
            "leaf",
        ),
        ({"v": 1, "kind": "presence", "siblings": [None] * 257, "leaf": None}, "siblings"),
        ({"v": 1, "kind": "presence", "siblings": [], "leaf": None, "extra": 1}, "extra"),
    ],
)
def test_malformed_json_proofs_are_refused_by_name(proof: dict[str, Any], where: str) -> None:
    with pytest.raises(IndexProofFormatError) as caught:
        index_proof_from_json(proof)
    assert caught.value.issues[0].path == where
    found = check_index_presence(ROOT, PROOFS[0]["entry"], proof)
    assert found is not None and found.code == "MALFORMED"


@pytest.mark.parametrize(
    ("data", "where"),
    [
        (b"\x01\x00\x00", ""),
        (b"\x02\x00\x00\x00", "version"),
        (b"\x01\x03\x00\x00", "kind"),
        (b"\x01\x00\x01\x01\x00", "depth"),
        (b"\x01\x00\x00\x01\x40", "bitmap"),
        (b"\x01\x00\x00\x01\x80", "siblings.0"),
        (b"\x01\x00\x00\x00\x00", ""),
        (b"\x01\x00\x00\x01\x80" + INDEX_EMPTY_HASH, "siblings.0"),
    ],
)
def test_malformed_binary_proofs_are_refused_by_name(data: bytes, where: str) -> None:
    with pytest.raises(IndexProofFormatError) as caught:
        decode_index_proof(data)
    assert caught.value.issues[0].path == where


def test_a_root_that_is_not_32_bytes_and_bad_inputs() -> None:
    case = PROOFS[0]
    found = check_index_presence(ROOT[:31], case["entry"], bytes.fromhex(case["proofHex"]))
    assert found is not None and found.code == "MALFORMED"
    with pytest.raises(InvalidInputError, match="lineageId"):
        index_key_path({"kind": "lineage", "lineageId": ""})
    with pytest.raises(InvalidInputError, match=r"value\.seq"):
        parse_index_entry(
            {"kind": "residual", "lineageId": "l", "residualId": "r", "value": {"seq": -1, "recordHash": "0" * 64}}
        )
    with pytest.raises(InvalidInputError, match="32-byte"):
        index_node_hash(b"", b"")


# The hostile proofs test/unit/shared/index/vectors.test.ts builds the same way from the same vector
# proofs: a proof passed decoded meets the rules of the binary and JSON forms.
_GOOD = decode_index_proof(bytes.fromhex(PROOFS[0]["proofHex"]))
_AT_LEAF = next(c for c in PROOFS if c["proofJson"]["leaf"] is not None)
_LEAF_PROOF = decode_index_proof(bytes.fromhex(_AT_LEAF["proofHex"]))
_FIRST_EMPTY = _GOOD.siblings.index(None)


def _with_sibling(i: int, sibling: bytes | None) -> tuple[bytes | None, ...]:
    return tuple(sibling if j == i else s for j, s in enumerate(_GOOD.siblings))


def _deep(depth: int) -> tuple[bytes | None, ...]:
    return _GOOD.siblings + (None,) * (depth - len(_GOOD.siblings))


_SECOND = _GOOD.siblings[1]
assert _SECOND is not None and _LEAF_PROOF.leaf is not None


@pytest.mark.parametrize(
    ("proof", "kind"),
    [
        (IndexProof("presence", _with_sibling(_FIRST_EMPTY, INDEX_EMPTY_HASH), None), "presence"),
        (IndexProof("presence", _deep(300), None), "presence"),
        (IndexProof("presence", _deep(257), None), "presence"),
        (IndexProof("presence", _with_sibling(1, _SECOND[1:]), None), "presence"),
        (IndexProof("presence", _GOOD.siblings, _LEAF_PROOF.leaf), "presence"),
        (IndexProof("both", _GOOD.siblings, None), "presence"),  # type: ignore[arg-type]
        (IndexProof("absence", _LEAF_PROOF.siblings, (bytes(31), _LEAF_PROOF.leaf[1])), "absence"),
    ],
    ids=[
        "an empty sibling spelled as the empty hash",
        "a proof 300 deep",
        "a proof 257 deep",
        "a sibling of 31 bytes",
        "a presence carrying another leaf",
        "an unknown kind",
        "an other leaf with a 31-byte key path",
    ],
)
def test_a_decoded_proof_meets_the_rules_of_its_encoded_forms(proof: IndexProof, kind: str) -> None:
    assert check_index_presence(ROOT, PROOFS[0]["entry"], _GOOD) is None
    assert check_index_absence(ROOT, _AT_LEAF["key"], _LEAF_PROOF) is None
    if kind == "presence":
        found = check_index_presence(ROOT, PROOFS[0]["entry"], proof)
    else:
        found = check_index_absence(ROOT, _AT_LEAF["key"], proof)
    assert found is not None and found.code == "MALFORMED"
    with pytest.raises(IndexProofFormatError):
        encode_index_proof(proof)
