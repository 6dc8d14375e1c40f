"""The record-batch MAC (docs/sealing.md, "The record and its seal"; docs/canonical-form.md), as
the TypeScript ``recordBatchMessage`` and ``recordMacMessage`` (``shared/seal/record-batch.ts``,
``shared/seal/verify-record-mac.ts``) build it: one sealer invocation MACs the RFC 9162 root of
the record hashes it seals, each leaf salted (``recordHash || salt``, 16 random bytes stored only
in the record's own item), and each record stores its place (``macBatch``: leaf index, batch
size, salt, audit path). A record stays checkable on its own: its salted record hash folded by
its path to the root, and one HMAC check over the root's message."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeGuard

from ._checks import is_hex_digest
from .canonical import HashDomain, hash_bytes
from .log import inclusion_root, leaf_hash

__all__ = ["record_batch_message", "record_batch_root", "record_mac_message"]

MAX_RECORD_BATCH = 0xFFFF_FFFF
"""Most leaves a batch may name: what the record item's 4-byte size holds."""

RECORD_BATCH_SALT_BYTES = 16
"""Bytes of a batch record's salt: a batch-mate's path then reveals nothing a rebuilt record can be
checked against, and a record never stored has no salt anywhere (docs/sealing.md)."""


def record_batch_message(size: int, root: bytes) -> bytes:
    """``SHA-256("reseal/v1/record-batch" || 0x00 || uint64be(size) || root)``, 32 bytes. The size
    is bound because a record stores it: an edited size that keeps the leaf's path shape folds to
    the same root, so only the MAC over the size refuses it.

    :raises ValueError: ``size`` is not 1 to ``MAX_RECORD_BATCH`` or ``root`` is not 32 bytes
    """
    if type(size) is not int or not 1 <= size <= MAX_RECORD_BATCH:
        raise ValueError(f"a batch size is 1 to {MAX_RECORD_BATCH}")
    if len(root) != 32:
        raise ValueError("a batch root is 32 bytes")
    return bytes.fromhex(hash_bytes(HashDomain.RECORD_BATCH, size.to_bytes(8, "big") + bytes(root)))


def record_batch_root(record_hash: Any, place: Any) -> bytes | None:
    """The root ``place`` folds ``record_hash || salt`` to, or ``None`` when the place is malformed
    (an index not below the size, a salt missing or not 16 bytes of lowercase hex, a path too long
    or too short, an element not 64 lowercase hex). Never raises."""
    if not isinstance(place, Mapping) or not is_hex_digest(record_hash):
        return None
    index, size, salt, path = place.get("index"), place.get("size"), place.get("salt"), place.get("path")
    if type(index) is not int or type(size) is not int or not 0 <= index < size <= MAX_RECORD_BATCH:
        return None
    if not _is_salt(salt):
        return None
    if type(path) is not list or len(path) > 32 or not all(is_hex_digest(node) for node in path):
        return None
    leaf = leaf_hash(bytes.fromhex(record_hash) + bytes.fromhex(salt))
    return inclusion_root(index, size, leaf, [bytes.fromhex(n) for n in path])


def _is_salt(value: Any) -> TypeGuard[str]:
    """``value`` is ``RECORD_BATCH_SALT_BYTES`` bytes as lowercase hex."""
    return (
        type(value) is str and len(value) == 2 * RECORD_BATCH_SALT_BYTES and all(c in "0123456789abcdef" for c in value)
    )


def record_mac_message(record: Mapping[str, Any], header_message: bytes) -> bytes | None:
    """The message a record's MAC is over: its header bytes (no ``macBatch``: the single form),
    the batch message of its place's size and the root the place folds its record hash to, or
    ``None`` when the place is malformed (the MAC fails)."""
    if "macBatch" not in record:
        return header_message
    place = record["macBatch"]
    root = record_batch_root(record.get("recordHash"), place)
    return None if root is None else record_batch_message(place["size"], root)
