"""While a write is sealed awaiting integration, a poll reads the deployment head item alone,
eventually consistent, and proves the seal again only when that item moved, when the backoff is
due (1, 2, 4, up to 8 s at a 0.5 s interval), or at the deadline (docs/pipeline.md, "Polling the
table"; docs/python.md, "The online loop"): the cheap read is a trigger, never an answer. Full
proofs are counted by the lineage marker reads and the strongly consistent head reads, over the
stubbed record proofs and the deployment items of test_write_outcome_freshness."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import test_deployment_chain_reader as fixtures
import test_write_outcome_freshness as outcomes

from reseal.client import WriteOutcome

HEAD_KEY = ("DEPLOYMENT#log", "HEAD")


class CountedTable(fixtures.Table):
    """The fake table, counting head reads by consistency; ``peek`` (when set) answers the
    eventually consistent head reads in place of the stored item."""

    def __init__(self, items: list[dict[str, Any]]) -> None:
        super().__init__(items)
        self.head_reads = {True: 0, False: 0}
        self.peek: Callable[[], dict[str, Any] | None] | None = None

    def get_item(self, **args: Any) -> dict[str, Any]:
        key = (args["Key"]["pk"]["S"], args["Key"]["sk"]["S"])
        if key == HEAD_KEY:
            self.head_reads[args["ConsistentRead"]] += 1
            if not args["ConsistentRead"] and self.peek is not None:
                peeked = self.peek()
                return {} if peeked is None else {"Item": peeked}
        return super().get_item(**args)


class Waiting:
    """A client whose write r-0 is sealed past deployment checkpoint 1 (lineage-a not indexed yet:
    awaiting integration), on a fake monotonic clock that only its sleeps advance."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, on_sleep: Callable[[int, Waiting], None] = lambda _n, _w: None):
        monkeypatch.setattr(fixtures, "Table", CountedTable)
        self.client, table = outcomes.client(
            monkeypatch, [*fixtures.NODES, *fixtures.EARLIER_NODES, *fixtures.deployment_items(fixtures.ROOTS[:1], "")]
        )
        assert isinstance(table, CountedTable)
        self.table = table
        self.now_s = 0.0
        self.sleeps = 0
        self.proofs = 0
        lineage = self.client.table
        find = lineage.find_by_residual_id

        def counted_find(lineage_id: str, residual_id: str, *, consistent: bool = True) -> dict[str, Any]:
            # Full proofs read the marker strongly; the first poll's look at a copy is no proof.
            self.proofs += consistent
            return find(lineage_id, residual_id, consistent=consistent)

        def sleep(seconds: float) -> None:
            self.now_s += seconds
            self.sleeps += 1
            on_sleep(self.sleeps, self)

        monkeypatch.setattr(lineage, "find_by_residual_id", counted_find)
        monkeypatch.setattr(self.client, "_clock", lambda: self.now_s)
        monkeypatch.setattr(self.client, "_sleep", sleep)

    def integrate(self) -> None:
        """The deployment log grows to checkpoint 3, whose index maps r-0 (the head item moves)."""
        self.table.items.update({(i["pk"]["S"], i["sk"]["S"]): i for i in fixtures.honest()})

    def wait(self, timeout_s: float) -> WriteOutcome:
        return self.client.wait_for_outcome(
            outcomes.PUBLISHED, timeout_s=timeout_s, poll_interval_s=0.5, until_proven=True
        )


def state_of(outcome: WriteOutcome) -> str | None:
    return None if outcome.freshness is None else outcome.freshness.state


