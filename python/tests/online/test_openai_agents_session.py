"""The OpenAI Agents SDK ``Session`` adapter against the deployed stack (docs/frameworks.md): items
sealed, history never erased, and each of Reseal's checks surfacing through the SDK's own calls.
Each attack test names the check it depends on."""

from __future__ import annotations

import asyncio
import time
import uuid
from typing import Any

import pytest
from agents.memory import Session
from table_writer import TableWriter

import reseal
from reseal.adapters import ResealBinding, StaleWriteRefusedError
from reseal.adapters.openai_agents import ResealSession


def lineage(client: reseal.ResealClient, label: str) -> str:
    assert client.writer is not None
    return reseal.lineage_id_for(f"{label}-{uuid.uuid4().hex[:8]}", client.writer.policy())


def binding(client: reseal.ResealClient, label: str, **options: Any) -> ResealBinding:
    return ResealBinding(client, lineage(client, label), session_id="s-1", generation_epoch=1, **options)


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def test_items_are_sealed_and_pop_and_clear_are_sealed_records_not_erasures(client: reseal.ResealClient) -> None:
    """Depends on a removal being a sealed record that names the record it supersedes
    (``ResealBinding.seal``'s ``supersedes``, docs/frameworks.md)."""
    session = ResealSession(binding(client, "history"))
    assert isinstance(session, Session)  # the SDK's runtime-checkable protocol

    async def run() -> None:
        await session.add_items([user("one"), user("two"), user("three")])
        assert await session.get_items() == [user("one"), user("two"), user("three")]
        assert await session.get_items(limit=2) == [user("two"), user("three")]
        assert await session.pop_item() == user("three")
        assert await session.get_items() == [user("one"), user("two")]
        await session.clear_session()
        assert await session.get_items() == []
        assert await session.pop_item() is None
        await session.add_items([user("four")])
        proven = await session.get_proven_items()
        assert [p.item for p in proven] == [user("four")]
        assert proven[0].proof.seq == 5 and proven[0].proof.checkpoint.size == 6

    asyncio.run(run())
    records, _ = client.proven_records(session.binding.lineage_id)
    ops = [r["payload"]["op"] for r in records]
    assert ops == ["add", "add", "add", "pop", "clear", "add"]  # nothing erased
    assert records[3]["header"]["supersedes"] == {"seq": 2, "recordHash": records[2]["recordHash"]}
    assert records[4]["header"]["supersedes"]["seq"] == 3


def test_a_tampered_item_raises_and_is_never_returned(client: reseal.ResealClient) -> None:
    """Depends on the record's hash check under its inclusion proof (verify_record_proof)."""
    session = ResealSession(binding(client, "tamper"))
    asyncio.run(session.add_items([user("transfer 10 to alice"), user("ok")]))
    TableWriter(client).edit_record(session.binding.lineage_id, 0, "alice", "mallory")
    with pytest.raises(reseal.LogVerificationError) as raised:
        asyncio.run(session.get_items())
    assert raised.value.verdict == reseal.VerificationVerdict.HASH_MISMATCH
    with pytest.raises(reseal.LogVerificationError):
        asyncio.run(session.pop_item())  # a write decided on a forged history is not made either


def test_a_rolled_back_history_raises_against_the_index(client: reseal.ResealClient) -> None:
    """Depends on the index holding the larger tree head (``_indexed_head``: ``NOT_NEWEST``). Without
    that check the rollback is still refused, by the missing record (``LINEAGE_BROKEN``), so the
    verdict and the reason are asserted."""
    session = ResealSession(binding(client, "rollback"))
    writer = TableWriter(client)
    asyncio.run(session.add_items([user("one")]))
    old_head = writer.head(session.binding.lineage_id)
    asyncio.run(session.add_items([user("two")]))
    assert asyncio.run(session.get_items()) == [user("one"), user("two")]  # keeps the checkpoint of 2
    writer.roll_back(session.binding.lineage_id, old_head, 1, 2)
    with pytest.raises(reseal.LogVerificationError) as raised:
        asyncio.run(session.get_items())
    # The head carries no signed checkpoint to keep (docs/deployment-log.md, "What changes for the
    # sealer", step 3): the index, holding the larger tree head, refuses the rolled-back one (NOT_NEWEST).
    assert raised.value.verdict == reseal.VerificationVerdict.UNVERIFIED_TAMPER_RISK
    assert "NOT_NEWEST" in raised.value.reason


