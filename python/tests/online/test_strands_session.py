"""The Strands Agents ``SessionRepository`` adapter against the deployed stack (docs/frameworks.md,
"Strands Agents"): a Strands agent's session sealed, history never erased, and each of Reseal's
checks surfacing through Strands' own calls. Each attack test names the check it depends on."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from scripted_model import ScriptedModel
from strands import Agent
from strands.session.repository_session_manager import RepositorySessionManager
from strands.session.session_repository import SessionRepository
from strands.types.session import SessionMessage
from table_writer import TableWriter

import reseal
from reseal.adapters import ResealBinding, SealRefusedError, StaleWriteRefusedError
from reseal.adapters.strands import ResealSessionRepository


def lineage(client: reseal.ResealClient, label: str) -> str:
    assert client.writer is not None
    return reseal.lineage_id_for(f"{label}-{uuid.uuid4().hex[:8]}", client.writer.policy())


def binding(client: reseal.ResealClient, lineage_id: str, **options: Any) -> ResealBinding:
    return ResealBinding(client, lineage_id, **{"session_id": "s-1", "generation_epoch": 1, **options})


def agent(repository: ResealSessionRepository, *replies: str) -> tuple[Agent, ScriptedModel]:
    model = ScriptedModel(*replies)
    manager = RepositorySessionManager(session_id="chat-1", session_repository=repository)
    return Agent(model=model, callback_handler=None, agent_id="support", session_manager=manager), model


def texts(repository: ResealSessionRepository) -> list[str]:
    return [str(m.to_message()["content"][0]["text"]) for m in repository.list_messages("chat-1", "support")]


def user(index: int, words: str) -> SessionMessage:
    return SessionMessage({"role": "user", "content": [{"text": words}]}, index)


def test_an_agent_runs_on_a_sealed_session_and_a_redaction_supersedes_without_erasing(
    client: reseal.ResealClient,
) -> None:
    """Depends on a redaction being a sealed record that names the record it supersedes
    (``ResealBinding.seal``'s ``supersedes``, docs/frameworks.md)."""
    repository = ResealSessionRepository(binding(client, lineage(client, "strands")))
    assert isinstance(repository, SessionRepository)
    first, _ = agent(repository, "Noted: order 1234.")
    first("My order is 1234.")
    resumed, model = agent(ResealSessionRepository(repository.binding), "It is 1234.")
    resumed("What is my order?")
    # The resumed agent was given the proven history, then its own turn.
    assert [m["content"][0]["text"] for m in model.seen[0]] == [
        "My order is 1234.",
        "Noted: order 1234.",
        "What is my order?",
    ]
    assert resumed._session_manager is not None
    resumed._session_manager.redact_latest_message({"role": "assistant", "content": [{"text": "[redacted]"}]}, resumed)
    assert texts(repository) == ["My order is 1234.", "Noted: order 1234.", "What is my order?", "[redacted]"]
    records, checkpoint = client.proven_records(repository.binding.lineage_id)
    assert checkpoint is not None and checkpoint.size == len(records)
    messages = [r for r in records if r["payload"]["kind"] == "message"]
    assert [m["payload"]["messageId"] for m in messages] == [0, 1, 2, 3, 3]  # the original reply stays
    assert messages[3]["payload"]["value"]["message"]["content"][0]["text"] == "It is 1234."
    assert messages[4]["header"]["supersedes"] == {
        "seq": messages[3]["header"]["monotonicSequenceNumber"],
        "recordHash": messages[3]["recordHash"],
    }


def test_a_tampered_message_raises_and_is_never_returned(client: reseal.ResealClient) -> None:
    """Depends on the record's hash check under its inclusion proof (verify_record_proof)."""
    repository = ResealSessionRepository(binding(client, lineage(client, "tamper")))
    first, _ = agent(repository, "Sending 10 to alice.")
    first("pay alice 10")
    TableWriter(client).edit_record(repository.binding.lineage_id, 2, "alice", "mallory")
    with pytest.raises(reseal.LogVerificationError) as raised:
        repository.list_messages("chat-1", "support")
    assert raised.value.verdict == reseal.VerificationVerdict.HASH_MISMATCH
    with pytest.raises(reseal.LogVerificationError):
        agent(ResealSessionRepository(repository.binding), "never")  # a resumed agent is not built on it
    with pytest.raises(reseal.LogVerificationError):
        repository.create_message("chat-1", "support", user(2, "more"))  # nor is a write decided on it


def test_a_rolled_back_session_raises_against_the_index(client: reseal.ResealClient) -> None:
    """Depends on the index holding the larger tree head (``_indexed_head``: ``NOT_NEWEST``). Without
    that check the rollback is still refused, by the missing record (``LINEAGE_BROKEN``), so the
    verdict and the reason are asserted."""
    repository = ResealSessionRepository(binding(client, lineage(client, "rollback")))
    writer = TableWriter(client)
    first, _ = agent(repository, "noted")
    old_head = writer.head(repository.binding.lineage_id)  # the session and the agent
    old_size = len(client.proven_records(repository.binding.lineage_id)[0])
    first("remember the blue door")
    assert texts(repository) == ["remember the blue door", "noted"]  # keeps the checkpoint of every record
    size = len(client.proven_records(repository.binding.lineage_id)[0])
    writer.roll_back(repository.binding.lineage_id, old_head, old_size, size)
    with pytest.raises(reseal.LogVerificationError) as raised:
        repository.list_messages("chat-1", "support")
    # The head carries no signed checkpoint to keep (docs/deployment-log.md, "What changes for the
    # sealer", step 3): the index, holding the larger tree head, refuses the rolled-back one (NOT_NEWEST).
    assert raised.value.verdict == reseal.VerificationVerdict.UNVERIFIED_TAMPER_RISK
    assert "NOT_NEWEST" in raised.value.reason


def test_a_stale_append_is_refused_by_the_guard(client: reseal.ResealClient) -> None:
    """Depends on the stale-state guard's rule V4 (docs/guard.md) and its signed refusal."""
    lineage_id = lineage(client, "stale")
    agent(ResealSessionRepository(binding(client, lineage_id)), "unused")  # the session and agent, sealed
    inherited = {
        "name": "DB_TOKEN",
        "value": "t-from-last-session",
        "freshness": "UNVERIFIED_INHERITED",
        "sourceEpoch": 1,
    }
    resumed = ResealSessionRepository(
        binding(client, lineage_id, session_id="s-2", generation_epoch=2, predecessor=("s-1", 1), variables=[inherited])
    )
    with pytest.raises(StaleWriteRefusedError) as raised:
        resumed.create_message("chat-1", "support", user(0, "resumed with an inherited token"))
    assert raised.value.rejected_variables[0]["name"] == "DB_TOKEN"
    assert raised.value.rejected_variables[0]["reason"] == "UNVERIFIED_INHERITED"
    assert resumed.list_messages("chat-1", "support") == []


def test_an_append_from_a_superseded_generation_is_refused_by_the_sealer(client: reseal.ResealClient) -> None:
    """Depends on the sealer's fencing token (docs/guard.md, "The fencing token beyond the guard")."""
    lineage_id = lineage(client, "fenced")
    old = ResealSessionRepository(binding(client, lineage_id))
    agent(old, "unused")
    new = ResealSessionRepository(
        binding(client, lineage_id, session_id="s-2", generation_epoch=2, predecessor=("s-1", 1))
    )
    new.create_message("chat-1", "support", user(0, "the newer generation"))
    with pytest.raises(SealRefusedError) as raised:
        old.create_message("chat-1", "support", user(1, "the older generation, still running"))
    assert raised.value.refusal.get("reason") == "STALE_EPOCH"
    assert texts(new) == ["the newer generation"]


def test_a_drifted_causal_key_is_flagged_on_read(client: reseal.ResealClient) -> None:
    """Depends on triage's delta isolator (isolate_delta) over the proven record's manifest."""
    env = {"DB_HOST": "db-1", "HOSTNAME": "runner-1"}
    repository = ResealSessionRepository(
        binding(client, lineage(client, "drift"), snapshot=lambda: dict(env), causal_keys=["DB_HOST"])
    )
    first, _ = agent(repository, "postgres 16 at db-1")
    first("which database?")
    env["HOSTNAME"] = "runner-2"  # ambient
    proven = repository.list_proven_messages("chat-1", "support")
    assert [p.proof.drifted for p in proven] == [False, False]
    assert proven[0].proof.drift is not None and proven[0].proof.drift["driftedKeys"]["changed"] == ["HOSTNAME"]
    env["DB_HOST"] = "db-2"  # causal
    proven = repository.list_proven_messages("chat-1", "support")
    assert [p.proof.drifted for p in proven] == [True, True]
    assert proven[1].message.message["content"][0]["text"] == "postgres 16 at db-1"  # drift is a verdict, not tamper
