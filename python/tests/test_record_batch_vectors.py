"""The record-batch MAC vectors (test/vectors/record-batch-mac.json): the Python message, root and
places are the TypeScript ones, the MAC under the vector key is the recorded one, the record item's
binary place reads back, and a batch-MAC'd chain verifies while an edited, moved or stripped place
is the MAC failure every reader reports."""

from __future__ import annotations

import base64
import copy
import hashlib
import hmac
import json
from typing import Any

import pytest
from conftest import vectors

from reseal import LocalHmacAnchor, verify_chain
from reseal import VerificationVerdict as V
from reseal.item_layout import mac_batch_of, record_of
from reseal.log import leaf_hash, merkle_tree_hash
from reseal.record_batch import record_batch_message, record_batch_root, record_mac_message
from reseal.records import header_bytes

VECTORS = vectors("record-batch-mac.json")
SEAL = vectors("seal.json")
KEY = bytes.fromhex(VECTORS["keyHex"])


def _split(n: int) -> int:
    k = 1
    while k * 2 < n:
        k *= 2
    return k


def _path(m: int, leaves: list[bytes]) -> list[bytes]:
    """PATH(m, D[n]), RFC 9162 §2.1.3.1, written out independently of the package."""
    if len(leaves) <= 1:
        return []
    k = _split(len(leaves))
    if m < k:
        return [*_path(m, leaves[:k]), merkle_tree_hash(leaves[k:])]
    return [*_path(m - k, leaves[k:]), merkle_tree_hash(leaves[:k])]


@pytest.mark.parametrize("batch", VECTORS["batches"], ids=lambda batch: batch["name"])
def test_the_root_message_mac_and_places_of_each_batch(batch: dict) -> None:
    assert VECTORS["tag"] == "reseal/v1/record-batch"
    leaves = [bytes.fromhex(h) + bytes.fromhex(s) for h, s in zip(batch["recordHashes"], batch["salts"], strict=True)]
    assert all(len(bytes.fromhex(s)) == 16 for s in batch["salts"])
    root = merkle_tree_hash(leaves)
    assert root.hex() == batch["rootHex"]
    size = len(leaves).to_bytes(8, "big")
    message = hashlib.sha256(VECTORS["tag"].encode() + b"\x00" + size + root).digest()
    assert message.hex() == batch["messageHex"] == record_batch_message(len(leaves), root).hex()
    mac = hmac.new(KEY, message, hashlib.sha256).digest()
    assert base64.b64encode(mac).decode("ascii") == batch["mac"]
    for i, place in enumerate(batch["places"]):
        assert place["index"] == i and place["size"] == len(leaves) and place["salt"] == batch["salts"][i]
        assert place["path"] == [node.hex() for node in _path(i, leaves)]
        bare = {k: v for k, v in place.items() if k != "storedHex"}
        assert record_batch_root(batch["recordHashes"][i], bare) == root
        assert mac_batch_of({"macBatch": {"B": bytes.fromhex(place["storedHex"])}}) == bare


def _salt(i: int) -> bytes:
    return bytes([0x40 + i]) * 16


def _batched_chain() -> list[dict[str, Any]]:
    """The seal vectors' chain, its records MAC'd as one batch (as one sealer invocation does)."""
    chain = copy.deepcopy([v["record"] for v in SEAL["records"]])
    leaves = [bytes.fromhex(r["recordHash"]) + _salt(i) for i, r in enumerate(chain)]
    root = merkle_tree_hash(leaves)
    mac = base64.b64encode(hmac.new(KEY, record_batch_message(len(chain), root), hashlib.sha256).digest()).decode()
    for i, record in enumerate(chain):
        record["anchor"] = {**record["anchor"], "mac": mac}
        path = [n.hex() for n in _path(i, leaves)]
        record["macBatch"] = {"index": i, "size": len(chain), "salt": _salt(i).hex(), "path": path}
    return chain


def _verdict(chain: list[dict[str, Any]]) -> str:
    return verify_chain(chain, SEAL["lineageId"], anchor=LocalHmacAnchor(SEAL["keyId"], KEY)).verdict


def test_a_batch_maced_chain_verifies_record_by_record() -> None:
    chain = _batched_chain()
    assert len(chain) >= 2
    assert _verdict(chain) == V.VERIFIED_INTACT
    assert record_mac_message(chain[0], header_bytes(chain[0]["header"])) != header_bytes(chain[0]["header"])


TAMPERS = {
    "a path hash edited": lambda r, o: r["macBatch"]["path"].__setitem__(0, "ab" * 32),
    "the leaf index edited": lambda r, o: r["macBatch"].__setitem__("index", 1),
    "the batch size edited": lambda r, o: r["macBatch"].__setitem__("size", 5),
    "the place moved from another record": lambda r, o: r.__setitem__("macBatch", copy.deepcopy(o["macBatch"])),
    "the place stripped": lambda r, o: r.pop("macBatch"),
    "an index not below the size": lambda r, o: r["macBatch"].update(index=2, size=2),
    "a path one hash too long": lambda r, o: r["macBatch"]["path"].append("cd" * 32),
    "a path element not 32 bytes": lambda r, o: r["macBatch"]["path"].__setitem__(0, "ab" * 31),
    "a path longer than 32 hashes": lambda r, o: r["macBatch"].__setitem__("path", ["cd" * 32] * 33),
    "the salt edited": lambda r, o: r["macBatch"].__setitem__("salt", "00" * 16),
    "the salt moved from another record": lambda r, o: r["macBatch"].__setitem__("salt", o["macBatch"]["salt"]),
    "the salt stripped": lambda r, o: r["macBatch"].pop("salt"),
    "a salt one byte short": lambda r, o: r["macBatch"].__setitem__("salt", r["macBatch"]["salt"][2:]),
}


