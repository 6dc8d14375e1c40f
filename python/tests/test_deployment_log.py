"""test/vectors/deployment-log.json read in Python (docs/deployment-log.md, "Leaves" and "Vectors"):
each leaf is the domain-tagged hash of one verifiable-index root, the log is an RFC 9162 tree of
them, and each signed deployment checkpoint verifies under the vectors' log key."""

from __future__ import annotations

import hashlib

from conftest import vectors

from reseal import (
    HashDomain,
    leaf_hash,
    merkle_tree_hash,
    note_verifier_key,
    verify_consistency,
    verify_note,
)

LOG = vectors("deployment-log.json")
KEY = note_verifier_key(LOG["logKeyName"], bytes.fromhex(LOG["publicKeyHex"]))


def test_the_tag_is_the_deployment_leaf_domain() -> None:
    assert LOG["tag"] == HashDomain.DEPLOYMENT_LEAF


def test_each_integration_appends_one_leaf_and_signs_the_new_root() -> None:
    leaves: list[bytes] = []
    for step in LOG["integrations"]:
        index_root = bytes.fromhex(step["indexRootHex"])
        leaf = hashlib.sha256(HashDomain.DEPLOYMENT_LEAF.encode("ascii") + b"\x00" + index_root).digest()
        assert leaf.hex() == step["leafHex"], step["note"]
        assert leaf_hash(leaf).hex() == step["leafHashHex"], step["note"]
        leaves.append(leaf)
        assert step["treeSize"] == len(leaves)
        assert merkle_tree_hash(leaves).hex() == step["rootHex"], step["note"]
        assert verify_note(step["signedCheckpoint"], KEY) == step["checkpointBody"], step["note"]
        assert step["checkpointBody"].split("\n")[:2] == [LOG["logKeyName"], str(len(leaves))]


def test_the_consistency_proof_links_the_first_checkpoint_to_the_last() -> None:
    proof = LOG["consistency"]
    roots = {step["treeSize"]: bytes.fromhex(step["rootHex"]) for step in LOG["integrations"]}
    size1, size2 = proof["fromSize"], proof["toSize"]
    hashes = [bytes.fromhex(h) for h in proof["proofHex"]]
    assert verify_consistency(size1, size2, roots[size1], roots[size2], hashes)
    assert not verify_consistency(size1, size2, roots[size2], roots[size2], hashes)
