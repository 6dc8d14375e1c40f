"""The lineage table's items as a client reads them (docs/pipeline.md, "Data layout"): the one
module of the package that knows the table's keys and attributes.

Items are DynamoDB's low-level ``AttributeValue`` maps (``{"seq": {"N": "3"}, ...}``, what boto3's
client returns), so this module needs no AWS library. The table is not trusted (docs/sealing.md,
threat model): an attribute of another type than its field needs reads as absent, never coerced;
numbers read as JavaScript's ``Number`` reads them (a seq that is not a safe integer ≥ 0 is no
seq); JSON that does not parse reads as the field's fallback. A record item holds the record
without its manifest, which is stored once, gzipped, in the ``MANIFEST#<lineageId>#<manifestDigest>`` item
(docs/sealing.md, "Stored items"): the reader puts it back before anything is verified, and the
verifier recomputes the digest, so an edited, missing or undecodable manifest item fails the
record's hash check (``HASH_MISMATCH``), never another answer. Every decoder is checked against
``test/vectors/item-layout.json``, which the TypeScript codec writes, so a layout change breaks
both packages' tests at once.
"""

from __future__ import annotations

import copy
import math
import re
import zlib
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any, Final

from ._checks import is_identifier, is_safe_int
from .canonical import canonical_json
from .errors import InvalidInputError, ManifestReadBoundError, ResealError
from .index import decode_index_tile, encode_index_node_tile
from .record_batch import RECORD_BATCH_SALT_BYTES
from .strict_json import parse_strict_json
from .triage import manifest_digest

__all__ = [
    "DEPLOYMENT_HEAD_SK",
    "DEPLOYMENT_LOG_PK",
    "INDEX_NODE_PREFIX",
    "INDEX_NODE_SK",
    "DeploymentLogTableReader",
    "StoredDeploymentHead",
    "deployment_head_of",
    "deployment_leaf_sk",
    "index_node_pk",
    "index_tile_of",
    "leaf_index_root_of",
    "leaf_node_of",
    "MAX_MANIFEST_BYTES",
    "MAX_KEPT_MANIFEST_BYTES",
    "MAX_MANIFEST_BYTES_PER_READ",
    "MAX_RECORD_INFLATION",
    "NO_MANIFEST",
    "Item",
    "LineageKeys",
    "LineageTableReader",
    "StoredLogHead",
    "conflict_of",
    "head_key_mac_of",
    "head_mac_of",
    "location_of",
    "log_head_of",
    "manifest_of",
    "node_seq",
    "nodes_of",
    "record_of",
    "mac_batch_of",
    "record_seq_of",
    "rejection_of",
    "shared_manifest_digest_of",
    "triage_report_of",
    "with_shared_manifest",
]

_EPOCH: Final = datetime(1970, 1, 1, tzinfo=timezone.utc)
_ISO_SORTABLE_MIN_MS: Final = -62_135_596_800_000
"""0001-01-01T00:00:00.000Z, ms: the earliest time Python's ``datetime`` holds (a four-digit year)."""
_ISO_SORTABLE_MAX_MS: Final = 253_402_300_799_999
"""9999-12-31T23:59:59.999Z, ms: the latest time whose ISO string has a four-digit year."""

Item = Mapping[str, Any]
"""One DynamoDB item in ``AttributeValue`` form."""

_TYPES: Final = frozenset(("S", "N", "B", "SS", "NS", "BS", "M", "L", "NULL", "BOOL"))
_ABSENT: Final = object()

MAX_MANIFEST_BYTES: Final = 4 * 1024 * 1024
"""Most bytes a stored manifest may inflate to (the TypeScript codec's bound): a manifest item holds
at most 400 KB compressed, and this bounds what a planted one (a "zip bomb") makes a reader allocate."""

MAX_MANIFEST_BYTES_PER_READ: Final = 64 * 1024 * 1024
"""Most bytes the manifests of one read (:meth:`LineageTableReader.with_manifests`) inflate to together
(the TypeScript codec's bound): N planted items would otherwise cost N × :data:`MAX_MANIFEST_BYTES`."""

MAX_KEPT_MANIFEST_BYTES: Final = 64 * 1024
"""Largest manifest (canonical JSON, UTF-8 bytes: keys may be any Unicode, up to four bytes a
character) a reader keeps (``LineageTableReader(manifest_cache=...)``):
bounds its memory, 4 MB for a client's 64."""

MAX_RECORD_INFLATION: Final = 16
"""Most a stored record may inflate to, as a multiple of its compressed bytes (the TypeScript codec's
bound): the writer compresses a record only within it, so an honest item always reads, and a planted
one makes a reader allocate at most this multiple of what it read."""

_FIRST_CHUNK: Final = 64
"""Compressed bytes first fed to each gzip member; doubled while the member goes on."""


class _NoManifest:
    def __repr__(self) -> str:
        return "NO_MANIFEST"


NO_MANIFEST: Final = _NoManifest()
"""What :func:`manifest_of` returns for an item without a ``manifest`` attribute."""


