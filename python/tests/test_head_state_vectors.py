"""The head-state MAC vectors (test/vectors/head-state-mac.json): the Python message is the
TypeScript one byte for byte, and the MAC under the vector key is the recorded one."""

from __future__ import annotations

import base64
import hashlib
import hmac

import pytest
from conftest import vectors

from reseal.canonical import canonical_json
from reseal.head_state import head_mac_message, head_state_batch_message, head_state_message
from reseal.item_layout import head_mac_of

VECTORS = vectors("head-state-mac.json")


@pytest.mark.parametrize("case", VECTORS["cases"], ids=lambda case: case["name"])
def test_the_message_and_mac_of_each_vector_case(case: dict) -> None:
    body = {"v": 1, **case["state"]}
    assert canonical_json(body) == case["canonicalJson"]
    message = head_state_message(case["state"])
    assert message.hex() == case["messageHex"]
    mac = hmac.new(bytes.fromhex(VECTORS["keyHex"]), message, hashlib.sha256).digest()
    assert base64.b64encode(mac).decode("ascii") == case["mac"]


def test_one_changed_field_changes_the_message() -> None:
    state = dict(VECTORS["cases"][0]["state"])
    base = head_state_message(state)
    for name, value in (
        ("treeSize", state["treeSize"] + 1),
        ("generationEpoch", state["generationEpoch"] + 1),
        ("writerPolicyDigest", None),
    ):
        assert head_state_message({**state, name: value}) != base, name


@pytest.mark.parametrize("batch", VECTORS["batches"], ids=lambda batch: batch["name"])
def test_the_message_and_mac_of_each_batch_vector(batch: dict) -> None:
    assert VECTORS["batchTag"] == "reseal/v1/head-state-batch"
    heads = sorted({head_state_message(state).hex() for state in batch["states"]})
    assert heads == batch["heads"]
    assert canonical_json({"v": 1, "heads": heads}) == batch["canonicalJson"]
    message = head_state_batch_message(heads)
    assert message.hex() == batch["messageHex"]
    mac = hmac.new(bytes.fromhex(VECTORS["keyHex"]), message, hashlib.sha256).digest()
    assert base64.b64encode(mac).decode("ascii") == batch["mac"]
    stored = {"keyId": VECTORS["keyId"], "algorithm": "HMAC_SHA_256", "mac": batch["mac"], "heads": heads}
    for state in batch["states"]:
        assert head_mac_message(state, stored) == message


def test_a_head_mac_names_the_message_it_verifies_over_or_none() -> None:
    batch = VECTORS["batches"][2]
    state = batch["states"][0]
    stored = {"keyId": VECTORS["keyId"], "algorithm": "HMAC_SHA_256", "mac": batch["mac"], "heads": batch["heads"]}
    single = {k: v for k, v in stored.items() if k != "heads"}
    assert head_mac_message(state, single) == head_state_message(state)
    assert head_mac_message({**state, "treeSize": state["treeSize"] + 1}, stored) is None
    for heads in (
        [],
        list(reversed(batch["heads"])),
        [*batch["heads"], batch["heads"][0]],
        [h.upper() for h in batch["heads"]],
        "".join(batch["heads"]),
        None,
    ):
        assert head_mac_message(state, {**stored, "heads": heads}) is None, heads
    assert head_mac_message(state, None) is None
    # A batch of one is not the single state's message (another tag).
    own = [head_state_message(state).hex()]
    assert head_state_batch_message(own) != head_state_message(state)


def test_a_head_items_head_mac_reads_with_its_heads_attribute() -> None:
    batch = VECTORS["batches"][0]
    signature = {"keyId": VECTORS["keyId"], "algorithm": "HMAC_SHA_256", "mac": batch["mac"]}
    item = {"headMac": {"S": canonical_json(signature)}}
    assert head_mac_of(item) == signature
    heads = b"".join(bytes.fromhex(h) for h in batch["heads"])
    stored = head_mac_of({**item, "headMacHeads": {"B": heads}})
    assert stored == {**signature, "heads": batch["heads"]}
    assert head_mac_of({**item, "headMacHeads": {"B": heads[:-1]}}) == {**signature, "heads": None}
    assert head_mac_of({}) is None
    # One stored form: a list inside the headMac JSON (alone, or beside headMacHeads) never verifies.
    in_json = {"headMac": {"S": canonical_json({**signature, "heads": batch["heads"]})}}
    assert head_mac_of(in_json) == {**signature, "heads": None}
    assert head_mac_of({**in_json, "headMacHeads": {"B": heads}}) == {**signature, "heads": None}
    for state in batch["states"]:
        assert head_mac_message(state, head_mac_of(in_json)) is None
    for state in batch["states"]:
        assert head_mac_message(state, stored) == bytes.fromhex(batch["messageHex"])
