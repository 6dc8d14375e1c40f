"""A Strands ``Model`` that answers from a script (no model call), for the Strands adapter's tests:
each ``stream`` replies with the next text and keeps the messages it was given."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from strands.models.model import Model
from strands.types.content import Messages


class ScriptedModel(Model):
    """Replies with ``replies`` in order; ``seen`` holds the messages of each call."""

    def __init__(self, *replies: str) -> None:
        self.replies = list(replies)
        self.seen: list[Messages] = []

    def update_config(self, **model_config: Any) -> None:
        pass

    def get_config(self) -> Any:
        return {}

    def structured_output(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("no structured output from a script")

    async def stream(self, messages: Messages, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:  # type: ignore[override]
        self.seen.append([dict(m) for m in messages])  # type: ignore[misc]
        yield {"messageStart": {"role": "assistant"}}
        yield {"contentBlockStart": {"start": {}}}
        yield {"contentBlockDelta": {"delta": {"text": self.replies.pop(0)}}}
        yield {"contentBlockStop": {}}
        yield {"messageStop": {"stopReason": "end_turn"}}