class LineageKeys:
    """The table's keys (string ``pk``, ``sk``), as adapters/lineage-keys.ts builds them."""

    HEAD: Final = "HEAD"
    RECORD_PREFIX: Final = "RECORD#"
    CONFLICT_PREFIX: Final = "CONFLICT#"
    MANIFEST_PREFIX: Final = "MANIFEST#"
    MANIFEST_SK: Final = "MANIFEST"

    @staticmethod
    def lineage(lineage_id: str) -> str:
        return f"LINEAGE#{lineage_id}"

    @staticmethod
    def record(seq: int) -> str:
        """``RECORD#`` and the seq in 16 digits, so key order is seq order."""
        return f"RECORD#{seq:016d}"

    @staticmethod
    def residual(residual_id: str) -> str:
        return f"RESIDUAL#{residual_id}"

    @staticmethod
    def conflicts_of(residual_id: str) -> str:
        return f"CONFLICT#{residual_id}#"

    @staticmethod
    def rejection(lineage_id: str) -> str:
        return f"REJECTION#{lineage_id}"

    @staticmethod
    def rejection_sk_floor(since_ms: float) -> str | None:
        """The lowest rejection sort key (``<ISO time>#<messageId>``, JavaScript's
        ``toISOString``) of a time at or after ``since_ms``: ``sk >= floor`` leaves out exactly the
        rejections filed earlier. ``None`` when no bound can be written (``since_ms`` not finite,
        or before 0001-01-01 or after 9999-12-31, past which the ISO strings change format and no
        longer sort as their times do): read the whole partition then."""
        if not math.isfinite(since_ms):
            return None
        ms = math.ceil(since_ms)
        if not _ISO_SORTABLE_MIN_MS <= ms <= _ISO_SORTABLE_MAX_MS:
            return None
        at = _EPOCH + timedelta(milliseconds=ms)
        return (
            f"{at.year:04d}-{at.month:02d}-{at.day:02d}T{at.hour:02d}:{at.minute:02d}:{at.second:02d}"
            f".{at.microsecond // 1000:03d}Z"
        )

    @staticmethod
    def triage(lineage_id: str) -> str:
        return f"TRIAGE#{lineage_id}"

    @staticmethod
    def manifest(lineage_id: str, digest: str) -> str:
        """The partition key of a lineage's content-addressed manifest item a header's
        ``manifestDigest`` names: ``MANIFEST#<lineageId>#<digest>`` (keyed by lineage, so a
        tenant's manifests are its own partitions: docs/authorship.md, "Tenancy", "Reads")."""
        return f"MANIFEST#{lineage_id}#{digest}"

    @staticmethod
    def shared_manifest(digest: str) -> str:
        """The earlier layout's manifest key, ``MANIFEST#<digest>``, shared across lineages: read
        for records sealed before manifests were keyed by lineage."""
        return f"MANIFEST#{digest}"

    @staticmethod
    def manifest_digest_of(pk: str) -> str:
        """The digest a manifest item's partition key ends with (either layout)."""
        return pk[pk.rfind("#") + 1 :]


def node_seq(level: int, index: int) -> int:
    """The seq of the record item that stores tree node (level, index): the node completed by
    appending that record, ``(index + 1) · 2^level − 1``; its hash is ``nodes[level]`` there."""
    return int((index + 1) * 2**level - 1)


def _js_number(text: str) -> float | int | None:
    """``Number(text)`` for a DynamoDB number string: an int when integral and safe, else a float."""
    if re.fullmatch(r"\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*", text) is None:
        return None
    value = float(text)
    if math.isfinite(value) and value.is_integer() and abs(value) <= 2**53 - 1:
        return int(value)
    return value


def _attribute(item: Item | None, name: str) -> Any:
    """The native value of attribute ``name``; ``_ABSENT`` when missing or of no known type."""
    if item is None or name not in item:
        return _ABSENT
    value = item[name]
    if not isinstance(value, Mapping) or len(value) != 1:
        return _ABSENT
    ((kind, raw),) = value.items()
    if kind not in _TYPES:
        return _ABSENT
    if kind == "S":
        return raw if isinstance(raw, str) else _ABSENT
    if kind == "N":
        number = _js_number(raw) if isinstance(raw, str) else None
        return _ABSENT if number is None else number
    if kind == "NULL":
        return None
    return (kind, raw)  # present, but of a type no field of the layout has


def read_string(item: Item | None, name: str) -> str | None:
    """String attribute ``name``, or ``None`` when absent or of another type."""
    value = _attribute(item, name)
    return value if isinstance(value, str) else None


def read_binary(item: Item | None, name: str) -> bytes | None:
    """Binary attribute ``name`` (bytes, as boto3's client returns it), or ``None`` when absent or of another type."""
    value = _attribute(item, name)
    if isinstance(value, tuple) and value[0] == "B" and isinstance(value[1], (bytes, bytearray, memoryview)):
        return bytes(value[1])
    return None


def read_number(item: Item | None, name: str) -> float | int | None:
    """Number attribute ``name``, or ``None`` when absent or of another type."""
    value = _attribute(item, name)
    return value if type(value) in (int, float) else None


def read_seq(item: Item | None, name: str) -> int | None:
    """Number attribute ``name`` when it is a sequence number (a safe integer ≥ 0), else ``None``."""
    value = read_number(item, name)
    return value if isinstance(value, int) and is_safe_int(value) else None


def _parse(text: str) -> Any:
    """The JSON of ``text``; ``_ABSENT`` when it does not parse (strictly: repeated names refused)."""
    try:
        return parse_strict_json(text, "stored JSON")
    except InvalidInputError:
        return _ABSENT


def read_json(item: Item, name: str, fallback: Any) -> Any:
    """The JSON held by string attribute ``name``, or ``fallback`` when absent, of another type or unreadable."""
    text = read_string(item, name)
    if text is None:
        return fallback
    value = _parse(text)
    return fallback if value is _ABSENT else value


def record_of(item: Item) -> Any:
    """The stored record: parsed JSON; the raw text when it does not parse (the verifier refuses
    it); ``None`` when the item has no ``record``, or one that is neither text nor gzip inflating
    within :data:`MAX_RECORD_INFLATION` times its size. Both forms read, as the TypeScript codec
    reads them: text (items written before records were compressed, and records compression does
    not shrink) and gzip (docs/sealing.md, "Stored items"). A batch-MAC'd record gets its
    ``macBatch`` from the item's binary attribute (:func:`mac_batch_of`); a ``macBatch`` inside
    the JSON reads as a place no MAC check accepts (the place is stored one way only)."""
    record = _stored_record_of(item)
    if not isinstance(record, dict):
        return record
    if "macBatch" in record:
        return {**record, "macBatch": {"index": 0, "size": 0, "salt": "", "path": []}}
    place = mac_batch_of(item)
    return record if place is None else {**record, "macBatch": place}


def mac_batch_of(item: Item) -> dict[str, Any] | None:
    """The place a record item's ``macBatch`` attribute stores, unverified (the TypeScript
    ``macBatchOf``): the leaf index and batch size, 4 bytes each big-endian, the 16-byte salt,
    then the path, 32 bytes a hash (hex; a salt or last element cut short reads shorter, so its
    MAC fails). An attribute that is not binary or shorter than 8 bytes reads as index 0 of a
    batch of 0 with no salt; ``None`` without the attribute."""
    if item.get("macBatch") is None:
        return None
    data = read_binary(item, "macBatch")
    if data is None or len(data) < 8:
        return {"index": 0, "size": 0, "salt": "", "path": []}
    head = 8 + RECORD_BATCH_SALT_BYTES
    path = [data[at : at + 32].hex() for at in range(head, len(data), 32)]
    index, size = int.from_bytes(data[0:4], "big"), int.from_bytes(data[4:8], "big")
    return {"index": index, "size": size, "salt": data[8:head].hex(), "path": path}