def test_a_wait_of_20_polls_on_an_unmoved_head_makes_a_handful_of_full_proofs_ending_with_one() -> None:
    with pytest.MonkeyPatch.context() as monkeypatch:
        waiting = Waiting(monkeypatch)
        outcome = waiting.wait(10)
    assert outcome.kind == "SEALED" and state_of(outcome) == "SEALED_AWAITING_INTEGRATION"
    assert waiting.sleeps == 20  # 21 attempts, t = 0 … 10 s
    # Full proofs at 0, then due at 1, 3, 7 s (backoff 1, 2, 4 s), and at the deadline: 5, not 21.
    assert waiting.proofs == 5
    # The deployment head strongly by the deadline's proof alone; the proofs before it read a copy.
    assert waiting.table.head_reads[True] == 1
    # A mark read at each of the 19 polls between, once after the first proof (to park on), and a
    # copy by each of the 4 proofs before the deadline.
    assert waiting.table.head_reads[False] == 19 + 1 + 4


def test_the_integration_moves_the_head_and_the_next_poll_proves_the_seal() -> None:
    def integrate_at_third_sleep(n: int, waiting: Waiting) -> None:
        if n == 3:
            waiting.integrate()

    with pytest.MonkeyPatch.context() as monkeypatch:
        waiting = Waiting(monkeypatch, integrate_at_third_sleep)
        outcome = waiting.wait(10)
    assert outcome.kind == "SEALED" and state_of(outcome) == "PROVEN"
    assert waiting.sleeps == 3
    # t = 0 full, 0.5 skipped, 1.0 due, 1.5 the head moved: proven there, 3 proofs of 4 polls.
    assert waiting.proofs == 3


def test_a_forged_trigger_flip_flopping_at_every_poll_costs_a_proof_each_never_another_outcome() -> None:
    with pytest.MonkeyPatch.context() as monkeypatch:
        waiting = Waiting(monkeypatch)
        stored = waiting.table.items[HEAD_KEY]
        forged = {**stored, "published": {"S": "a table writer's edit"}}
        # What the cheap reads show flips between an edited head and the stored one at every poll
        # (put and taken back between them); the strongly consistent reads see the table's.
        waiting.table.peek = lambda: forged if int(waiting.now_s / 0.5) % 2 == 0 else stored
        outcome = waiting.wait(2)
    assert outcome.kind == "SEALED" and state_of(outcome) == "SEALED_AWAITING_INTEGRATION"
    # A proof at every one of the 5 attempts (t = 0 … 2 s), as when every poll was a full proof.
    assert waiting.proofs == 5
    # Marks read after the first proof and at the 3 polls between, and a copy by each of the 4
    # proofs before the deadline; the deadline's attempt reads the head strongly alone.
    assert waiting.table.head_reads[False] == 4 + 4
    # The edited copy does not verify: read again strongly (at t = 0 and 1 s), and at the deadline.
    assert waiting.table.head_reads[True] == 2 + 1


def test_the_deadline_attempt_is_a_full_proof_even_when_the_cheap_read_is_stale() -> None:
    def integrate_hidden_at_last_sleep(n: int, waiting: Waiting) -> None:
        # The 4th sleep of 0.5 s reaches the 2 s deadline: integrate then, the move hidden from
        # the cheap read (a stale, eventually consistent head).
        if n == 4:
            stale = waiting.table.items[HEAD_KEY]
            waiting.integrate()
            waiting.table.peek = lambda: stale

    with pytest.MonkeyPatch.context() as monkeypatch:
        waiting = Waiting(monkeypatch, integrate_hidden_at_last_sleep)
        outcome = waiting.wait(2)
    assert outcome.kind == "SEALED" and state_of(outcome) == "PROVEN"


def test_a_client_checking_no_freshness_proves_at_every_poll() -> None:
    with pytest.MonkeyPatch.context() as monkeypatch:
        waiting = Waiting(monkeypatch)
        monkeypatch.setattr(waiting.client, "_chains", None)
        outcome = waiting.wait(2)
    # Without the deployment log nothing is waited past: the first proof answers.
    assert outcome.kind == "SEALED" and outcome.freshness is None
    assert waiting.proofs == 1 and waiting.table.head_reads == {True: 0, False: 0}
