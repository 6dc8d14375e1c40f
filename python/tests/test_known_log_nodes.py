"""The nodes a proven last record and its head item give (the TypeScript known-log-nodes.test.ts):
each is the tree node it names, together they answer a consistency proof from one record behind,
and a frontier that does not prove the record gives its leaf alone."""

from __future__ import annotations

import hashlib

from reseal.known_log_nodes import known_log_nodes, last_leaf_path_of
from reseal.log import Checkpoint, merkle_tree_hash
from reseal.tree_refs import consistency_proof_refs, subtree_refs


def record_hash(seq: int) -> str:
    return hashlib.sha256(f"record {seq}".encode()).hexdigest()


def node(leaves: list[bytes], level: int, index: int) -> str:
    return merkle_tree_hash(leaves[index * 2**level : (index + 1) * 2**level]).hex()


def head_tree(size: int) -> tuple[list[bytes], Checkpoint]:
    """A tree of ``size`` records and its head item's last-leaf path."""
    leaves = [bytes.fromhex(record_hash(seq)) for seq in range(size)]
    frontier = [node(leaves, level, index) for level, index in subtree_refs(0, size - 1)]
    path = last_leaf_path_of(frontier, size - 1, size)
    assert path is not None
    return leaves, Checkpoint("o", size, merkle_tree_hash(leaves), None, path)


def test_the_frontier_nodes_are_the_tree_nodes_they_name_and_answer_a_proof_from_one_record_behind() -> None:
    for size in (1, 2, 3, 6, 7, 8, 13, 64, 100):
        leaves, tree = head_tree(size)
        known = known_log_nodes(tree, size - 1, record_hash(size - 1))
        assert len(known) == 1 + (size - 1).bit_count()
        for (level, index), hash_hex in known.items():
            assert hash_hex == node(leaves, level, index), (level, index, size)
        if size >= 2:
            asked = [ref for group in consistency_proof_refs(size - 1, size) for ref in group if ref not in known]
            assert asked == [], size


def test_a_path_that_does_not_prove_the_last_record_gives_its_leaf_alone() -> None:
    _leaves, tree = head_tree(6)
    assert tree.last_leaf_path is not None
    edited = Checkpoint("o", 6, tree.root_hash, None, (record_hash(99), *tree.last_leaf_path[1:]))
    assert list(known_log_nodes(edited, 5, record_hash(5))) == [(0, 5)]
    assert list(known_log_nodes(tree, 5, record_hash(98))) == [(0, 5)]
    assert list(known_log_nodes(tree, 3, record_hash(3))) == [(0, 3)]


def test_a_frontier_that_does_not_fit_the_tree_gives_no_path() -> None:
    frontier = [record_hash(0), record_hash(1)]
    assert last_leaf_path_of(frontier, 6, 7) == (record_hash(1), record_hash(0))
    assert last_leaf_path_of(frontier, 5, 7) is None  # the head names another last record
    assert last_leaf_path_of(frontier[:1], 6, 7) is None  # too short for 6 leaves
    assert last_leaf_path_of([*frontier[:1], "zz"], 6, 7) is None
    assert last_leaf_path_of(None, 6, 7) is None