def _stored_record_of(item: Item) -> Any:
    """The ``record`` attribute, parsed (:func:`record_of` without the batch place)."""
    text = read_string(item, "record")
    if text is None:
        data = read_binary(item, "record")
        if not data:
            return None
        try:
            inflated = _inflate(data, MAX_RECORD_INFLATION * len(data))
        except _PastLimit:
            return None
        if inflated is None:
            return None
        text = inflated.decode("utf-8", errors="replace")
    value = _parse(text)
    return text if value is _ABSENT else value


class _PastLimit(Exception):
    """Raised by :func:`_inflate` when the output would pass its limit."""


def _inflate(data: bytes, limit: int) -> bytes | None:
    """The gzip (RFC 1952) members of ``data`` inflated, as Node's ``gunzipSync`` inflates them
    (members follow one another; zero bytes after a member end the data), or ``None`` when it is not
    gzip or is cut short, never holding more than ``limit + 1`` bytes of output.

    Linear in ``len(data)`` whatever the number of members: each member is fed in chunks that
    double from :data:`_FIRST_CHUNK` bytes, so what zlib copies back as unused input is at most
    twice the member's own length, never the rest of ``data``.

    :raises _PastLimit: when the output passes ``limit`` bytes"""
    out = bytearray()
    view = memoryview(data)
    at = 0
    while True:
        inflater = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
        chunk = _FIRST_CHUNK
        while not inflater.eof:
            if at >= len(view):
                return None  # the member is cut short
            end = min(at + chunk, len(view))
            try:
                out += inflater.decompress(view[at:end], limit + 1 - len(out))
            except zlib.error:
                return None
            if len(out) > limit:
                raise _PastLimit
            at = end - len(inflater.unused_data)
            chunk *= 2
        if at >= len(view) or view[at] == 0:
            return bytes(out)


def manifest_of(item: Item, budget: list[int] | None = None) -> Any:
    """The stored manifest of a manifest item: the parsed JSON; the text when it does not parse;
    ``None`` when the attribute is not binary, not gzip, or inflates past :data:`MAX_MANIFEST_BYTES`
    (either way the verifier refuses the record it is put back into); :data:`NO_MANIFEST` when the
    item has no ``manifest``. ``budget`` (``[bytes left]``, shared by the items of one read) is
    spent by what is inflated.

    :raises ManifestReadBoundError: naming the item's digest when it would take the read's
        manifests past :data:`MAX_MANIFEST_BYTES_PER_READ`"""
    if _attribute(item, "manifest") is _ABSENT:
        return NO_MANIFEST
    data = read_binary(item, "manifest")
    if data is None:
        return None
    left = [MAX_MANIFEST_BYTES_PER_READ] if budget is None else budget
    limit = min(MAX_MANIFEST_BYTES, left[0])
    try:
        if limit < 1:
            raise _PastLimit
        text = _inflate(data, limit)
    except _PastLimit:
        if limit < MAX_MANIFEST_BYTES:
            # Past the read's budget, maybe within the per-item cap: the read stops, whichever it was.
            digest = LineageKeys.manifest_digest_of(read_string(item, "pk") or "")
            raise ManifestReadBoundError(digest, MAX_MANIFEST_BYTES_PER_READ) from None
        return None
    if text is None:
        return None
    left[0] -= len(text)
    decoded = text.decode("utf-8", errors="replace")
    value = _parse(decoded)
    return decoded if value is _ABSENT else value


_HEX_DIGEST: Final = re.compile(r"[0-9a-f]{64}")


def shared_manifest_digest_of(stored: Any) -> str | None:
    """The manifest digest a stored record names when its item carries no manifest of its own (the
    content-addressed layout), else ``None``: a record of the earlier layout, which embeds its
    manifest, or one too malformed to name a well-formed digest (the verifier refuses it as it is)."""
    if not isinstance(stored, dict) or "manifest" in stored:
        return None
    header = stored.get("header")
    digest = header.get("manifestDigest") if isinstance(header, dict) else None
    return digest if type(digest) is str and _HEX_DIGEST.fullmatch(digest) else None


def with_shared_manifest(stored: Any, manifests: Mapping[str, Any]) -> Any:
    """``stored`` with the manifest of its shared item put back, as the record was sealed; unchanged
    when it embeds one, names none, or its manifest item is missing (the record then fails the
    strict record schema: ``HASH_MISMATCH``, never a pass)."""
    digest = shared_manifest_digest_of(stored)
    if digest is None or digest not in manifests:
        return stored
    return {**stored, "manifest": manifests[digest]}


def nodes_of(item: Item) -> list[Any] | None:
    """The tree nodes a record item stores (``nodes[level]``, hex), or ``None`` when unreadable:
    binary, 32 bytes a node (the layout since records were compressed), or a JSON list of hex text
    (items written before), as the TypeScript codec reads them; binary that is not a whole number of
    nodes is unreadable."""
    data = read_binary(item, "nodes")
    if data is not None:
        if len(data) % 32:
            return None
        return [data[at : at + 32].hex() for at in range(0, len(data), 32)]
    nodes = read_json(item, "nodes", None)
    return nodes if isinstance(nodes, list) else None


@dataclass(frozen=True)
class StoredLogHead:
    """A head item, unverified: the head claim (``seq``, ``recordHash``, ...), its header, the
    signed checkpoint note, the frontier and the policy, each ``None`` when unreadable."""

    head: dict[str, Any]
    header: Any
    checkpoint: str | None
    frontier: list[str] | None
    policy: Any


