"""Which stored tree nodes make an RFC 9162 proof (docs/verifiable-log.md, "Merkle tree"): the
stored nodes are perfect subtrees ``(level, index)``, and each proof element is the
:func:`range_root` of a few of them. A proof built from the table's nodes is then checked against
a signed root, so a forged node only makes it fail.
"""

from __future__ import annotations

from collections.abc import Sequence

from .log import node_hash

__all__ = ["consistency_proof_refs", "inclusion_proof_refs", "range_root", "subtree_refs"]

NodeRef = tuple[int, int]
"""``(level, index)``: the 2^level leaves starting at ``index · 2^level``."""


def _split_point(n: int) -> int:
    k = 1
    while k * 2 < n:
        k *= 2
    return k


def subtree_refs(start: int, end: int) -> list[NodeRef]:
    """The leaf range [start, end) (start aligned, as the MTH recursion makes them) as maximal
    perfect subtrees, left to right, largest first."""
    refs: list[NodeRef] = []
    size = end - start
    if size <= 0:
        return refs
    level = size.bit_length() - 1
    width = 1 << level
    position = start
    remaining = size
    while remaining > 0:
        if width <= remaining:
            refs.append((level, position // width))
            position += width
            remaining -= width
        width //= 2
        level -= 1
    return refs


def range_root(hashes: Sequence[bytes]) -> bytes:
    """MTH of a range from its subtrees' hashes, folded from the right."""
    root = hashes[-1]
    for left in reversed(hashes[:-1]):
        root = node_hash(left, root)
    return root


def inclusion_proof_refs(index: int, size: int) -> list[list[NodeRef]]:
    """Per element of the inclusion proof of leaf ``index`` in a tree of ``size`` (leaf side
    first), the refs whose :func:`range_root` it is.

    :raises ValueError: unless 0 ≤ index < size
    """
    if not 0 <= index < size:
        raise ValueError(f"leaf index {index} is not below tree size {size}")
    top_down: list[list[NodeRef]] = []
    lo, hi = 0, size
    while hi - lo > 1:
        k = _split_point(hi - lo)
        if index < lo + k:
            top_down.append(subtree_refs(lo + k, hi))
            hi = lo + k
        else:
            top_down.append(subtree_refs(lo, lo + k))
            lo += k
    return top_down[::-1]


def consistency_proof_refs(size1: int, size2: int) -> list[list[NodeRef]]:
    """Per element of the consistency proof from ``size1`` to ``size2``, the refs whose
    :func:`range_root` it is; empty when ``size1`` is 0 or equals ``size2``.

    :raises ValueError: unless 0 ≤ size1 ≤ size2
    """
    if not 0 <= size1 <= size2:
        raise ValueError(f"size1 {size1} is not between 0 and size2 {size2}")
    if size1 in (0, size2):
        return []
    top_down: list[list[NodeRef]] = []
    lo, hi = 0, size2
    old_root_is_node = True
    while size1 != hi:
        k = _split_point(hi - lo)
        if size1 <= lo + k:
            top_down.append(subtree_refs(lo + k, hi))
            hi = lo + k
        else:
            top_down.append(subtree_refs(lo, lo + k))
            lo += k
            old_root_is_node = False
    if not old_root_is_node:
        top_down.append(subtree_refs(lo, hi))
    return top_down[::-1]
