"""The lineage table's items as a client reads them (docs/pipeline.md, "Data layout"): the one
module of the package that knows the table's keys and attributes.

Items are DynamoDB's low-level ``AttributeValue`` maps (``{"seq": {"N": "3"}, ...}``, what boto3's
client returns), so this module needs no AWS library. The table is not trusted (docs/sealing.md,
threat model): an attribute of another type than its field needs reads as absent, never coerced;
numbers read as JavaScript's ``Number`` reads them (a seq that is not a safe integer ≥ 0 is no
seq); JSON that does not parse reads as the field's fallback. Every decoder is checked against
``test/vectors/item-layout.json``, which the TypeScript codec writes, so a layout change breaks
both packages' tests at once.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from ._checks import is_safe_int
from .errors import InvalidInputError
from .strict_json import parse_strict_json

__all__ = [
    "Item",
    "LineageKeys",
    "StoredLogHead",
    "conflict_of",
    "location_of",
    "log_head_of",
    "node_seq",
    "nodes_of",
    "record_of",
    "rejection_of",
    "triage_report_of",
]

Item = Mapping[str, Any]
"""One DynamoDB item in ``AttributeValue`` form."""

_TYPES: Final = frozenset(("S", "N", "B", "SS", "NS", "BS", "M", "L", "NULL", "BOOL"))
_ABSENT: Final = object()


class LineageKeys:
    """The table's keys (string ``pk``, ``sk``), as adapters/dynamodb-table-keys.ts builds them."""

    HEAD: Final = "HEAD"
    RECORD_PREFIX: Final = "RECORD#"
    CONFLICT_PREFIX: Final = "CONFLICT#"

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
    def triage(lineage_id: str) -> str:
        return f"TRIAGE#{lineage_id}"


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
    it); ``None`` when the item has no string ``record``."""
    text = read_string(item, "record")
    if text is None:
        return None
    value = _parse(text)
    return text if value is _ABSENT else value


def nodes_of(item: Item) -> list[Any] | None:
    """The tree nodes a record item stores (``nodes[level]``, hex), or ``None`` when unreadable."""
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
    """A head item as a claim; missing fields read as ``-1`` / ``''`` / ``0`` (``None`` without an item)."""
    if item is None:
        return None
    epoch = read_number(item, "generationEpoch")
    frontier = read_json(item, "frontier", None)
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
        frontier=frontier if isinstance(frontier, list) and all(type(h) is str for h in frontier) else None,
        policy=read_json(item, "policy", None),
    )


def location_of(item: Item) -> dict[str, Any]:
    """A residual-id marker as ``{lineageId, seq}`` (unverified; a seq that is no seq reads as ``-1``)."""
    seq = read_seq(item, "seq")
    return {"lineageId": read_string(item, "lineageId") or "", "seq": -1 if seq is None else seq}


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
