"""The head-state MAC vectors (test/vectors/head-state-mac.json): the Python message is the
TypeScript one byte for byte, and the MAC under the vector key is the recorded one."""

from __future__ import annotations

import base64
import hashlib
import hmac

import pytest
from conftest import vectors

from reseal.canonical import canonical_json
from reseal.head_state import head_state_message

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
