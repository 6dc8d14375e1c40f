"""test/vectors/re-anchor.json read by the Python package (docs/deployment-log.md, "Re-anchor"):
the statement hash under its tag, the two signatures of the statement note (the operator's
recovery key, then the log key), the restored and lost roots as RFC 9162 roots of the old
leaves, and the re-anchored leaves that commit to index root and statement hash. The chain
reader follows a re-anchored history only through its statement (test_re_anchor_chain.py): the
last test shows that the plain leaf it would compute without one is not the re-anchored leaf, so a
withheld statement refuses the chain."""

from __future__ import annotations

import base64
from typing import Any

from conftest import vectors

from reseal.canonical import HashDomain, hash_bytes
from reseal.deployment_chain import deployment_leaf
from reseal.log import NoteVerifierKey, ed25519_key_hash, merkle_tree_hash, parse_verifier_key, verify_note

VECTORS: dict[str, Any] = vectors("re-anchor.json")


def _log_key() -> NoteVerifierKey:
    public = bytes.fromhex(VECTORS["logPublicKeyHex"])
    name = VECTORS["logKeyName"]
    return NoteVerifierKey(name, ed25519_key_hash(name, public), public)


def test_the_statement_hash_is_the_tagged_sha256_of_its_text() -> None:
    assert VECTORS["statementTag"] == HashDomain.RE_ANCHOR
    text = VECTORS["statementText"].encode("utf-8")
    assert hash_bytes(HashDomain.RE_ANCHOR, text) == VECTORS["statementHashHex"]
    lines = VECTORS["statementText"].split("\n")
    restored, lost = VECTORS["restored"], VECTORS["lost"]
    assert lines[2] == f"restored {restored['size']} {base64.b64encode(bytes.fromhex(restored['rootHex'])).decode()}"
    assert lines[3] == f"lost {lost['size']} {base64.b64encode(bytes.fromhex(lost['rootHex'])).decode()}"


def test_the_statement_note_is_signed_by_the_recovery_key_and_the_log_key() -> None:
    note = VECTORS["statementNote"]
    assert verify_note(note, parse_verifier_key(VECTORS["recoveryVkey"])) == VECTORS["statementText"]
    assert verify_note(note, _log_key()) == VECTORS["statementText"]
    # The operator's note carries the recovery signature alone: no log signature yet.
    assert verify_note(VECTORS["operatorNote"], parse_verifier_key(VECTORS["recoveryVkey"])) == VECTORS["statementText"]


def test_roots_and_re_anchored_leaves() -> None:
    old = [bytes.fromhex(h) for h in VECTORS["oldLeavesHex"]]
    restored, lost = VECTORS["restored"], VECTORS["lost"]
    assert merkle_tree_hash(old[: restored["size"]]).hex() == restored["rootHex"]
    assert merkle_tree_hash(old[: lost["size"]]).hex() == lost["rootHex"]
    assert VECTORS["leafTag"] == HashDomain.DEPLOYMENT_LEAF_RE_ANCHORED
    statement_hash = bytes.fromhex(VECTORS["statementHashHex"])
    leaves = old[: restored["size"]]
    for step in (VECTORS["reAnchorLeaf"], VECTORS["nextLeaf"]):
        index_root = bytes.fromhex(step["indexRootHex"])
        leaf = bytes.fromhex(hash_bytes(HashDomain.DEPLOYMENT_LEAF_RE_ANCHORED, index_root + statement_hash))
        assert leaf.hex() == step["leafHex"]
        assert step["index"] == len(leaves)
        leaves.append(leaf)
        assert (step["treeSize"], merkle_tree_hash(leaves).hex()) == (len(leaves), step["rootHex"])
    # The re-anchor leaf repeats the index root of the last leaf the restore kept.
    kept = deployment_leaf(bytes.fromhex(VECTORS["reAnchorLeaf"]["indexRootHex"]))
    assert kept.hex() == VECTORS["oldLeavesHex"][restored["size"] - 1]


def test_the_re_anchored_checkpoint_is_signed_by_the_log_key() -> None:
    step = VECTORS["reAnchorLeaf"]
    body = f"{VECTORS['logKeyName']}\n{step['treeSize']}\n{base64.b64encode(bytes.fromhex(step['rootHex'])).decode()}\n"
    assert step["checkpointBody"] == body
    assert verify_note(step["signedCheckpoint"], _log_key()) == body


def test_a_plain_leaf_is_not_a_re_anchored_one() -> None:
    # Without the statement the reader computes the plain leaf for the re-anchored history's last
    # leaf, so its inclusion check fails and the chain is refused, never proven without it.
    step = VECTORS["nextLeaf"]
    assert deployment_leaf(bytes.fromhex(step["indexRootHex"])).hex() != step["leafHex"]
