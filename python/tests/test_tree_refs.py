"""Proofs built from stored perfect subtrees (what the online client reads from the table) verify
as RFC 9162 proofs, for every leaf and size of small trees."""

from __future__ import annotations

from reseal import leaf_hash, merkle_tree_hash, verify_consistency, verify_inclusion
from reseal.tree_refs import consistency_proof_refs, inclusion_proof_refs, range_root


def leaves(n: int) -> list[bytes]:
    return [i.to_bytes(2, "big") for i in range(n)]


def stored(level: int, index: int, tree: list[bytes]) -> bytes:
    return merkle_tree_hash(tree[index << level : (index + 1) << level])


def test_inclusion_and_consistency_proofs_from_stored_nodes_verify() -> None:
    for n in range(1, 34):
        tree = leaves(n)
        root = merkle_tree_hash(tree)
        for i in range(n):
            proof = [range_root([stored(lv, ix, tree) for lv, ix in g]) for g in inclusion_proof_refs(i, n)]
            assert verify_inclusion(i, n, leaf_hash(tree[i]), proof, root), (i, n)
        for m in range(1, n + 1):
            proof = [range_root([stored(lv, ix, tree) for lv, ix in g]) for g in consistency_proof_refs(m, n)]
            assert verify_consistency(m, n, merkle_tree_hash(tree[:m]), root, proof), (m, n)