@pytest.mark.parametrize("name", TAMPERS)
def test_an_edited_place_is_the_mac_failure(name: str) -> None:
    chain = _batched_chain()
    TAMPERS[name](chain[0], chain[1])
    result = verify_chain(chain, SEAL["lineageId"], anchor=LocalHmacAnchor(SEAL["keyId"], KEY))
    assert result.verdict == V.HASH_MISMATCH
    assert result.first_failure is not None and result.first_failure.reason == "anchor invalid: tampered or forged"


def test_the_item_place_is_read_once_and_binary() -> None:
    record = _batched_chain()[1]
    place = record.pop("macBatch")
    stored = place["index"].to_bytes(4, "big") + place["size"].to_bytes(4, "big") + bytes.fromhex(place["salt"])
    stored += b"".join(bytes.fromhex(n) for n in place["path"])
    text = {"S": json.dumps(record)}
    assert record_of({"record": text, "macBatch": {"B": stored}})["macBatch"] == place
    assert record_of({"record": text})  # a single-form item reads without a place
    assert "macBatch" not in record_of({"record": text})
    injected = {"S": json.dumps({**record, "macBatch": place})}
    assert record_of({"record": injected})["macBatch"] == {"index": 0, "size": 0, "salt": "", "path": []}
    assert mac_batch_of({"macBatch": {"B": b"\x00\x01"}}) == {"index": 0, "size": 0, "salt": "", "path": []}
    assert mac_batch_of({"macBatch": {"B": stored[:20]}}) == {**place, "salt": place["salt"][:24], "path": []}


def test_a_size_edit_that_keeps_the_path_shape_fails_the_mac() -> None:
    # Leaf 0 has a path of 2 hashes in a batch of 3 and of 4: the fold gives the same root, and
    # only the size in the MAC'd message refuses the edit.
    batch = next(b for b in VECTORS["batches"] if len(b["recordHashes"]) == 3)
    place = {k: v for k, v in batch["places"][0].items() if k != "storedHex"}
    record = {"recordHash": batch["recordHashes"][0], "macBatch": place}
    assert record_mac_message(record, b"").hex() == batch["messageHex"]
    edited = {**record, "macBatch": {**place, "size": 4}}
    assert record_batch_root(edited["recordHash"], edited["macBatch"]) == bytes.fromhex(batch["rootHex"])
    message = record_mac_message(edited, b"")
    assert message is not None and message.hex() != batch["messageHex"]
    mac = base64.b64encode(hmac.new(KEY, message, hashlib.sha256).digest()).decode("ascii")
    assert mac != batch["mac"]


def test_a_batch_mate_maced_but_never_stored_cannot_be_rebuilt() -> None:
    # A batch of two whose second record was never stored: the table writer reads the stored
    # mate's item (record, salt, path) and builds the lost record a place from the mate's leaf,
    # with the mate's MAC. The lost salt was never written, so no salt it can name verifies.
    chain = _batched_chain()[:2]
    leaves = [bytes.fromhex(r["recordHash"]) + _salt(i) for i, r in enumerate(chain)]
    root = merkle_tree_hash(leaves)
    mac = base64.b64encode(hmac.new(KEY, record_batch_message(2, root), hashlib.sha256).digest()).decode()
    stored, lost = chain
    stored["anchor"] = {**stored["anchor"], "mac": mac}
    stored["macBatch"] = {"index": 0, "size": 2, "salt": _salt(0).hex(), "path": [leaf_hash(leaves[1]).hex()]}
    assert _verdict([stored]) == V.VERIFIED_INTACT
    place = {"index": 1, "size": 2, "path": [leaf_hash(leaves[0]).hex()]}
    rebuilt = {**lost, "anchor": {**lost["anchor"], "mac": mac}}
    right = {**rebuilt, "macBatch": {**place, "salt": _salt(1).hex()}}
    assert _verdict([copy.deepcopy(stored), right]) == V.VERIFIED_INTACT  # only the lost salt is missing
    for salt in (None, _salt(0).hex(), "00" * 16, "ff" * 16):
        guess = {**rebuilt, "macBatch": place if salt is None else {**place, "salt": salt}}
        result = verify_chain(
            [copy.deepcopy(stored), guess], SEAL["lineageId"], anchor=LocalHmacAnchor(SEAL["keyId"], KEY)
        )
        assert result.verdict == V.HASH_MISMATCH
        assert result.first_failure is not None and result.first_failure.seq == 1