def log_head_of(lineage_id: str, item: Item | None) -> StoredLogHead | None:
    """A head item as a claim; missing fields read as ``-1`` / ``''`` / ``0`` (``None`` without an item).
    A small head (docs/sealing.md, "The append's layout") has no ``header``, ``mac`` or ``keyId``:
    they read as ``None`` / ``''``, and :func:`reseal.head_state.claimed_head_state` reads it by its
    attributes."""
    if item is None:
        return None
    epoch = read_number(item, "generationEpoch")
    return StoredLogHead(
        head={
            "lineageId": lineage_id,
            "seq": read_seq(item, "seq") if read_seq(item, "seq") is not None else -1,
            "recordHash": read_string(item, "recordHash") or "",
            "generationEpoch": epoch if epoch is not None else 0,
            "mac": read_string(item, "mac") or "",
            "keyId": read_string(item, "keyId") or "",
        },
        header=read_json(item, "header", None),
        checkpoint=read_string(item, "checkpoint"),
        frontier=frontier_of(item),
        policy=read_json(item, "policy", None),
    )


def frontier_of(item: Item) -> list[str] | None:
    """The stored frontier of a head item, hex, as the TypeScript ``frontierOf`` reads it: binary,
    32 bytes a hash (the small head, docs/sealing.md, "The append's layout"), or a JSON list of
    strings (heads stored before); ``None`` when absent or malformed."""
    data = read_binary(item, "frontier")
    if data is not None:
        return None if len(data) % 32 else [data[at : at + 32].hex() for at in range(0, len(data), 32)]
    frontier = read_json(item, "frontier", None)
    return frontier if isinstance(frontier, list) and all(type(h) is str for h in frontier) else None


def head_mac_of(item: Item) -> Any:
    """A head item's head-state MAC as stored, unverified, as the TypeScript ``headMacOf`` reads it
    (docs/verifiable-log.md, "Stored state"): the ``headMac`` JSON (``keyId``, ``algorithm``,
    ``mac``), with ``heads`` from ``headMacHeads`` when that attribute is there (a batch MAC: hex,
    32 bytes a head, in order; binary that is not a whole number of digests, or not binary, reads
    as ``heads: None``, which never verifies); ``None`` without a readable ``headMac``. A batch's
    list is stored one way only, the binary attribute: a ``heads`` inside the ``headMac`` JSON
    (with or without ``headMacHeads``) reads as ``heads: None`` too, never a second spelling.
    :func:`reseal.head_state.head_mac_message` gives the message it must verify over."""
    stored = read_json(item, "headMac", None)
    if not isinstance(stored, dict):
        return stored
    if "heads" in stored:
        return {**stored, "heads": None}
    if "headMacHeads" not in item:
        return stored
    data = read_binary(item, "headMacHeads")
    heads = None if data is None or len(data) % 32 else [data[at : at + 32].hex() for at in range(0, len(data), 32)]
    return {**stored, "heads": heads}


def head_key_mac_of(item: Item) -> dict[str, bytes] | None:
    """A head item's head-key MAC as stored, unverified, as the TypeScript ``headKeyMacOf`` reads it
    (docs/verifiable-log.md, "Stored state"): ``mac`` from ``headKeyMac`` (binary, 32 bytes) and
    ``keyBlob`` from ``headDataKey`` (binary: the wrapped notice data key a ``kms:Decrypt`` under the
    notice context opens); ``None`` unless both are binary and the MAC is 32 bytes.
    :func:`reseal.head_state.head_key_message` gives the message it must verify over."""
    mac = read_binary(item, "headKeyMac")
    blob = read_binary(item, "headDataKey")
    if mac is None or blob is None or len(mac) != 32 or len(blob) == 0:
        return None
    return {"mac": mac, "keyBlob": blob}


def location_of(item: Item) -> dict[str, Any]:
    """A residual-id marker as ``{lineageId, seq}`` (unverified; a seq that is no seq reads as ``-1``,
    a lineage id that is not an identifier as ``""``: a table writer's text is never quoted as one)."""
    seq = read_seq(item, "seq")
    lineage_id = read_string(item, "lineageId")
    return {"lineageId": lineage_id if is_identifier(lineage_id) else "", "seq": -1 if seq is None else seq}


def _is_str(value: Any) -> bool:
    return type(value) is str


def _list_of(*names: str) -> Any:
    def check(value: Any) -> bool:
        return type(value) is list and all(
            isinstance(entry, dict) and all(_is_str(entry.get(n)) for n in names) for entry in value
        )

    return check


def _stored_head(value: Any) -> bool:
    if value is None:
        return True
    if not isinstance(value, dict):
        return False
    return all(_is_str(value.get(n)) for n in ("lineageId", "recordHash", "mac", "keyId")) and all(
        type(value.get(n)) is int and value[n] >= 0 for n in ("seq", "generationEpoch")
    )


def _read_json_as(item: Item, name: str, fits: Any, fallback: Any, unreadable: list[str]) -> Any:
    """JSON attribute ``name`` when it fits, else ``fallback`` with ``name`` noted as unreadable."""
    if _attribute(item, name) is _ABSENT:
        return fallback
    text = read_string(item, name)
    value = _ABSENT if text is None else _parse(text)
    if value is not _ABSENT and fits(value):
        return value
    unreadable.append(name)
    return fallback


def _number_or_zero(item: Item, name: str) -> float | int:
    value = read_number(item, name)
    return 0 if value is None else value


def _with_unreadable(record: dict[str, Any], unreadable: list[str]) -> dict[str, Any]:
    if unreadable:
        record["unreadable"] = f"unreadable {', '.join(unreadable)}"
    return record


def rejection_of(lineage_id: str, item: Item) -> dict[str, Any]:
    """A rejection item as the ``RejectionRecord`` its signed statement is checked against."""
    unreadable: list[str] = []
    record = {
        "stage": read_string(item, "stage") or "",
        "reason": read_string(item, "reason") or "",
        "lineageId": lineage_id,
        "residualId": read_string(item, "residualId"),
        "messageId": read_string(item, "messageId") or "",
        "verdictDigest": read_string(item, "verdictDigest"),
        "bodyDigest": read_string(item, "bodyDigest") or "",
        "bodyPreview": read_string(item, "bodyPreview") or "",
        "issues": _read_json_as(item, "issues", _list_of("path", "message"), [], unreadable),
        "rejectedVariables": _read_json_as(
            item, "rejectedVariables", _list_of("name", "reason", "detail"), [], unreadable
        ),
        "requestViolations": _read_json_as(
            item, "requestViolations", _list_of("field", "reason", "detail"), [], unreadable
        ),
        "atMs": _number_or_zero(item, "atMs"),
        "requestDigest": read_string(item, "requestDigest"),
        "statement": read_string(item, "statement"),
    }
    return _with_unreadable(record, unreadable)