def test_a_deleted_deployment_head_never_reads_as_empty_memory(client: reseal.ResealClient) -> None:
    """Depends on ``proven_records`` refusing a lineage whose head item stands while no record is
    integrated (docs/frameworks.md; docs/python.md, "Tree heads from the index"): unwitnessed and
    cold, a deleted deployment head reads as "nothing published", which without that check empties
    the history. A reader that kept the deployment checkpoint refuses it as ``DEPLOYMENT_ROLLBACK``."""
    session = ResealSession(binding(client, "unpublished"))
    asyncio.run(session.add_items([user("one"), user("two")]))
    assert asyncio.run(session.get_items()) == [user("one"), user("two")]  # keeps the deployment checkpoint
    cold = reseal.connect(writer_key=".reseal/agent.pem", checkpoints=None)
    cold_binding = ResealBinding(cold, session.binding.lineage_id, session_id="s-1", generation_epoch=1)
    assert [r.payload["item"] for r in cold_binding.read()] == [user("one"), user("two")]
    writer = TableWriter(client)
    head = writer.delete_deployment_head()
    try:
        with pytest.raises(reseal.LogVerificationError) as raised:
            cold_binding.read()
        assert raised.value.verdict == reseal.VerificationVerdict.UNVERIFIED_TAMPER_RISK
        assert raised.value.reason.startswith("sealed, awaiting integration")
        assert "no deployment checkpoint published" in raised.value.reason
        with pytest.raises(reseal.LogVerificationError):
            asyncio.run(ResealSession(cold_binding).get_items())
        with pytest.raises(reseal.LogVerificationError) as kept:
            asyncio.run(session.get_items())
        assert "DEPLOYMENT_ROLLBACK" in kept.value.reason
    finally:
        writer.put_back_deployment_head(head)
    assert asyncio.run(ResealSession(cold_binding).get_items()) == [user("one"), user("two")]


def test_a_stale_append_is_refused_by_the_guard(client: reseal.ResealClient) -> None:
    """Depends on the stale-state guard's rule V4 (docs/guard.md) and its signed refusal."""
    inherited = {
        "name": "DB_TOKEN",
        "value": "t-from-last-session",
        "freshness": "UNVERIFIED_INHERITED",
        "sourceEpoch": 1,
    }
    resumed = binding(client, "stale", variables=[inherited])
    resumed.predecessor, resumed.generation_epoch = ("s-0", 1), 2
    session = ResealSession(resumed)
    with pytest.raises(StaleWriteRefusedError) as raised:
        asyncio.run(session.add_items([user("resumed with an inherited token")]))
    assert raised.value.rejected_variables[0]["name"] == "DB_TOKEN"
    assert raised.value.rejected_variables[0]["reason"] == "UNVERIFIED_INHERITED"
    assert asyncio.run(session.get_items()) == []


def test_a_drifted_causal_key_is_flagged_on_read(client: reseal.ResealClient) -> None:
    """Depends on triage's delta isolator (isolate_delta) over the proven record's manifest."""
    env = {"DB_HOST": "db-1", "REGION": "eu-west-1", "HOSTNAME": "runner-1"}
    session = ResealSession(binding(client, "drift", snapshot=lambda: env, causal_keys=["DB_HOST", "REGION"]))
    asyncio.run(session.add_items([user("the db is postgres 16 at db-1")]))
    env["HOSTNAME"] = "runner-2"  # ambient
    [proven] = asyncio.run(session.get_proven_items())
    assert not proven.proof.drifted and proven.proof.drift is not None
    assert proven.proof.drift["driftedKeys"]["changed"] == ["HOSTNAME"]
    env["DB_HOST"] = "db-2"  # causal
    [proven] = asyncio.run(session.get_proven_items())
    assert proven.proof.drifted
    assert proven.proof.drift is not None and proven.proof.drift["invalidatedClaims"] == ["memory"]
    assert proven.item == user("the db is postgres 16 at db-1")  # still returned: drift is a verdict, not tamper


def test_bad_input_gets_a_clear_error(client: reseal.ResealClient) -> None:
    session = ResealSession(binding(client, "input"))
    with pytest.raises(reseal.InvalidInputError, match=r"items\.0"):
        asyncio.run(session.add_items([{"role": "user", "content": object()}]))  # type: ignore[list-item]
    with pytest.raises(reseal.InvalidInputError, match="limit"):
        asyncio.run(session.get_items(limit=-1))
    keyless = reseal.connect(writer_key=None)
    with pytest.raises(reseal.InvalidInputError, match="writer key"):
        ResealBinding(keyless, "x", session_id="s-1", generation_epoch=int(time.time()))
