"""The framework adapters' own logic, on a binding that keeps records in memory: what each
framework call seals, and what a history of records reads as (docs/frameworks.md). The online
tests (online/) run the same adapters against the deployed stack and its checks."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from langgraph.store.base import ListNamespacesOp, MatchCondition
from memory_binding import MemoryBinding

from reseal import InvalidInputError
from reseal.adapters import ResealBinding, SealUnprovenError, SessionHistoryError, StaleWriteRefusedError
from reseal.adapters.langgraph import ResealStore
from reseal.adapters.openai_agents import ResealSession
from reseal.client import Freshness, WriteOutcome
from reseal.log import Checkpoint


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def test_session_pop_and_clear_seal_records_and_reads_follow_them() -> None:
    binding = MemoryBinding()
    session = ResealSession(binding)  # type: ignore[arg-type]

    async def run() -> None:
        await session.add_items([user("a"), user("b")])
        assert await session.pop_item() == user("b")
        await session.add_items([user("c")])
        assert await session.get_items() == [user("a"), user("c")]
        await session.clear_session()
        await session.add_items([user("d")])
        assert await session.get_items() == [user("d")]
        assert await session.get_items(limit=0) == []

    asyncio.run(run())
    assert [r.payload["op"] for r in binding.records] == ["add", "add", "pop", "add", "clear", "add"]
    assert {r.payload["format"] for r in binding.records} == {"reseal.session-item/1"}
    assert binding.records[2].record["header"]["supersedes"]["seq"] == 1
    assert binding.records[4].record["header"]["supersedes"] == {"seq": 3, "recordHash": f"{3:064x}"}
    assert "through" not in binding.records[4].payload  # the sealed header names what a clear removes


def test_session_skips_other_residuals_and_refuses_a_session_record_that_does_not_fold() -> None:
    binding = MemoryBinding()
    binding.seal({"note": "the agent's own conclusion, in the same lineage"})
    session = ResealSession(binding)  # type: ignore[arg-type]
    asyncio.run(session.add_items([user("a")]))
    assert asyncio.run(session.get_items()) == [user("a")]
    binding.seal({"format": "reseal.session-item/1", "op": "pop"}, supersedes=binding.records[0])
    with pytest.raises(SessionHistoryError, match="seq 2: its tombstone names seq 0"):
        asyncio.run(session.get_items())


def test_session_refuses_an_item_that_is_not_json_and_seals_nothing_of_the_batch() -> None:
    binding = MemoryBinding()
    session = ResealSession(binding)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match=r"items\.1\.content"):
        asyncio.run(session.add_items([user("ok"), {"content": {1, 2}}]))  # type: ignore[list-item]
    assert binding.records == []


def test_clearing_a_session_with_no_live_item_seals_nothing() -> None:
    binding = MemoryBinding()
    session = ResealSession(binding)  # type: ignore[arg-type]
    asyncio.run(session.clear_session())
    asyncio.run(session.add_items([user("a")]))
    asyncio.run(session.pop_item())
    asyncio.run(session.clear_session())
    assert [r.payload["op"] for r in binding.records] == ["add", "pop"]


def test_store_overwrite_supersedes_and_delete_is_a_tombstone() -> None:
    binding = MemoryBinding()
    store = ResealStore(binding)  # type: ignore[arg-type]
    store.put(("a", "b"), "k", {"v": 1})
    store.put(("a", "b"), "k", {"v": 2})
    store.delete(("a", "b"), "k")
    store.delete(("a", "b"), "never-put")
    assert store.get(("a", "b"), "k") is None
    assert [r.payload["op"] for r in binding.records] == ["put", "put", "delete"]
    assert [r.record["header"]["supersedes"] for r in binding.records][1:] == [
        {"seq": 0, "recordHash": f"{0:064x}"},
        {"seq": 1, "recordHash": f"{1:064x}"},
    ]
    store.put(("a", "b"), "k", {"v": 3})
    item = store.get(("a", "b"), "k")
    assert item is not None and item.value == {"v": 3} and item.created_at == item.updated_at


def test_store_search_filters_and_namespaces_match_as_langgraph_does() -> None:
    store = ResealStore(MemoryBinding())  # type: ignore[arg-type]
    store.put(("users", "u1", "prefs"), "diet", {"food": "vegan", "level": 3})
    store.put(("users", "u2", "prefs"), "diet", {"food": "omnivore", "level": 1})
    store.put(("docs",), "readme", {"text": "hi"})
    assert [i.namespace for i in store.search(("users",), filter={"level": {"$gt": 2}})] == [("users", "u1", "prefs")]
    assert [i.key for i in store.search(("users",), limit=1)] == ["diet"]
    [result] = store.batch([ListNamespacesOp(match_conditions=(MatchCondition("suffix", ("*", "prefs")),))])
    assert result == [("users", "u1", "prefs"), ("users", "u2", "prefs")]
    assert store.list_namespaces(max_depth=2, limit=1, offset=1) == [("users", "u1")]
    with pytest.raises(InvalidInputError, match="value"):
        store.put(("docs",), "bad", {"x": float("nan")})


class OutcomeClient:
    """A client whose write ends in ``outcome``; it keeps how ``wait_for_outcome`` was asked."""

    writer = object()

    def __init__(self, outcome: WriteOutcome) -> None:
        self.outcome = outcome
        self.asked: dict[str, Any] = {}

    def publish(self, request: Any) -> Any:
        return request

    def wait_for_outcome(self, _published: Any, **options: Any) -> WriteOutcome:
        self.asked = options
        return self.outcome


def test_binding_seal_waits_until_proven_and_counts_no_seal_that_is_only_the_table_s_word() -> None:
    # docs/frameworks.md, "Writes": a write returns once its outcome is proven; nothing unproven counts.
    record = {"header": {"monotonicSequenceNumber": 4}}
    awaiting = Freshness("SEALED_AWAITING_INTEGRATION", 3, "past the indexed head", "UNWITNESSED", None)
    client = OutcomeClient(WriteOutcome("SEALED", record=record, freshness=awaiting))
    binding = ResealBinding(client, "lineage-a", session_id="s-1", generation_epoch=1)  # type: ignore[arg-type]
    with pytest.raises(SealUnprovenError, match="sealed at seq 4, but not proven by the deadline"):
        binding.seal({"note": "n"})
    assert client.asked["until_proven"] is True
    proven = WriteOutcome("SEALED", record=record, checkpoint=Checkpoint("o", 5, bytes(32)))
    assert ResealBinding(OutcomeClient(proven), "lineage-a", session_id="s-1", generation_epoch=1).seal({}) is proven  # type: ignore[arg-type]
    refused = WriteOutcome("REJECTED", refusal={"stage": "GUARD", "reason": "STALE_STATE", "rejectedVariables": []})
    with pytest.raises(StaleWriteRefusedError):
        ResealBinding(OutcomeClient(refused), "lineage-a", session_id="s-1", generation_epoch=1).seal({})  # type: ignore[arg-type]