def conflict_of(lineage_id: str, item: Item) -> dict[str, Any]:
    """A conflict item as the ``ConflictRecord`` its signed statement is checked against."""
    unreadable: list[str] = []
    record = {
        "lineageId": lineage_id,
        "residualId": read_string(item, "residualId") or "",
        "reason": read_string(item, "reason") or "",
        "detail": read_string(item, "detail") or "",
        "attemptedHeader": read_json(item, "attemptedHeader", None),
        "expectedHead": _read_json_as(item, "expectedHead", _stored_head, None, unreadable),
        "observedHead": _read_json_as(item, "observedHead", _stored_head, None, unreadable),
        "atMs": _number_or_zero(item, "atMs"),
        "messageId": read_string(item, "messageId") or "",
        "requestDigest": read_string(item, "requestDigest"),
        "statement": read_string(item, "statement"),
    }
    return _with_unreadable(record, unreadable)


def triage_report_of(item: Item | None) -> Any:
    """A stored triage report as stored (unverified); text that does not parse stays text."""
    text = read_string(item, "report")
    if text is None:
        return None
    value = _parse(text)
    return text if value is _ABSENT else value


def record_seq_of(sort_key: str | None) -> int | None:
    """The seq of a well-formed record sort key (``RECORD#`` and 16 digits), else ``None``."""
    if sort_key is None or re.fullmatch(r"RECORD#[0-9]{16}", sort_key) is None:
        return None
    seq = int(sort_key[len("RECORD#") :])
    return seq if is_safe_int(seq) else None


def _s(text: str) -> dict[str, str]:
    return {"S": text}


