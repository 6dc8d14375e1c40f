"""The verifiable index: a sparse Merkle tree of 2^256 leaves (docs/verifiable-index.md).

A client that holds the index root (from a verified checkpoint) checks with these functions alone
that an entry is in the index ("presence") or that a key has none ("absence"). Hashing, keys and
both proof forms follow docs/verifiable-index.md ("Hashing", "Keys", "Entries", "Proofs")::

    empty    = SHA-256("reseal/v1/index-empty" || 0x00)
    leaf     = SHA-256("reseal/v1/index-leaf"  || 0x00 || keyPath(32) || entryDigest(32))
    interior = SHA-256("reseal/v1/index-node"  || 0x00 || left(32) || right(32))
    keyHash  = SHA-256("reseal/v1/index-key"   || 0x00 || JCS({v: 1, kind, lineageId[, residualId]}))
    keyPath  = keyHash(lineage key)                                     for a lineage
             = keyHash(lineage key)[bits 0 … P − 1] || keyHash(key)[bits P … 255]   for a residual id
    entry    = SHA-256("reseal/v1/index-entry" || 0x00 || JCS({v: 1, kind, lineageId[, residualId], value}))

A subtree with no leaf hashes to ``empty`` and a subtree with exactly one leaf is that leaf (the
leaf shortcut), so a path ends where its subtree holds at most one leaf.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

from ._checks import is_hex_digest, is_identifier, is_safe_int
from .canonical import MAX_SAFE_INTEGER, HashDomain, canonical_json
from .errors import IndexProofFormatError, InputIssue, InvalidInputError
from .strict_json import parse_strict_json

__all__ = [
    "INDEX_TAGS",
    "INDEX_EMPTY_HASH",
    "INDEX_PROOF_VERSION",
    "IndexProof",
    "IndexProofFinding",
    "index_leaf_hash",
    "index_node_hash",
    "index_key_path",
    "RESIDUAL_SHARED_PATH_BITS",
    "index_entry_digest",
    "index_entry_key",
    "parse_index_key",
    "parse_index_entry",
    "decode_index_proof",
    "encode_index_proof",
    "index_proof_from_json",
    "index_proof_to_json",
    "check_index_presence",
    "check_index_absence",
    "index_root",
    "INDEX_TILE_VERSION",
    "IndexTile",
    "decode_index_tile",
    "encode_index_node_tile",
]

INDEX_TAGS: Final = {
    "key": HashDomain.INDEX_KEY,
    "entry": HashDomain.INDEX_ENTRY,
    "leaf": HashDomain.INDEX_LEAF,
    "node": HashDomain.INDEX_NODE,
    "empty": HashDomain.INDEX_EMPTY,
}
"""The five domain tags of the index, each followed by a 0x00 byte in the hashed message."""

_HASH_BYTES: Final = 32
_KEY_PATH_BITS: Final = 256
_HEADER_BYTES: Final = 4

INDEX_PROOF_VERSION: Final = 1
"""First byte of every binary proof, and ``v`` of the JSON form."""


def _prefix(name: str) -> bytes:
    return INDEX_TAGS[name].encode() + b"\x00"


INDEX_EMPTY_HASH: Final = hashlib.sha256(_prefix("empty")).digest()
"""The hash of every empty subtree, at any depth (32 bytes)."""


def _is_hash(value: Any) -> bool:
    return isinstance(value, (bytes, bytearray)) and len(value) == _HASH_BYTES


def _two(name: str, a: bytes, b: bytes) -> bytes:
    if not (_is_hash(a) and _is_hash(b)):
        raise InvalidInputError("index hash input", [InputIssue("", "expected two 32-byte values")])
    return hashlib.sha256(_prefix(name) + bytes(a) + bytes(b)).digest()


def index_leaf_hash(key_path: bytes, entry_digest: bytes) -> bytes:
    """A leaf's hash from its 32-byte key path and 32-byte entry digest.

    :raises InvalidInputError: an argument is not 32 bytes
    """
    return _two("leaf", key_path, entry_digest)


def index_node_hash(left: bytes, right: bytes) -> bytes:
    """An interior node's hash from its children's 32-byte hashes.

    :raises InvalidInputError: an argument is not 32 bytes
    """
    return _two("node", left, right)


# --- keys and entries ---------------------------------------------------------------------


def parse_index_key(value: Any) -> dict[str, str]:
    """Validates an index key: ``{kind: "lineage", lineageId}`` or ``{kind: "residual", lineageId,
    residualId}``, identifiers as in docs/sealing.md, no other member.

    :raises InvalidInputError: naming the bad member
    """

    def fail(path: str, message: str) -> InvalidInputError:
        return InvalidInputError("index key", [InputIssue(path, message)])

    if type(value) is not dict:
        raise fail("", "expected an object")
    kind = value.get("kind")
    members = {"lineage": {"kind", "lineageId"}, "residual": {"kind", "lineageId", "residualId"}}.get(
        kind if type(kind) is str else ""
    )
    if members is None:
        raise fail("kind", 'expected "lineage" or "residual"')
    for extra in sorted(set(value) - members):
        raise fail(extra, "unknown member")
    for name in sorted(members - {"kind"}):
        if not is_identifier(value.get(name)):
            raise fail(name, "expected an identifier")
    return {name: value[name] for name in ("kind", "lineageId", "residualId") if name in value}


def _check_value(kind: str, value: Any) -> None:
    def fail(path: str, message: str) -> InvalidInputError:
        return InvalidInputError("index entry", [InputIssue(f"value.{path}" if path else "value", message)])

    if type(value) is not dict:
        raise fail("", "expected an object")
    if kind == "lineage":
        members = {"treeSize", "rootHash", "headRecordHash", "generationEpoch", "writerPolicyDigest"}
    else:
        members = {"seq", "recordHash"}
    for name in sorted(set(value) ^ members):
        raise fail(name, "unknown member" if name in value else "missing")
    if kind == "lineage":
        size = value["treeSize"]
        if type(size) is not int or not 1 <= size <= MAX_SAFE_INTEGER:
            raise fail("treeSize", "expected an integer from 1 to 2^53 - 1")
        for name in ("rootHash", "headRecordHash"):
            if not is_hex_digest(value[name]):
                raise fail(name, "expected 64 lowercase hex characters (SHA-256)")
        if not is_safe_int(value["generationEpoch"]):
            raise fail("generationEpoch", "expected a non-negative integer")
        if value["writerPolicyDigest"] is not None and not is_hex_digest(value["writerPolicyDigest"]):
            raise fail("writerPolicyDigest", "expected 64 lowercase hex characters or null")
    else:
        if not is_safe_int(value["seq"]):
            raise fail("seq", "expected a non-negative integer")
        if not is_hex_digest(value["recordHash"]):
            raise fail("recordHash", "expected 64 lowercase hex characters (SHA-256)")


def parse_index_entry(value: Any) -> dict[str, Any]:
    """Validates an index entry: its key's members plus ``value`` (a lineage's tree head
    ``{treeSize, rootHash, headRecordHash, generationEpoch, writerPolicyDigest}`` or a residual's
    ``{seq, recordHash}``), strict at every level (docs/verifiable-index.md, "Entries").

    :raises InvalidInputError: naming the bad member
    """
    if type(value) is not dict:
        raise InvalidInputError("index entry", [InputIssue("", "expected an object")])
    key = parse_index_key({k: v for k, v in value.items() if k != "value"})
    if "value" not in value:
        raise InvalidInputError("index entry", [InputIssue("value", "missing")])
    _check_value(key["kind"], value["value"])
    return {**key, "value": dict(value["value"])}


def index_entry_key(entry: Mapping[str, Any]) -> dict[str, str]:
    """The key an entry is stored under (its members without ``value``)."""
    return parse_index_key({k: v for k, v in entry.items() if k != "value"})


def _key_object(key: Mapping[str, Any]) -> dict[str, Any]:
    return {"v": 1, **key}


RESIDUAL_SHARED_PATH_BITS: Final = 16
"""Leading bits a residual id's key path takes from its lineage's key path, so that a write's two
keys share their tiles down to this depth (docs/verifiable-index.md, "Keys")."""


def _key_hash(key: Mapping[str, Any]) -> bytes:
    return hashlib.sha256(_prefix("key") + canonical_json(_key_object(key)).encode()).digest()


def index_key_path(key: Mapping[str, Any]) -> bytes:
    """A key's 32-byte path; bit 0 (the most significant bit of byte 0) picks the root's child,
    0 left, 1 right (docs/verifiable-index.md, "Keys"). A lineage's path is the hash of its key
    object; a residual id's path is bits 0 … P − 1 of its lineage's path, then bits P … 255 of the
    hash of its own key object (P = ``RESIDUAL_SHARED_PATH_BITS``).

    :raises InvalidInputError: not an index key
    """
    parsed = parse_index_key(dict(key))
    own = _key_hash(parsed)
    if parsed["kind"] == "lineage":
        return own
    lineage = _key_hash({"kind": "lineage", "lineageId": parsed["lineageId"]})
    keep = (1 << 256) - (1 << (256 - RESIDUAL_SHARED_PATH_BITS))  # the first P bits, most significant first
    path = (int.from_bytes(lineage, "big") & keep) | (int.from_bytes(own, "big") & ~keep)
    return path.to_bytes(_HASH_BYTES, "big")


def index_entry_digest(entry: Mapping[str, Any]) -> bytes:
    """The 32-byte digest a leaf commits to, over the entry's key members and value.

    :raises InvalidInputError: not an index entry
    """
    parsed = parse_index_entry(dict(entry))
    message = canonical_json({**_key_object(index_entry_key(parsed)), "value": parsed["value"]})
    return hashlib.sha256(_prefix("entry") + message.encode()).digest()


def _bit(path: bytes, depth: int) -> int:
    return (path[depth >> 3] >> (7 - (depth & 7))) & 1


def index_root(entries: Iterable[Mapping[str, Any]]) -> bytes:
    """The root of the index holding exactly ``entries`` (one per key), for an auditor who holds
    the whole map: empty subtrees hash to :data:`INDEX_EMPTY_HASH`, a one-leaf subtree is its leaf.

    :raises InvalidInputError: a malformed entry, or two entries under one key
    """
    leaves: dict[bytes, bytes] = {}
    for i, entry in enumerate(entries):
        path = index_key_path(index_entry_key(entry))
        if path in leaves:
            raise InvalidInputError("index entries", [InputIssue(str(i), "a second entry under the same key")])
        leaves[path] = index_leaf_hash(path, index_entry_digest(entry))
    ordered = sorted(leaves)

    def subtree(lo: int, hi: int, depth: int) -> bytes:
        if hi == lo:
            return INDEX_EMPTY_HASH
        if hi - lo == 1:
            return leaves[ordered[lo]]
        split = next((i for i in range(lo, hi) if _bit(ordered[i], depth) == 1), hi)
        return index_node_hash(subtree(lo, split, depth + 1), subtree(split, hi, depth + 1))

    return subtree(0, len(ordered), 0)


# --- proofs ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class IndexProof:
    """A proof about one key (docs/verifiable-index.md, "Proofs").

    ``siblings[i]`` is the 32-byte hash of the sibling at depth ``i + 1`` (top-down), ``None`` for
    an empty subtree. A ``presence`` path ends at the key's own leaf; an ``absence`` path ends at an
    empty subtree (``leaf`` is ``None``) or at another key's leaf ``(key path, entry digest)``
    that shares the first ``len(siblings)`` bits with the key's path.
    """

    kind: Literal["presence", "absence"]
    siblings: tuple[bytes | None, ...]
    leaf: tuple[bytes, bytes] | None


def _well_formed(proof: IndexProof) -> IndexProof:
    if proof.kind not in ("presence", "absence"):
        raise IndexProofFormatError("kind", "expected presence or absence")
    if len(proof.siblings) > _KEY_PATH_BITS:
        raise IndexProofFormatError("depth", f"depth {len(proof.siblings)} is beyond {_KEY_PATH_BITS}")
    for i, sibling in enumerate(proof.siblings):
        if sibling is None:
            continue
        if not _is_hash(sibling):
            raise IndexProofFormatError(f"siblings.{i}", "not 32 bytes")
        # One encoding per proof: an empty sibling is spelled as absent, never as the empty hash.
        if sibling == INDEX_EMPTY_HASH:
            raise IndexProofFormatError(f"siblings.{i}", "the empty-subtree hash, spelled out")
    if proof.kind == "presence" and proof.leaf is not None:
        raise IndexProofFormatError("leaf", "a proof of presence carries no other leaf")
    if proof.leaf is not None and not (_is_hash(proof.leaf[0]) and _is_hash(proof.leaf[1])):
        raise IndexProofFormatError("leaf", "key path and entry digest must be 32 bytes each")
    return proof


def encode_index_proof(proof: IndexProof) -> bytes:
    """The binary layout: ``u8 version (1) | u8 kind (0 presence, 1 absence at an empty subtree,
    2 absence at another leaf) | u16 big-endian depth d | ceil(d/8) bytes bitmap (bit i, most
    significant first, set for a non-empty sibling) | 32 bytes per non-empty sibling | kind 2:
    key path and entry digest of the other leaf`` (docs/verifiable-index.md, "Binary layout").

    :raises IndexProofFormatError: a proof with no encoding
    """
    _well_formed(proof)
    depth = len(proof.siblings)
    bitmap = bytearray((depth + 7) // 8)
    hashes = b""
    for i, sibling in enumerate(proof.siblings):
        if sibling is not None:
            bitmap[i >> 3] |= 0x80 >> (i & 7)
            hashes += bytes(sibling)
    kind = 0 if proof.kind == "presence" else (2 if proof.leaf else 1)
    tail = bytes(proof.leaf[0]) + bytes(proof.leaf[1]) if proof.leaf else b""
    return bytes([INDEX_PROOF_VERSION, kind, depth >> 8, depth & 0xFF]) + bytes(bitmap) + hashes + tail


def decode_index_proof(data: bytes) -> IndexProof:
    """Reads the binary layout strictly (one encoding per proof: no set padding bit, no trailing
    byte, no spelled-out empty sibling).

    :raises IndexProofFormatError: naming the part that is wrong
    """
    if not isinstance(data, (bytes, bytearray)):
        raise IndexProofFormatError("", "expected bytes")
    raw = bytes(data)
    if len(raw) < _HEADER_BYTES:
        raise IndexProofFormatError("", f"{len(raw)} bytes, fewer than the 4-byte header")
    if raw[0] != INDEX_PROOF_VERSION:
        raise IndexProofFormatError("version", f"unknown version {raw[0]}")
    if raw[1] > 2:
        raise IndexProofFormatError("kind", f"unknown kind {raw[1]}")
    depth = int.from_bytes(raw[2:4], "big")
    if depth > _KEY_PATH_BITS:
        raise IndexProofFormatError("depth", f"depth {depth} is beyond {_KEY_PATH_BITS}")
    bitmap_bytes = (depth + 7) // 8
    if len(raw) < _HEADER_BYTES + bitmap_bytes:
        raise IndexProofFormatError("bitmap", "truncated")

    def is_set(i: int) -> bool:
        return raw[_HEADER_BYTES + (i >> 3)] & (0x80 >> (i & 7)) != 0

    for i in range(depth, bitmap_bytes * 8):
        if is_set(i):
            raise IndexProofFormatError("bitmap", f"padding bit {i} is set")
    at = _HEADER_BYTES + bitmap_bytes

    def take(what: str) -> bytes:
        nonlocal at
        if len(raw) < at + _HASH_BYTES:
            raise IndexProofFormatError(what, "truncated")
        at += _HASH_BYTES
        return raw[at - _HASH_BYTES : at]

    siblings = tuple(take(f"siblings.{i}") if is_set(i) else None for i in range(depth))
    leaf = (take("leaf.keyPath"), take("leaf.entryDigest")) if raw[1] == 2 else None
    if at != len(raw):
        raise IndexProofFormatError("", f"{len(raw) - at} bytes after the proof")
    return _well_formed(IndexProof("presence" if raw[1] == 0 else "absence", siblings, leaf))


_HEX: Final = re.compile(r"[0-9a-f]{64}")


def index_proof_from_json(value: Any) -> IndexProof:
    """Reads the JSON form ``{v: 1, kind, siblings: [hex | null, ...], leaf: {keyPath, entryDigest}
    | null}`` (lowercase hex), strictly, with the rules of the binary layout.

    :raises IndexProofFormatError: naming the bad member
    """

    def is_hex(h: Any) -> bool:
        return type(h) is str and _HEX.fullmatch(h) is not None

    if type(value) is not dict:
        raise IndexProofFormatError("", "expected an object")
    for name in sorted(set(value) ^ {"v", "kind", "siblings", "leaf"}):
        raise IndexProofFormatError(name, "unknown member" if name in value else "missing")
    if type(value["v"]) is not int or value["v"] != INDEX_PROOF_VERSION:
        raise IndexProofFormatError("v", f"expected {INDEX_PROOF_VERSION}")
    kind = value["kind"]
    if kind not in ("presence", "absence") or type(kind) is not str:
        raise IndexProofFormatError("kind", 'expected "presence" or "absence"')
    siblings = value["siblings"]
    if type(siblings) is not list or len(siblings) > _KEY_PATH_BITS:
        raise IndexProofFormatError("siblings", f"expected an array of at most {_KEY_PATH_BITS} items")
    for i, s in enumerate(siblings):
        if s is not None and not is_hex(s):
            raise IndexProofFormatError(f"siblings.{i}", "expected 64 lowercase hex characters or null")
    leaf = value["leaf"]
    pair: tuple[bytes, bytes] | None = None
    if leaf is not None:
        if type(leaf) is not dict or set(leaf) != {"keyPath", "entryDigest"}:
            raise IndexProofFormatError("leaf", "expected {keyPath, entryDigest} or null")
        for name in ("keyPath", "entryDigest"):
            if not is_hex(leaf[name]):
                raise IndexProofFormatError(f"leaf.{name}", "expected 64 lowercase hex characters")
        pair = (bytes.fromhex(leaf["keyPath"]), bytes.fromhex(leaf["entryDigest"]))
    sibs = tuple(None if s is None else bytes.fromhex(s) for s in siblings)
    return _well_formed(IndexProof("presence" if kind == "presence" else "absence", sibs, pair))


def index_proof_to_json(proof: IndexProof) -> dict[str, Any]:
    """The JSON form of a proof (the same content as the binary layout)."""
    _well_formed(proof)
    return {
        "v": INDEX_PROOF_VERSION,
        "kind": proof.kind,
        "siblings": [None if s is None else s.hex() for s in proof.siblings],
        "leaf": None if proof.leaf is None else {"keyPath": proof.leaf[0].hex(), "entryDigest": proof.leaf[1].hex()},
    }


@dataclass(frozen=True)
class IndexProofFinding:
    """Why a proof does not hold (docs/verifiable-index.md, "Verifying a proof"): ``code`` is
    ``MALFORMED`` (neither form, or a root not 32 bytes), ``WRONG_KIND`` (absence offered for
    presence or back, or an absence "shown" by the key's own leaf), ``NOT_ON_PATH`` (the other leaf
    leaves the key's path) or ``ROOT_MISMATCH`` (the path does not hash to the root)."""

    code: Literal["MALFORMED", "WRONG_KIND", "NOT_ON_PATH", "ROOT_MISMATCH"]
    reason: str


def _open(proof: bytes | Mapping[str, Any] | IndexProof) -> IndexProof | IndexProofFinding:
    try:
        if isinstance(proof, IndexProof):
            return _well_formed(proof)
        if isinstance(proof, (bytes, bytearray)):
            return decode_index_proof(proof)
        return index_proof_from_json(proof if type(proof) is dict else dict(proof))
    except (InvalidInputError, TypeError, ValueError) as error:
        return IndexProofFinding("MALFORMED", str(error))


def _fold(path: bytes, terminal: bytes, siblings: Sequence[bytes | None]) -> bytes:
    h = terminal
    for i in range(len(siblings) - 1, -1, -1):
        sibling = siblings[i] or INDEX_EMPTY_HASH
        h = index_node_hash(h, sibling) if _bit(path, i) == 0 else index_node_hash(sibling, h)
    return h


def check_index_presence(
    root: bytes, entry: Mapping[str, Any], proof: bytes | Mapping[str, Any] | IndexProof
) -> IndexProofFinding | None:
    """``None`` when ``entry`` is in the index of ``root``: its leaf, folded up with the proof's
    siblings along its key's path, gives ``root`` (32 bytes, from a verified checkpoint).

    ``proof`` is the binary layout, the JSON form (a parsed object) or an :class:`IndexProof`.
    Never raises for a bad proof or root; a malformed ``entry`` is the caller's error.

    :raises InvalidInputError: ``entry`` is not an index entry
    """
    digest = index_entry_digest(entry)
    path = index_key_path(index_entry_key(entry))
    if not _is_hash(root):
        return IndexProofFinding("MALFORMED", "the index root is not 32 bytes")
    opened = _open(proof)
    if isinstance(opened, IndexProofFinding):
        return opened
    if opened.kind != "presence":
        return IndexProofFinding("WRONG_KIND", "a proof of absence, not of presence")
    if _fold(path, index_leaf_hash(path, digest), opened.siblings) != bytes(root):
        return IndexProofFinding(
            "ROOT_MISMATCH", "the entry and its path do not hash to the index root (another value, or not in the index)"
        )
    return None


def check_index_absence(
    root: bytes, key: Mapping[str, Any], proof: bytes | Mapping[str, Any] | IndexProof
) -> IndexProofFinding | None:
    """``None`` when ``key`` has no entry in the index of ``root``: its path ends at an empty
    subtree or at another key's leaf on that path, and hashes to ``root``.

    Never raises for a bad proof or root; a malformed ``key`` is the caller's error.

    :raises InvalidInputError: ``key`` is not an index key
    """
    path = index_key_path(key)
    if not _is_hash(root):
        return IndexProofFinding("MALFORMED", "the index root is not 32 bytes")
    opened = _open(proof)
    if isinstance(opened, IndexProofFinding):
        return opened
    if opened.kind != "absence":
        return IndexProofFinding("WRONG_KIND", "a proof of presence, not of absence")
    depth = len(opened.siblings)
    terminal = INDEX_EMPTY_HASH
    if opened.leaf is not None:
        other, digest = opened.leaf
        if other == path:
            return IndexProofFinding("WRONG_KIND", "the leaf that ends the path is the key's own: it is present")
        for i in range(depth):
            if _bit(other, i) != _bit(path, i):
                return IndexProofFinding(
                    "NOT_ON_PATH", f"the other leaf leaves the key's path at depth {i}, above depth {depth}"
                )
        terminal = index_leaf_hash(other, digest)
    if _fold(path, terminal, opened.siblings) != bytes(root):
        return IndexProofFinding("ROOT_MISMATCH", "the path does not hash to the index root")
    return None


# --- tiles: how the node store keeps the index (docs/verifiable-index.md, "Tiles") ---------------

INDEX_TILE_VERSION: Final = 1
"""First byte of every tile."""

_REFERENCE: Final = 0x00
_EMPTY: Final = 0x01
_LEAF: Final = 0x02
_INTERIOR: Final = 0x03
_MAX_TILE_DEPTH: Final = _KEY_PATH_BITS + 1


@dataclass(frozen=True)
class IndexTile:
    """A decoded tile: ``root`` is the hash its root node has (compare it with the address the tile
    was read under), ``nodes`` every node it spells out under its own hash: ``{"kind":
    "interior", "left", "right"}`` (32 bytes each) or ``{"kind": "leaf", "entry"}``."""

    root: bytes
    nodes: dict[bytes, dict[str, Any]]


def decode_index_tile(raw: bytes) -> IndexTile:
    """Decodes a tile and hashes every node in it, bottom-up (docs/verifiable-index.md, "Tiles")::

        tile = 0x01 || node
        node = 0x00 || hash(32) | 0x01 | 0x02 || n(2) || JCS(entry) | 0x03 || node || node

    Strict, as the TypeScript decoder: refused are another version, a root that is a reference
    or empty, a reference spelled as the empty hash, an entry that is not a valid index entry in
    its RFC 8785 form, trailing or missing bytes, and a tile deeper than a key path.

    :raises InvalidInputError: naming the offset of what is wrong
    """
    data = bytes(raw)
    nodes: dict[bytes, dict[str, Any]] = {}

    def fail(offset: int, message: str) -> InvalidInputError:
        return InvalidInputError("index tile", [InputIssue(str(offset), message)])

    if len(data) < 2 or data[0] != INDEX_TILE_VERSION:
        raise fail(0, f"expected version {INDEX_TILE_VERSION}")
    at = 1

    def read(depth: int) -> bytes:
        nonlocal at
        if depth > _MAX_TILE_DEPTH:
            raise fail(at, "deeper than a key path")
        if at >= len(data):
            raise fail(at, "the tile is cut short")
        start, tag = at, data[at]
        at += 1
        if tag == _REFERENCE:
            if depth == 0:
                raise fail(start, "a tile root is a leaf or an interior node, not a reference")
            if at + _HASH_BYTES > len(data):
                raise fail(start, "a reference is 32 bytes")
            reference = data[at : at + _HASH_BYTES]
            at += _HASH_BYTES
            if reference == INDEX_EMPTY_HASH:
                raise fail(start, "the empty subtree is 0x01, not a reference")
            return reference
        if tag == _EMPTY:
            if depth == 0:
                raise fail(start, "a tile root is a leaf or an interior node, not empty")
            return INDEX_EMPTY_HASH
        if tag == _LEAF:
            if at + 2 > len(data):
                raise fail(start, "a leaf has a 2-byte length")
            length = int.from_bytes(data[at : at + 2], "big")
            at += 2
            if at + length > len(data):
                raise fail(start, "the leaf is cut short")
            text = data[at : at + length]
            at += length
            try:
                entry = parse_index_entry(parse_strict_json(text, "index tile leaf"))
                canonical = canonical_json(entry).encode()
            except (InvalidInputError, ValueError, TypeError) as error:
                raise fail(start, f"the leaf is no index entry ({error})") from error
            if canonical != text:
                raise fail(start, "the leaf entry is not in its RFC 8785 form")
            leaf = index_leaf_hash(index_key_path(index_entry_key(entry)), index_entry_digest(entry))
            nodes[leaf] = {"kind": "leaf", "entry": entry}
            return leaf
        if tag == _INTERIOR:
            left = read(depth + 1)
            right = read(depth + 1)
            node = index_node_hash(left, right)
            nodes[node] = {"kind": "interior", "left": left, "right": right}
            return node
        raise fail(start, f"unknown node tag {tag}")

    root = read(0)
    if at != len(data):
        raise fail(at, "bytes after the root node")
    return IndexTile(root, nodes)


def _child(h: bytes) -> bytes:
    """A child of a one-level tile: the empty subtree, or a reference."""
    return bytes([_EMPTY]) if h == INDEX_EMPTY_HASH else bytes([_REFERENCE]) + bytes(h)


def encode_index_node_tile(node: Mapping[str, Any]) -> bytes:
    """The one-level tile of a single node: a leaf (``{"kind": "leaf", "entry"}``), or an interior
    node (``{"kind": "interior", "left", "right"}``) whose non-empty children are references. An
    index item of the one-node form (before tiles) reads as this.

    :raises InvalidInputError: not a node (a bad entry, a child that is not 32 bytes)
    """
    if node.get("kind") == "leaf":
        text = canonical_json(parse_index_entry(node.get("entry"))).encode()
        if len(text) > 0xFFFF:
            raise InvalidInputError("index tile", [InputIssue("leaf", "an entry is at most 65,535 bytes")])
        return bytes([INDEX_TILE_VERSION, _LEAF]) + len(text).to_bytes(2, "big") + text
    if node.get("kind") == "interior" and _is_hash(node.get("left")) and _is_hash(node.get("right")):
        return bytes([INDEX_TILE_VERSION, _INTERIOR]) + _child(node["left"]) + _child(node["right"])
    raise InvalidInputError("index tile", [InputIssue("", "expected a leaf or an interior node")])
