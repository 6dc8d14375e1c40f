"""A conversation session kept as residuals of one lineage (docs/frameworks.md, "Session items as
residuals"): the mapping between a framework's session items and residual payloads, and the fold
of a proven lineage back into the items that are live. The same format and the same fold as the
TypeScript core's ``foldSessionHistory`` (``reseal/core``), so a session written in one language
reads the same in the other; ``test/vectors/session-item.json`` holds both to it.

Pure: no AWS, no framework import.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..canonical import canonical_bytes
from ..errors import CanonicalizationError, InputIssue, InvalidInputError, ResealError

__all__ = [
    "SESSION_ITEM_FORMAT",
    "LiveSessionItem",
    "SessionHistoryError",
    "SessionOp",
    "SessionRecordView",
    "fold_session_history",
    "is_session_payload",
    "session_add_payload",
    "session_removal_payload",
]

SESSION_ITEM_FORMAT = "reseal.session-item/1"
"""The ``format`` member of every session payload; a payload without it is not a session record."""


class SessionOp:
    """What a session record does: append one item, remove one (a tombstone), or remove all before it."""

    ADD = "add"
    POP = "pop"
    CLEAR = "clear"


class SessionHistoryError(ResealError):
    """An authentic session record does not fold (docs/frameworks.md, "Session items as
    residuals"): the records are proven, so this is not tampering, but no history is returned.
    ``seq`` is the record's, ``reason`` says why."""

    def __init__(self, seq: int, reason: str) -> None:
        self.seq = seq
        self.reason = reason
        super().__init__(f"session record at seq {seq}: {reason}")


@dataclass(frozen=True)
class SessionRecordView:
    """What the fold reads of one proven record: ``supersedes`` is the sealed header's
    ``{"seq", "recordHash"}`` (what a ``pop`` or ``clear`` removes), ``None`` on an ``add``."""

    seq: int
    record_hash: str
    supersedes: Mapping[str, Any] | None
    payload: Any


@dataclass(frozen=True)
class LiveSessionItem:
    """A live item of the history, with the seq and hash of the record that added it."""

    item: dict[str, Any]
    seq: int
    record_hash: str


def session_add_payload(item: Any, path: str = "") -> dict[str, Any]:
    """The payload that appends ``item`` (a JSON object: dict, list, str, int within ±(2^53 − 1),
    finite float, bool, None), as a copy.

    :param path: where the item was given, for the error (``items.0``)
    :raises InvalidInputError: naming where the first value without a canonical JSON form is,
        or when ``item`` is not an object
    """
    try:
        canonical_bytes(item)
    except CanonicalizationError as error:
        where = ".".join(p for p in [path, *error.path.split("/")[1:]] if p)
        raise InvalidInputError("session item", [InputIssue(where, error.reason)]) from error
    if type(item) is not dict:
        raise InvalidInputError("session item", [InputIssue(path, "a session item must be a JSON object")])
    return {"format": SESSION_ITEM_FORMAT, "op": SessionOp.ADD, "item": copy.deepcopy(item)}


def session_removal_payload(op: str) -> dict[str, Any]:
    """The payload of a tombstone (``pop``) or a ``clear``; the record's ``supersedes`` names what
    it removes, never the payload."""
    if op not in (SessionOp.POP, SessionOp.CLEAR):
        raise ValueError(f"not a removal op: {op!r}")
    return {"format": SESSION_ITEM_FORMAT, "op": op}


def is_session_payload(payload: Any) -> bool:
    """Whether ``payload`` is a session payload at all; the lineage's other residuals are not."""
    return isinstance(payload, dict) and payload.get("format") == SESSION_ITEM_FORMAT


def fold_session_history(records: Iterable[SessionRecordView]) -> list[LiveSessionItem]:
    """The live items, oldest first, from the proven records of the lineage in seq order.

    Each ``add`` appends its item; a ``pop`` removes the item whose ``add`` its ``supersedes``
    names (removing one already removed changes nothing); a ``clear`` removes every item added at
    or before the record its ``supersedes`` names. Records that are not session payloads are
    skipped.

    :raises SessionHistoryError: an unknown ``op``, an ``add`` without an object item or with a
        ``supersedes``, a removal without one, or one naming a record that is not earlier in the
        lineage with that hash (a ``pop`` must name an ``add``)
    """
    by_seq: dict[int, SessionRecordView] = {}
    live: dict[int, LiveSessionItem] = {}
    for record in records:
        by_seq[record.seq] = record
        payload = record.payload
        if not is_session_payload(payload):
            continue
        op = payload.get("op")
        if op == SessionOp.ADD:
            if record.supersedes is not None:
                raise SessionHistoryError(record.seq, "an add record supersedes nothing")
            item = payload.get("item")
            if not isinstance(item, dict):
                raise SessionHistoryError(record.seq, "an add record holds no item")
            live[record.seq] = LiveSessionItem(item, record.seq, record.record_hash)
            continue
        if op not in (SessionOp.POP, SessionOp.CLEAR):
            shown = json.dumps(op, separators=(",", ":"), ensure_ascii=False) if "op" in payload else "undefined"
            raise SessionHistoryError(record.seq, f"unknown op {shown}")
        target = record.supersedes
        if target is None:
            raise SessionHistoryError(record.seq, f"a {op} record must supersede a record")
        target_seq = target.get("seq")
        named = by_seq.get(target_seq) if type(target_seq) is int else None
        if named is None or named.seq >= record.seq or named.record_hash != target.get("recordHash"):
            raise SessionHistoryError(
                record.seq,
                f"it supersedes seq {target_seq}, which is not an earlier record of the lineage with that hash",
            )
        if op == SessionOp.POP:
            if not is_session_payload(named.payload) or named.payload.get("op") != SessionOp.ADD:
                raise SessionHistoryError(
                    record.seq, f"its tombstone names seq {target_seq}, which adds no session item"
                )
            live.pop(named.seq, None)
        else:
            for seq in [s for s in live if s <= named.seq]:
                del live[seq]
    return list(live.values())