class LineageTableReader:
    """The client's reads of the lineage table, over a boto3 DynamoDB client (``boto3.client("dynamodb")``
    or anything with its ``get_item``, ``query`` and ``batch_get_item``); returns what the table
    holds, unverified. Items put once and authenticated by their reader (records, manifest items)
    are read eventually consistent (half the read units), and a key that copy misses is read again
    strongly before it is taken as absent, so no answer changes; everything else is read strongly
    (docs/pipeline.md, "Learning the outcome of a write").

    :param manifest_cache: manifests :meth:`read_record` keeps, at most (default 0: none; the
        TypeScript ``ChainStoreOptions.manifestCache``). A manifest item is content-addressed and a
        record names its digest, so one kept only once it hashes to that digest (and is at most
        :data:`MAX_KEPT_MANIFEST_BYTES` of canonical JSON) is the item's bytes: a client proving one
        write after another reads its agent's manifest item once. :meth:`with_manifests` (walks,
        audits) reads the table as it stands."""

    def __init__(self, client: Any, table_name: str, *, manifest_cache: int = 0) -> None:
        self._client = client
        self._table = table_name
        self._manifest_cache = max(0, manifest_cache)
        # Manifests read_record read that hash to their digest, by item key (least recently used first).
        self._manifests_read: OrderedDict[str, Any] | None = OrderedDict() if self._manifest_cache > 0 else None

    def _get(self, pk: str, sk: str, consistent: bool = True) -> Item | None:
        out = self._client.get_item(TableName=self._table, Key={"pk": _s(pk), "sk": _s(sk)}, ConsistentRead=consistent)
        item = out.get("Item")
        return item if isinstance(item, Mapping) else None

    def _get_written(self, pk: str, sk: str) -> Item | None:
        """An item put once and authenticated by its reader: a stale copy is the item or nothing,
        so it is read eventually consistent and, only when that copy misses it, strongly again."""
        item = self._get(pk, sk, consistent=False)
        return item if item is not None else self._get(pk, sk)

    def _query_all(self, consistent: bool = True, **query: Any) -> list[Item]:
        items: list[Item] = []
        start: Any = None
        while True:
            out = self._client.query(
                TableName=self._table,
                ConsistentRead=consistent,
                **query,
                **({"ExclusiveStartKey": start} if start else {}),
            )
            items.extend(out.get("Items", []))
            start = out.get("LastEvaluatedKey")
            if not start:
                return items

    def log_head(self, lineage_id: str) -> StoredLogHead | None:
        """The head item: the lineage's latest signed checkpoint and its claims."""
        return log_head_of(lineage_id, self._get(LineageKeys.lineage(lineage_id), LineageKeys.HEAD))

    def last_record_seq(self, lineage_id: str) -> int | None:
        """The seq of the last record item, skipping junk keys between the well-formed ones."""
        start: Any = None
        limit = 1
        while True:
            out = self._client.query(
                TableName=self._table,
                KeyConditionExpression="pk = :pk AND sk BETWEEN :first AND :last",
                ExpressionAttributeValues={
                    ":pk": _s(LineageKeys.lineage(lineage_id)),
                    ":first": _s(LineageKeys.record(0)),
                    ":last": _s(LineageKeys.record(2**53 - 1)),
                },
                ProjectionExpression="pk, sk",
                ScanIndexForward=False,
                Limit=limit,
                ConsistentRead=True,
                **({"ExclusiveStartKey": start} if start else {}),
            )
            for item in out.get("Items", []):
                seq = record_seq_of(read_string(item, "sk"))
                if seq is not None:
                    return seq
            start = out.get("LastEvaluatedKey")
            limit = 100
            if not start:
                return None

    def has_record(self, lineage_id: str, seq: int) -> bool:
        """Whether an item is stored at ``seq`` (unverified, unparsed; as :meth:`read_record` reads it)."""
        return self._get_written(LineageKeys.lineage(lineage_id), LineageKeys.record(seq)) is not None

    def read_record(self, lineage_id: str, seq: int) -> Any:
        """The stored record at ``seq`` (see :func:`record_of`) with its shared manifest put back
        (:meth:`with_manifests`), or ``None`` when there is no item."""
        item = self._get_written(LineageKeys.lineage(lineage_id), LineageKeys.record(seq))
        return None if item is None else self._with_manifests(lineage_id, [record_of(item)], kept=True)[0]

    def with_manifests(self, lineage_id: str, stored: Sequence[Any]) -> list[Any]:
        """``stored`` records of ``lineage_id`` with the manifests of their
        ``MANIFEST#<lineageId>#<manifestDigest>`` items put back (:func:`with_shared_manifest`), read
        in BatchGetItems of at most 100 keys, eventually consistent first (content-addressed: a
        stale copy is the item or nothing) and strongly again for a digest missed; a digest not
        found there is read once more under the earlier layout's ``MANIFEST#<manifestDigest>``. A missing or undecodable manifest item
        leaves a record the verifier refuses (``HASH_MISMATCH``).

        :raises ManifestReadBoundError: when their manifests inflate past
            :data:`MAX_MANIFEST_BYTES_PER_READ` together"""
        return self._with_manifests(lineage_id, stored, kept=False)

    def _with_manifests(self, lineage_id: str, stored: Sequence[Any], *, kept: bool) -> list[Any]:
        """:meth:`with_manifests`, taking the manifests kept (``kept``, when the reader keeps any)
        before reading, and keeping those read that hash to their digest."""
        wanted = {d for d in map(shared_manifest_digest_of, stored) if d is not None}
        manifests: dict[str, Any] = {}
        cache = self._manifests_read if kept else None
        if cache is not None:
            for digest in wanted:
                pk = LineageKeys.manifest(lineage_id, digest)
                if pk in cache:
                    cache.move_to_end(pk)
                    manifests[digest] = copy.deepcopy(cache[pk])
            if len(manifests) == len(wanted):
                return [with_shared_manifest(record, manifests) for record in stored]
        budget = [MAX_MANIFEST_BYTES_PER_READ]
        keyed = {LineageKeys.manifest(lineage_id, d): d for d in sorted(wanted) if d not in manifests}
        self._read_manifests(keyed, manifests, budget, consistent=False)
        missed = {pk: d for pk, d in keyed.items() if d not in manifests}
        if missed:
            self._read_manifests(missed, manifests, budget)
        if cache is not None:
            for pk, digest in keyed.items():
                self._keep_manifest(cache, pk, digest, manifests.get(digest))
        earlier = sorted(wanted - manifests.keys())
        if earlier:
            self._read_manifests({LineageKeys.shared_manifest(d): d for d in earlier}, manifests, budget)
        return [with_shared_manifest(record, manifests) for record in stored]

    def _keep_manifest(self, cache: OrderedDict[str, Any], pk: str, digest: str, manifest: Any) -> None:
        """Keeps ``manifest`` under ``pk`` when it hashes to ``digest`` and is small enough; the
        least recently used goes past the bound. Nothing is trusted for being kept: the record is
        still checked whole against the digest its header names."""
        if not isinstance(manifest, dict):
            return
        try:
            if len(canonical_json(manifest).encode()) > MAX_KEPT_MANIFEST_BYTES or manifest_digest(manifest) != digest:
                return
        except ResealError:
            return  # not a manifest the schema takes (the record's check refuses it): never kept
        cache[pk] = copy.deepcopy(manifest)
        cache.move_to_end(pk)
        while len(cache) > self._manifest_cache:
            cache.popitem(last=False)

    def _read_manifests(
        self, by_pk: dict[str, str], manifests: dict[str, Any], budget: list[int], consistent: bool = True
    ) -> None:
        """Reads the manifest items ``by_pk`` names (partition key → digest) into ``manifests``."""
        pks = list(by_pk)
        for i in range(0, len(pks), 100):
            keys: list[Any] = [{"pk": _s(pk), "sk": _s(LineageKeys.MANIFEST_SK)} for pk in pks[i : i + 100]]
            while keys:
                out = self._client.batch_get_item(
                    RequestItems={self._table: {"Keys": keys, "ConsistentRead": consistent}}
                )
                for item in out.get("Responses", {}).get(self._table, []):
                    digest = by_pk.get(read_string(item, "pk") or "")
                    if digest is None:
                        continue
                    manifest = manifest_of(item, budget)
                    if manifest is not NO_MANIFEST:
                        manifests[digest] = manifest
                keys = out.get("UnprocessedKeys", {}).get(self._table, {}).get("Keys", [])

    def read_nodes(self, lineage_id: str, refs: Sequence[tuple[int, int]]) -> list[str | None]:
        """The hex hash of each tree node ``(level, index)``, ``None`` where the table lacks it.
        Record items are put once and their nodes hashed into the tree head the reader checks: read
        eventually consistent, and the seqs that copy misses strongly again."""
        seqs = sorted({node_seq(level, index) for level, index in refs})
        by_seq: dict[int, list[Any] | None] = {}
        self._read_node_items(lineage_id, seqs, by_seq, consistent=False)
        missed = [s for s in seqs if s not in by_seq]
        if missed:
            self._read_node_items(lineage_id, missed, by_seq, consistent=True)
        hashes: list[str | None] = []
        for level, index in refs:
            nodes = by_seq.get(node_seq(level, index))
            value = nodes[level] if nodes is not None and level < len(nodes) else None
            hashes.append(value if type(value) is str else None)
        return hashes

    def _read_node_items(
        self, lineage_id: str, seqs: Sequence[int], by_seq: dict[int, list[Any] | None], *, consistent: bool
    ) -> None:
        """Reads the ``nodes`` of the record items at ``seqs`` into ``by_seq``."""
        for i in range(0, len(seqs), 100):
            keys: list[Any] = [
                {"pk": _s(LineageKeys.lineage(lineage_id)), "sk": _s(LineageKeys.record(s))} for s in seqs[i : i + 100]
            ]
            while keys:
                out = self._client.batch_get_item(
                    RequestItems={
                        self._table: {
                            "Keys": keys,
                            "ProjectionExpression": "sk, #nodes",
                            "ExpressionAttributeNames": {"#nodes": "nodes"},
                            "ConsistentRead": consistent,
                        }
                    }
                )
                for item in out.get("Responses", {}).get(self._table, []):
                    seq = record_seq_of(read_string(item, "sk"))
                    if seq is not None:
                        by_seq[seq] = nodes_of(item)
                keys = out.get("UnprocessedKeys", {}).get(self._table, {}).get("Keys", [])

    def find_by_residual_id(
        self, lineage_id: str, residual_id: str, *, consistent: bool = True
    ) -> dict[str, Any] | None:
        """The residual-id marker as ``{lineageId, seq}``, or ``None``. ``consistent=False`` reads a
        copy up to about a second old (half the read units), which may miss a marker just put or
        show one since put again: for a caller that decides on a strong read."""
        item = self._get(LineageKeys.lineage(lineage_id), LineageKeys.residual(residual_id), consistent)
        return None if item is None else location_of(item)

    def triage_report(self, lineage_id: str, request_id: str) -> Any:
        """The stored triage report of a recall (see :func:`triage_report_of`)."""
        return triage_report_of(self._get(LineageKeys.triage(lineage_id), request_id))

    def rejections(
        self, lineage_id: str, residual_id: str, *, consistent: bool = True, since_ms: float | None = None
    ) -> list[dict[str, Any]]:
        """The rejections of one write, oldest first (``consistent=False``: from a copy that may
        miss one just put, as :meth:`find_by_residual_id`). ``since_ms``: those filed before it
        are left out unread, by a key condition on the sort key's time (a filter would be billed
        for every rejection of the lineage, which anyone who can send to the queue can add)."""
        floor = None if since_ms is None else LineageKeys.rejection_sk_floor(since_ms)
        values = {":pk": _s(LineageKeys.rejection(lineage_id)), ":residualId": _s(residual_id)}
        if floor is not None:
            values[":since"] = _s(floor)
        items = self._query_all(
            consistent,
            KeyConditionExpression="pk = :pk" if floor is None else "pk = :pk AND sk >= :since",
            FilterExpression="residualId = :residualId",
            ExpressionAttributeValues=values,
        )
        return sorted((rejection_of(lineage_id, i) for i in items), key=lambda r: (r["atMs"], r["messageId"]))

    def conflicts(self, lineage_id: str, residual_id: str, *, consistent: bool = True) -> list[dict[str, Any]]:
        """The conflicts of one write, oldest first (``consistent=False``: as :meth:`rejections`)."""
        items = self._query_all(
            consistent,
            KeyConditionExpression="pk = :pk AND begins_with(sk, :prefix)",
            ExpressionAttributeValues={
                ":pk": _s(LineageKeys.lineage(lineage_id)),
                ":prefix": _s(LineageKeys.conflicts_of(residual_id)),
            },
        )
        return sorted((conflict_of(lineage_id, i) for i in items), key=lambda c: (c["atMs"], c["messageId"]))


