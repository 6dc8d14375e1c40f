"""An OpenAI Agents SDK ``Session`` backed by a Reseal lineage (docs/frameworks.md, "OpenAI Agents
SDK"). Needs the ``openai-agents`` extra (``pip install 'reseal[openai-agents]'``).

Each conversation item is one sealed record of the bound lineage, in the session-item format every
session adapter shares, in either language (:mod:`reseal.adapters.session_history`). ``pop_item``
seals a tombstone superseding the popped item's record and ``clear_session`` a ``clear`` record:
history is never erased, and what the SDK reads back is the fold of the proven records. A read proves every record in one
signed checkpoint consistent with the kept one, so a tampered or rolled-back history raises
:class:`reseal.LogVerificationError` and no item is returned.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from ..errors import InputIssue, InvalidInputError
from .binding import ProvenRecord, ResealBinding
from .session_history import (
    SESSION_ITEM_FORMAT,
    SessionOp,
    SessionRecordView,
    fold_session_history,
    session_add_payload,
    session_removal_payload,
)

if TYPE_CHECKING:
    from agents.items import TResponseInputItem
    from agents.memory.session_settings import SessionSettings

__all__ = ["PAYLOAD_FORMAT", "ProvenSessionItem", "ResealSession"]

PAYLOAD_FORMAT = SESSION_ITEM_FORMAT
"""The ``format`` member of every record this adapter seals (docs/frameworks.md, "Session items as residuals")."""


@dataclass(frozen=True)
class ProvenSessionItem:
    """A conversation item with the record that proves it (``proof.drift``: its drift verdict)."""

    item: TResponseInputItem
    proof: ProvenRecord


class ResealSession:
    """The SDK's ``Session`` protocol (``agents.memory.Session``) over a :class:`ResealBinding`: ``Runner.run(agent, input,
    session=ResealSession(binding))``.

    ``session_id`` is the lineage id unless given. Writes are serialized within this object.
    Each method raises what the binding raises: :class:`reseal.adapters.StaleWriteRefusedError`
    when the guard refuses an append, :class:`reseal.adapters.SealUnprovenError` when an append is
    sealed but not proven by the deadline, :class:`reseal.LogVerificationError` when the history
    does not verify; a read raises :class:`reseal.adapters.session_history.SessionHistoryError` when an
    authentic session record does not fold.
    """

    session_settings: SessionSettings | None = None

    def __init__(self, binding: ResealBinding, session_id: str | None = None) -> None:
        self.binding = binding
        self.session_id = session_id or binding.lineage_id
        self._lock = asyncio.Lock()

    async def get_items(self, limit: int | None = None) -> list[TResponseInputItem]:
        """The live items, oldest first (the latest ``limit`` when given), each proven."""
        return [proven.item for proven in await self.get_proven_items(limit)]

    async def get_proven_items(self, limit: int | None = None) -> list[ProvenSessionItem]:
        """As :meth:`get_items`, each item with its proof and drift verdict."""
        if limit is not None and (type(limit) is not int or limit < 0):
            raise InvalidInputError("get_items", [InputIssue("limit", "expected None or an integer ≥ 0")])
        live = await asyncio.to_thread(self._live)
        if limit is not None:
            live = live[len(live) - limit :] if limit else []
        return live

    async def add_items(self, items: list[TResponseInputItem]) -> None:
        """Seals each item, in order, as a record of the lineage; returns once each is proven.

        :raises StaleWriteRefusedError: the guard refused an append (the items before it stay sealed)
        """
        payloads = [session_add_payload(item, f"items.{i}") for i, item in enumerate(items)]
        async with self._lock:
            for payload in payloads:
                await asyncio.to_thread(self.binding.seal, payload, what="add_items")

    async def pop_item(self) -> TResponseInputItem | None:
        """Seals a record superseding the newest live item and returns that item; ``None`` when
        there is none."""
        async with self._lock:
            live = await asyncio.to_thread(self._live)
            if not live:
                return None
            last = live[-1]
            await asyncio.to_thread(
                self.binding.seal, session_removal_payload(SessionOp.POP), supersedes=last.proof, what="pop_item"
            )
            return last.item

    async def clear_session(self) -> None:
        """Seals a ``clear`` record superseding the lineage's last record: every item up to it is
        no longer live; the records stay. Nothing when no item is live."""
        async with self._lock:
            records = await asyncio.to_thread(self.binding.read)
            if not _fold(records):
                return
            await asyncio.to_thread(
                self.binding.seal,
                session_removal_payload(SessionOp.CLEAR),
                supersedes=records[-1],
                what="clear_session",
            )

    def _live(self) -> list[ProvenSessionItem]:
        return _fold(self.binding.read())


def _fold(records: list[ProvenRecord]) -> list[ProvenSessionItem]:
    """The live items of the proven records, each with the record that added it."""
    by_seq = {record.seq: record for record in records}
    views = [SessionRecordView(r.seq, r.record_hash, r.record["header"].get("supersedes"), r.payload) for r in records]
    return [
        ProvenSessionItem(cast("TResponseInputItem", live.item), by_seq[live.seq])
        for live in fold_session_history(views)
    ]
