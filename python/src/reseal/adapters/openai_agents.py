"""An OpenAI Agents SDK ``Session`` backed by a Reseal lineage (docs/frameworks.md, "OpenAI Agents
SDK"). Needs the ``openai-agents`` extra (``pip install 'reseal[openai-agents]'``).

Each conversation item is one sealed record of the bound lineage. ``pop_item`` seals a record
superseding the popped one and ``clear_session`` a tombstone: history is never erased, and what
the SDK reads back is what the proven records say it is now. A read proves every record in one
signed checkpoint consistent with the kept one, so a tampered or rolled-back history raises
:class:`reseal.LogVerificationError` and no item is returned.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import InputIssue, InvalidInputError
from .binding import ProvenRecord, ResealBinding

if TYPE_CHECKING:
    from agents.items import TResponseInputItem
    from agents.memory.session_settings import SessionSettings

__all__ = ["PAYLOAD_FORMAT", "ProvenSessionItem", "ResealSession"]

PAYLOAD_FORMAT = "reseal/openai-agents-session/v1"
"""The ``format`` member of every record this adapter seals."""


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
    when the guard refuses an append, :class:`reseal.LogVerificationError` when the history does
    not verify.
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
        payloads = [_json_item(item, i) for i, item in enumerate(items)]
        async with self._lock:
            for payload in payloads:
                await asyncio.to_thread(
                    self.binding.seal, {"format": PAYLOAD_FORMAT, "op": "add", "item": payload}, what="add_items"
                )

    async def pop_item(self) -> TResponseInputItem | None:
        """Seals a record superseding the newest live item and returns that item; ``None`` when
        there is none."""
        async with self._lock:
            live = await asyncio.to_thread(self._live)
            if not live:
                return None
            last = live[-1]
            await asyncio.to_thread(
                self.binding.seal, {"format": PAYLOAD_FORMAT, "op": "pop"}, supersedes=last.proof, what="pop_item"
            )
            return last.item

    async def clear_session(self) -> None:
        """Seals a tombstone: every item before it is no longer live; the records stay."""
        async with self._lock:
            records = await asyncio.to_thread(self.binding.read)
            if not records:
                return
            last = records[-1]
            await asyncio.to_thread(
                self.binding.seal,
                {"format": PAYLOAD_FORMAT, "op": "clear", "through": last.seq},
                supersedes=last,
                what="clear_session",
            )

    def _live(self) -> list[ProvenSessionItem]:
        live: list[ProvenSessionItem] = []
        for record in self.binding.read():
            payload = record.payload
            op = payload.get("op") if isinstance(payload, dict) and payload.get("format") == PAYLOAD_FORMAT else None
            if op == "add" and isinstance(payload.get("item"), dict):
                live.append(ProvenSessionItem(payload["item"], record))
            elif op == "pop":
                gone = (record.record["header"].get("supersedes") or {}).get("seq")
                live = [p for p in live if p.proof.seq != gone]
            elif op == "clear" and type(payload.get("through")) is int:
                live = [p for p in live if p.proof.seq > payload["through"]]
            else:
                raise InvalidInputError(
                    "session history",
                    [InputIssue(f"seq {record.seq}", f"not a record of this adapter ({PAYLOAD_FORMAT})")],
                )
        return live


def _json_item(item: Any, index: int) -> Any:
    """The item as plain JSON (the SDK's items are JSON-shaped dicts), refused clearly otherwise."""
    try:
        value = json.loads(json.dumps(item, allow_nan=False))
    except (TypeError, ValueError) as error:
        raise InvalidInputError("add_items", [InputIssue(f"items.{index}", f"not JSON: {error}")]) from error
    if not isinstance(value, dict):
        raise InvalidInputError("add_items", [InputIssue(f"items.{index}", "expected an object")])
    return value
