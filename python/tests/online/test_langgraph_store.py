"""The LangGraph ``BaseStore`` adapter against the deployed stack (docs/frameworks.md): puts sealed,
deletes as tombstones, items carrying their proof and drift verdict, and each of Reseal's checks
surfacing through the store's own calls. Each attack test names the check it depends on."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest
from langgraph.store.base import BaseStore
from table_writer import TableWriter

import reseal
from reseal.adapters import ResealBinding, StaleWriteRefusedError
from reseal.adapters.langgraph import ProvenItem, ResealStore


def store(client: reseal.ResealClient, label: str, **options: Any) -> ResealStore:
    assert client.writer is not None
    lineage = reseal.lineage_id_for(f"{label}-{uuid.uuid4().hex[:8]}", client.writer.policy())
    return ResealStore(ResealBinding(client, lineage, session_id="s-1", generation_epoch=1, **options))


def test_put_get_search_list_and_a_delete_that_is_a_tombstone(client: reseal.ResealClient) -> None:
    """Depends on an overwrite or a delete being a sealed record that names the record it
    supersedes (``ResealBinding.seal``'s ``supersedes``, docs/frameworks.md)."""
    memories = store(client, "store")
    assert isinstance(memories, BaseStore)
    memories.put(("users", "u1"), "diet", {"food": "vegetarian", "since": 2020})
    memories.put(("users", "u1"), "city", {"name": "Lyon"})
    memories.put(("users", "u2"), "city", {"name": "Oslo"})
    memories.put(("users", "u1"), "diet", {"food": "vegan", "since": 2024})  # supersedes seq 0
    item = memories.get(("users", "u1"), "diet")
    assert isinstance(item, ProvenItem) and item.value == {"food": "vegan", "since": 2024}
    assert item.proof.seq == 3 and item.proof.checkpoint.size == 4 and item.drift is None
    assert item.created_at < item.updated_at or item.created_at == item.updated_at
    assert [i.key for i in memories.search(("users", "u1"), filter={"food": "vegan"})] == ["diet"]
    assert {(i.namespace, i.key) for i in memories.search(("users",))} == {
        (("users", "u1"), "diet"),
        (("users", "u1"), "city"),
        (("users", "u2"), "city"),
    }
    assert memories.list_namespaces(prefix=("users",)) == [("users", "u1"), ("users", "u2")]
    assert memories.list_namespaces(max_depth=1) == [("users",)]
    memories.delete(("users", "u1"), "diet")
    assert memories.get(("users", "u1"), "diet") is None
    assert asyncio.run(memories.aget(("users", "u1"), "city")) is not None
    records, _ = client.proven_records(memories.binding.lineage_id)
    assert [r["payload"]["op"] for r in records] == ["put", "put", "put", "put", "delete"]  # nothing erased
    assert records[3]["header"]["supersedes"]["seq"] == 0
    assert records[4]["header"]["supersedes"] == {"seq": 3, "recordHash": records[3]["recordHash"]}
    with pytest.raises(reseal.InvalidInputError, match="query"):
        memories.search(("users",), query="what does u1 eat?")


def test_a_tampered_item_raises_and_is_never_returned(client: reseal.ResealClient) -> None:
    """Depends on the record's hash check under its inclusion proof (verify_record_proof)."""
    memories = store(client, "tamper")
    memories.put(("acct",), "payee", {"name": "alice"})
    TableWriter(client).edit_record(memories.binding.lineage_id, 0, "alice", "mallory")
    with pytest.raises(reseal.LogVerificationError) as raised:
        memories.get(("acct",), "payee")
    assert raised.value.verdict == reseal.VerificationVerdict.HASH_MISMATCH
    with pytest.raises(reseal.LogVerificationError):
        asyncio.run(memories.asearch(("acct",)))


def test_a_rolled_back_store_raises_against_the_index(client: reseal.ResealClient) -> None:
    """Depends on the index holding the larger tree head (``_indexed_head``: ``NOT_NEWEST``). Without
    that check the rollback is still refused, by the missing record (``LINEAGE_BROKEN``), so the
    verdict and the reason are asserted."""
    memories = store(client, "rollback")
    writer = TableWriter(client)
    memories.put(("acct",), "limit", {"eur": 100})
    old_head = writer.head(memories.binding.lineage_id)
    memories.put(("acct",), "limit", {"eur": 10})  # the table writer wants the old limit back
    writer.roll_back(memories.binding.lineage_id, old_head, 1, 2)
    with pytest.raises(reseal.LogVerificationError) as raised:
        memories.get(("acct",), "limit")
    # The head carries no signed checkpoint to keep (docs/deployment-log.md, "What changes for the
    # sealer", step 3): the index, holding the larger tree head, refuses the rolled-back one (NOT_NEWEST).
    assert raised.value.verdict == reseal.VerificationVerdict.UNVERIFIED_TAMPER_RISK
    assert "NOT_NEWEST" in raised.value.reason


def test_a_stale_put_is_refused_by_the_guard(client: reseal.ResealClient) -> None:
    """Depends on the stale-state guard's rule V4 (docs/guard.md) and its signed refusal."""
    inherited = {"name": "API_KEY", "value": "k-1", "freshness": "UNVERIFIED_INHERITED", "sourceEpoch": 1}
    memories = store(client, "stale", variables=[inherited])
    memories.binding.predecessor, memories.binding.generation_epoch = ("s-0", 1), 2
    with pytest.raises(StaleWriteRefusedError, match="API_KEY: UNVERIFIED_INHERITED"):
        memories.put(("cfg",), "key", {"value": "k-1"})
    assert memories.get(("cfg",), "key") is None


def test_a_drifted_causal_key_is_flagged_on_read(client: reseal.ResealClient) -> None:
    """Depends on triage's delta isolator (isolate_delta) over the proven record's manifest."""
    env = {"DB_HOST": "db-1", "HOSTNAME": "runner-1"}
    memories = store(client, "drift", snapshot=lambda: env, causal_keys=["DB_HOST"])
    memories.put(("facts",), "db", {"engine": "postgres 16"})
    env["HOSTNAME"] = "runner-2"
    item = memories.get(("facts",), "db")
    assert isinstance(item, ProvenItem) and not item.drifted
    assert item.drift is not None and item.drift["verdict"] == "AMBIENT_DRIFT_ONLY"
    env["DB_HOST"] = "db-2"
    [hit] = memories.search(("facts",))
    assert hit.drifted and hit.drift is not None and hit.drift["driftedKeys"]["changed"] == ["DB_HOST", "HOSTNAME"]
    assert hit.drift["invalidatedClaims"] == ["memory"]
