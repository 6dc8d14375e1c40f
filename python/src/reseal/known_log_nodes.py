"""Tree nodes a reader holds without a table read (the TypeScript ``knownLogNodes``): a proven
record's own leaf and, when it is its tree's last leaf, the head item's frontier once that proves
it against the tree's root (docs/verifiable-log.md, "Stored state"; docs/pipeline.md, "Learning
the outcome of a write"). Every node still enters a proof checked against the roots."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ._checks import is_hex_digest
from .log import Checkpoint, leaf_hash, verify_inclusion
from .tree_refs import NodeRef, subtree_refs

__all__ = ["KnownLogNodes", "known_log_nodes", "last_leaf_path_of"]

KnownLogNodes = Mapping[NodeRef, str]
"""Hex node hashes by ``(level, index)``, each one a proof it enters is checked with."""


def last_leaf_path_of(frontier: Sequence[Any] | None, head_seq: int, size: int) -> tuple[str, ...] | None:
    """The last leaf's inclusion path (hex, leaf side first) from a head item's ``frontier`` (the
    perfect subtrees of the first ``size - 1`` leaves, largest first), or ``None`` when it does not
    fit a tree of ``size`` whose last record the head names (``head_seq``), as the TypeScript
    ``lastLeafPathOf`` reads it."""
    if frontier is None or head_seq + 1 != size or size < 1:
        return None
    if len(frontier) != (size - 1).bit_count() or not all(is_hex_digest(h) for h in frontier):
        return None
    return tuple(reversed(frontier))


def known_log_nodes(tree: Checkpoint, seq: int, record_hash: str) -> dict[NodeRef, str]:
    """The nodes record ``seq`` (its ``record_hash``, hex) and ``tree`` give for free: the
    record's leaf, and, when it is the tree's last leaf and ``tree.last_leaf_path`` proves it
    against ``tree.root_hash``, that path's nodes. A path that does not prove the leaf gives
    nothing, so a frontier a table writer edited never stands in for the table's nodes.

    :raises ValueError: ``record_hash`` is not hex"""
    leaf = leaf_hash(bytes.fromhex(record_hash))
    known: dict[NodeRef, str] = {(0, seq): leaf.hex()}
    path = tree.last_leaf_path
    left = tree.size - 1
    if path is None or seq != left or len(path) != left.bit_count():
        return known
    proof = [bytes.fromhex(h) for h in path]
    if not verify_inclusion(left, tree.size, leaf, proof, tree.root_hash):
        return known
    # The path runs leaf side first: the smallest subtree left of the last leaf up to the largest.
    for ref, node in zip(subtree_refs(0, left), reversed(path), strict=True):
        known[ref] = node
    return known
