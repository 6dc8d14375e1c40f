"""When a wait whose write does not show yet reads its refusals (docs/pipeline.md, "Polling the
table"; the TypeScript ``RefusalChecks``): refusals are rare and cost two ``Query`` calls a read,
the marker one ``GetItem``, so every poll reads the marker but the refusals only on a backoff.
"""

from __future__ import annotations

from typing import Final

__all__ = ["MAX_REFUSAL_CHECK_INTERVAL_S", "RefusalChecks"]

MAX_REFUSAL_CHECK_INTERVAL_S: Final = 4.0
"""The longest a wait goes between two reads of a write's refusals before it shows, seconds (the backoff's cap)."""


class RefusalChecks:
    """The refusals are read at the first poll, then after twice the poll interval, doubling to
    :data:`MAX_REFUSAL_CHECK_INTERVAL_S` (1 s, 2 s, 4 s, then every 4 s at the default 0.5 s). A
    write refused is so answered at most that cap (and a poll) after its refusal landed. The
    schedule only delays the answer, never changes it: the deadline's attempt reads the refusals
    whatever is due (the caller's rule).

    :param poll_interval_s: the wait's poll interval, seconds
    """

    def __init__(self, poll_interval_s: float) -> None:
        self._every_s = min(2 * poll_interval_s, MAX_REFUSAL_CHECK_INTERVAL_S)
        self._due_at_s: float | None = None

    def due(self, now_s: float) -> bool:
        """Whether a poll at ``now_s`` (the wait's monotonic clock, seconds) reads the refusals;
        when it does, the next read is scheduled (the interval doubling to the cap)."""
        if self._due_at_s is not None and now_s < self._due_at_s:
            return False
        self._due_at_s = now_s + self._every_s
        self._every_s = min(2 * self._every_s, MAX_REFUSAL_CHECK_INTERVAL_S)
        return True