# --- the deployment log and the verifiable index (docs/deployment-log.md, "Storage") ----------

DEPLOYMENT_LOG_PK: Final = "DEPLOYMENT#log"
"""Partition of the deployment log's head and leaf items."""
DEPLOYMENT_HEAD_SK: Final = "HEAD"
INDEX_NODE_PREFIX: Final = "INDEX#"
"""Partition prefix of an index tile, ``INDEX#<64 hex of its root's hash>`` (content-addressed)."""
INDEX_NODE_SK: Final = "NODE"
_INTERIOR: Final = re.compile(r"I[0-9a-f]{128}")


def deployment_leaf_sk(index: int) -> str:
    """The sort key of deployment leaf ``index``: ``LEAF#`` and 16 digits."""
    return f"LEAF#{index:016d}"


def index_node_pk(hash_hex: str) -> str:
    """The partition key of the index tile whose root is the node ``hash_hex``."""
    return f"{INDEX_NODE_PREFIX}{hash_hex}"


@dataclass(frozen=True)
class StoredDeploymentHead:
    """The deployment head item, unverified: ``size`` (``-1`` when missing or not a number),
    ``checkpoint`` (the log's signed note, ``''`` when missing), ``frontier`` (the JSON as stored,
    ``[]`` when unreadable), ``index_root`` (hex, ``''`` when missing), ``published`` (the last
    checkpoint that met the policy, with its cosignatures; ``None`` when missing) and
    ``re_anchor`` (the operator's re-anchor statement note of a restored log, docs/deployment-log.md
    "Re-anchor"; ``None`` when missing) and ``re_anchor_chain`` (the earlier statement notes, oldest
    first, "A chain of re-anchors": the stored JSON list, its entries unchecked; ``None`` when
    missing or not a list)."""

    size: float | int
    checkpoint: str
    frontier: Any
    index_root: str
    published: str | None
    re_anchor: str | None = None
    re_anchor_chain: list[Any] | None = None


def deployment_head_of(item: Item) -> StoredDeploymentHead:
    """The head item ``DEPLOYMENT#log`` / ``HEAD`` as a claim; a missing or mistyped field reads as
    its fallback, never coerced."""
    size = read_number(item, "size")
    return StoredDeploymentHead(
        size=-1 if size is None else size,
        checkpoint=read_string(item, "checkpoint") or "",
        frontier=read_json(item, "frontier", []),
        index_root=read_string(item, "indexRoot") or "",
        published=read_string(item, "published"),
        re_anchor=read_string(item, "reAnchor"),
        re_anchor_chain=chain if isinstance(chain := read_json(item, "reAnchorChain", None), list) else None,
    )


def leaf_index_root_of(item: Item) -> str | None:
    """A leaf item's index root when it is 64 lowercase hex, else ``None``."""
    root = read_string(item, "indexRoot")
    return root if root is not None and _HEX_DIGEST.fullmatch(root) else None


def leaf_node_of(item: Item, level: int) -> str | None:
    """The tree node a leaf item stores at ``level`` (hex, unverified): node (L, j) lives on leaf
    ``(j + 1) · 2^L − 1``, as lineage records carry theirs; ``None`` when absent or not a string."""
    nodes = read_json(item, "nodes", None)
    value = nodes[level] if isinstance(nodes, list) and 0 <= level < len(nodes) else None
    return value if type(value) is str else None


def index_tile_of(item: Item) -> bytes:
    """The tile an index item stores, unverified (docs/verifiable-index.md, "Tiles"; the reader
    decodes and hashes it): the binary attribute ``tile``, or, for an item of the one-node form
    written before tiles (``node``: ``I`` and 128 lowercase hex, or ``L`` and the entry's JSON),
    that node's one-level tile; ``b""`` for anything else, which no decoder accepts."""
    tile = read_binary(item, "tile")
    if tile is not None:
        return bytes(tile)
    text = read_string(item, "node")
    if text is None:
        return b""
    try:
        if _INTERIOR.fullmatch(text):
            return encode_index_node_tile(
                {"kind": "interior", "left": bytes.fromhex(text[1:65]), "right": bytes.fromhex(text[65:])}
            )
        if text.startswith("L"):
            entry = _parse(text[1:])
            return b"" if entry is _ABSENT else encode_index_node_tile({"kind": "leaf", "entry": entry})
    except InvalidInputError:
        return b""
    return b""


