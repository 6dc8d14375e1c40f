"""The head-key MAC (test/vectors/head-key-mac.json; docs/verifiable-log.md, "Appending"): the
Python message is the TypeScript one byte for byte, and a small head item carrying ``headKeyMac``
and ``headDataKey`` (no ``headMac``) still reads as the head state it claims."""

from __future__ import annotations

import base64
import hashlib
import hmac
from typing import Any

import pytest
from conftest import vectors

from reseal.canonical import HashDomain, canonical_json
from reseal.head_state import claimed_head_state, head_key_message, head_state_message
from reseal.item_layout import head_key_mac_of, log_head_of

VECTORS = vectors("head-key-mac.json")
LAYOUT = vectors("item-layout.json")


def boto(item: dict[str, Any]) -> dict[str, Any]:
    return {n: {"B": base64.b64decode(v["B"])} if isinstance(v, dict) and "B" in v else v for n, v in item.items()}


@pytest.mark.parametrize("case", VECTORS["cases"], ids=lambda case: case["name"])
def test_the_message_and_mac_of_each_vector_case(case: dict) -> None:
    assert VECTORS["tag"] == HashDomain.HEAD_STATE_KEY
    assert canonical_json({"v": 1, **case["state"]}) == case["canonicalJson"]
    message = head_key_message(case["state"])
    assert message.hex() == case["messageHex"]
    assert message != head_state_message(case["state"])
    mac = hmac.new(bytes.fromhex(VECTORS["dataKeyHex"]), message, hashlib.sha256).hexdigest()
    assert mac == case["macHex"]


def test_a_small_head_with_a_head_key_mac_reads_as_the_state_it_claims() -> None:
    entry = next(e for e in LAYOUT["headStates"] if e["name"].startswith("head, small"))
    item = boto(entry["item"])
    del item["headMac"]
    mac = bytes(range(32))
    blob = b"\x01\x02wrapped data key"
    item = {**item, "headKeyMac": {"B": mac}, "headDataKey": {"B": blob}}
    stored = log_head_of(LAYOUT["lineageId"], item)
    assert stored is not None
    assert claimed_head_state(LAYOUT["lineageId"], stored) == entry["state"]
    assert head_key_mac_of(item) == {"mac": mac, "keyBlob": blob}


def test_a_head_key_mac_reads_only_as_two_binaries_of_which_the_mac_is_32_bytes() -> None:
    mac = {"B": bytes(32)}
    blob = {"B": b"blob"}
    assert head_key_mac_of({}) is None
    assert head_key_mac_of({"headKeyMac": mac}) is None
    assert head_key_mac_of({"headDataKey": blob}) is None
    assert head_key_mac_of({"headKeyMac": {"B": bytes(31)}, "headDataKey": blob}) is None
    assert head_key_mac_of({"headKeyMac": {"S": "00" * 32}, "headDataKey": blob}) is None
    assert head_key_mac_of({"headKeyMac": mac, "headDataKey": {"B": b""}}) is None
