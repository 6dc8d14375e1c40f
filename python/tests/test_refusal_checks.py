"""The refusal backoff of a wait before its write shows, and the rejection sort-key bound its
queries use (docs/pipeline.md, "Polling the table"), as in TypeScript
(test/unit/client/refusal-check-polls.test.ts, test/unit/adapters/outcome-reads.test.ts)."""

from __future__ import annotations

import math

import pytest

from reseal.item_layout import LineageKeys
from reseal.refusal_checks import MAX_REFUSAL_CHECK_INTERVAL_S, RefusalChecks


def test_due_at_the_first_poll_then_after_twice_the_interval_doubling_to_the_cap() -> None:
    checks = RefusalChecks(0.5)
    assert [t / 2 for t in range(80) if checks.due(t / 2)] == [
        0.0,
        1.0,
        3.0,
        7.0,
        11.0,
        15.0,
        19.0,
        23.0,
        27.0,
        31.0,
        35.0,
        39.0,
    ]
    assert MAX_REFUSAL_CHECK_INTERVAL_S == 4.0


def test_a_poll_interval_past_the_cap_reads_the_refusals_every_poll() -> None:
    checks = RefusalChecks(5.0)
    assert [checks.due(t) for t in (0.0, 5.0, 10.0)] == [True, True, True]


@pytest.mark.parametrize(
    ("since_ms", "floor"),
    [
        # The strings JavaScript's toISOString gives (the keys the guard and sealer write).
        (1_792_972_800_000, "2026-10-26T00:00:00.000Z"),
        (-5_000, "1969-12-31T23:59:55.000Z"),
        (1_500.2, "1970-01-01T00:00:01.501Z"),
        (-62_135_596_800_000, "0001-01-01T00:00:00.000Z"),
        (253_402_300_799_999, "9999-12-31T23:59:59.999Z"),
        (-62_135_596_800_001, None),
        (253_402_300_800_000, None),
        (math.inf, None),
        (-math.inf, None),
        (math.nan, None),
    ],
)
def test_the_rejection_sort_key_bound_sorts_as_times_do_or_is_none(since_ms: float, floor: str | None) -> None:
    assert LineageKeys.rejection_sk_floor(since_ms) == floor