_EDITED: Final = {"kind": "interior", "left": b"\0" * 32, "right": b"\0" * 32}
"""What an index item that does not decode to its address reads as: a node no address hashes to,
so the reader, which re-hashes every node, refuses it as edited."""

_TILE_NODES_KEPT: Final = 65_536
"""Nodes of decoded tiles a table reader keeps (least recently used out first)."""


class DeploymentLogTableReader:
    """The client's reads of the deployment log and the index nodes in the lineage table, over a
    boto3 DynamoDB client, unverified (the chain reader checks everything): the head strongly
    consistent (it is compared with the kept checkpoint) but for :meth:`peek_head`; leaf items and
    index tiles, put once and hashed into what the reader checks, eventually consistent, a key
    missed read again strongly before it is taken as absent."""

    def __init__(self, client: Any, table_name: str) -> None:
        self._client = client
        self._table = table_name
        self._tile_nodes: OrderedDict[bytes, dict[str, Any]] = OrderedDict()

    def _batch(self, keys: list[Any], consistent: bool = True) -> list[Item]:
        found: list[Item] = []
        for i in range(0, len(keys), 100):
            pending = keys[i : i + 100]
            for _ in range(8):
                if not pending:
                    break
                out = self._client.batch_get_item(
                    RequestItems={self._table: {"Keys": pending, "ConsistentRead": consistent}}
                )
                found.extend(out.get("Responses", {}).get(self._table, []))
                pending = out.get("UnprocessedKeys", {}).get(self._table, {}).get("Keys", [])
        return found

    def head(self) -> StoredDeploymentHead | None:
        """The head item, or ``None`` when there is none."""
        return self._head(consistent=True)

    def peek_head(self) -> StoredDeploymentHead | None:
        """The head item read eventually consistent (half the read units of :meth:`head`; it may
        lag the table by about a second), or ``None``: a trigger only, telling a waiting client the
        head may have moved (:meth:`reseal.deployment_chain_reader.DeploymentChainReader.head_mark`),
        never a value a chain is verified from."""
        return self._head(consistent=False)

    def _head(self, *, consistent: bool) -> StoredDeploymentHead | None:
        out = self._client.get_item(
            TableName=self._table,
            Key={"pk": _s(DEPLOYMENT_LOG_PK), "sk": _s(DEPLOYMENT_HEAD_SK)},
            ConsistentRead=consistent,
        )
        item = out.get("Item")
        return deployment_head_of(item) if isinstance(item, Mapping) else None

    def leaf_index_root(self, index: int) -> str | None:
        """The index root leaf item ``index`` commits to (hex), or ``None``."""
        if not is_safe_int(index):
            return None
        for consistent in (False, True):
            out = self._client.get_item(
                TableName=self._table,
                Key={"pk": _s(DEPLOYMENT_LOG_PK), "sk": _s(deployment_leaf_sk(index))},
                ConsistentRead=consistent,
            )
            item = out.get("Item")
            if isinstance(item, Mapping):
                return leaf_index_root_of(item)
        return None

    def read_nodes(self, refs: Sequence[tuple[int, int]]) -> list[str | None]:
        """The hex hash of each tree node ``(level, index)`` of the deployment log, ``None`` where the table lacks it."""
        leaves = sorted({node_seq(level, index) for level, index in refs})
        by_leaf: dict[int, Item] = {}
        for consistent in (False, True):
            keys = [{"pk": _s(DEPLOYMENT_LOG_PK), "sk": _s(deployment_leaf_sk(i))} for i in leaves if i not in by_leaf]
            if not keys:
                break
            for item in self._batch(keys, consistent):
                match = re.fullmatch(r"LEAF#(\d{16})", read_string(item, "sk") or "")
                if match:
                    by_leaf[int(match.group(1))] = item
        hashes: list[str | None] = []
        for level, index in refs:
            stored = by_leaf.get(node_seq(level, index))
            hashes.append(None if stored is None else leaf_node_of(stored, level))
        return hashes

    def index_nodes(self, hashes: Sequence[bytes]) -> list[dict[str, Any] | None]:
        """The index node stored under each hash, ``None`` where none is (docs/verifiable-index.md,
        "Tiles"): a node is read as the tile stored under its hash, or found in a tile read before
        (a walk goes from the root down, so it meets every node either inside a tile it read or as
        a reference, which is a tile's address). Every node of a decoded tile is kept under the
        hash it was computed to have. A tile that does not decode, or whose root is not its
        address, reads as a node no address hashes to (the reader refuses it as edited). Reads are
        eventually consistent (a tile is absent or holds its one content); a key missed is asked
        once more with a consistent read."""
        wanted = sorted({bytes(h) for h in hashes if bytes(h) not in self._tile_nodes})
        edited: set[bytes] = set()
        if wanted:
            tiles: dict[bytes, bytes] = {}
            for consistent in (False, True):
                keys = [{"pk": _s(index_node_pk(h.hex())), "sk": _s(INDEX_NODE_SK)} for h in wanted if h not in tiles]
                if not keys:
                    break
                for item in self._batch(keys, consistent):
                    pk = read_string(item, "pk") or ""
                    if pk.startswith(INDEX_NODE_PREFIX) and re.fullmatch(r"[0-9a-f]{64}", pk[len(INDEX_NODE_PREFIX) :]):
                        tiles[bytes.fromhex(pk[len(INDEX_NODE_PREFIX) :])] = index_tile_of(item)
            for address, raw in tiles.items():
                try:
                    tile = decode_index_tile(raw)
                except InvalidInputError:
                    tile = None
                if tile is None or tile.root != address:
                    edited.add(address)
                    continue
                for node_hash, node in tile.nodes.items():
                    self._tile_nodes[node_hash] = node
                    self._tile_nodes.move_to_end(node_hash)
            while len(self._tile_nodes) > _TILE_NODES_KEPT:
                self._tile_nodes.popitem(last=False)
        found: list[dict[str, Any] | None] = []
        for h in hashes:
            if bytes(h) in edited:
                found.append(dict(_EDITED))
                continue
            held = self._tile_nodes.get(bytes(h))
            if held is not None:
                self._tile_nodes.move_to_end(bytes(h))
            found.append(held)
        return found
