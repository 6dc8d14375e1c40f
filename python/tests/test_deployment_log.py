"""The deployment log's leaves (docs/deployment-log.md, "Leaves"): test/vectors/deployment-log.json,
which the TypeScript integrator writes, recomputed here from the verifiable-index roots."""

from __future__ import annotations

import base64

from conftest import vectors

from reseal.canonical import HASH_DOMAINS, HashDomain, hash_bytes
from reseal.log import leaf_hash, merkle_tree_hash

LOG = vectors("deployment-log.json")


def test_each_leaf_is_the_tagged_hash_of_its_index_root_and_the_roots_cover_the_leaves_so_far() -> None:
    assert LOG["tag"] == HashDomain.DEPLOYMENT_LEAF and LOG["tag"] in HASH_DOMAINS
    leaves: list[bytes] = []
    for integration in LOG["integrations"]:
        leaf = hash_bytes(HashDomain.DEPLOYMENT_LEAF, bytes.fromhex(integration["indexRootHex"]))
        assert leaf == integration["leafHex"], integration["note"]
        assert leaf_hash(bytes.fromhex(leaf)).hex() == integration["leafHashHex"]
        leaves.append(bytes.fromhex(leaf))
        assert integration["treeSize"] == len(leaves)
        assert merkle_tree_hash(leaves).hex() == integration["rootHex"], integration["note"]
        root = base64.b64encode(merkle_tree_hash(leaves)).decode()
        assert integration["checkpointBody"] == f"{LOG['logKeyName']}\n{len(leaves)}\n{root}\n"
