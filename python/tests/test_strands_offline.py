"""The Strands Agents ``SessionRepository`` adapter's own logic on a binding that keeps records in
memory (docs/frameworks.md, "Strands Agents"): what each repository call seals, and what a history
of records reads as. The online tests (online/test_strands_session.py) run it against the deployed
stack and its checks."""

from __future__ import annotations

from typing import Any

import pytest
from memory_binding import MemoryBinding
from scripted_model import ScriptedModel
from strands import Agent
from strands.session.repository_session_manager import RepositorySessionManager
from strands.session.session_repository import SessionRepository
from strands.types.exceptions import SessionException
from strands.types.session import Session, SessionAgent, SessionMessage, SessionType

from reseal import InvalidInputError
from reseal.adapters import SessionHistoryError
from reseal.adapters.session_history import session_add_payload
from reseal.adapters.strands import STRANDS_SESSION_FORMAT, ResealSessionRepository


def agent(repository: SessionRepository, *replies: str, session_id: str = "chat-1") -> tuple[Agent, ScriptedModel]:
    model = ScriptedModel(*replies)
    manager = RepositorySessionManager(session_id=session_id, session_repository=repository)
    return Agent(model=model, callback_handler=None, agent_id="support", session_manager=manager), model


def text(message: dict[str, Any]) -> str:
    return str(message["content"][0]["text"])


def ops(binding: MemoryBinding) -> list[tuple[str, str, Any]]:
    return [(r.payload["op"], r.payload["kind"], r.payload.get("messageId")) for r in binding.records]


def with_session(binding: MemoryBinding) -> ResealSessionRepository:
    repository = ResealSessionRepository(binding)  # type: ignore[arg-type]
    repository.create_session(Session("chat-1", SessionType.AGENT))
    repository.create_agent("chat-1", SessionAgent("support", {}, {}))
    return repository


def message(index: int, words: str) -> SessionMessage:
    return SessionMessage({"role": "user", "content": [{"text": words}]}, index)


def test_an_agent_persists_through_the_repository_and_a_new_one_resumes_from_the_proven_history() -> None:
    binding = MemoryBinding()
    repository = ResealSessionRepository(binding)  # type: ignore[arg-type]
    first, _ = agent(repository, "Noted: order 1234.")
    assert str(first("My order is 1234.")).strip() == "Noted: order 1234."
    assert ops(binding) == [
        ("put", "session", None),
        ("put", "agent", None),
        ("put", "message", 0),
        ("put", "agent", None),  # the agent's state after the turn, superseding its first record
        ("put", "message", 1),
    ]
    assert binding.records[3].record["header"]["supersedes"] == {"seq": 1, "recordHash": binding.records[1].record_hash}
    resumed, model = agent(repository, "It is 1234.")
    resumed("What is my order?")
    assert [text(m) for m in model.seen[0]] == ["My order is 1234.", "Noted: order 1234.", "What is my order?"]
    assert [text(m.message) for m in repository.list_messages("chat-1", "support")] == [
        "My order is 1234.",
        "Noted: order 1234.",
        "What is my order?",
        "It is 1234.",
    ]
    assert [m.message_id for m in repository.list_messages("chat-1", "support", limit=2, offset=1)] == [1, 2]


def test_a_redaction_seals_a_superseding_record_and_the_original_stays_in_the_lineage() -> None:
    binding = MemoryBinding()
    first, _ = agent(ResealSessionRepository(binding), "ok")  # type: ignore[arg-type]
    first("my card is 4111 1111 1111 1111")
    assert first._session_manager is not None
    first._session_manager.redact_latest_message({"role": "assistant", "content": [{"text": "[redacted]"}]}, first)
    repository = ResealSessionRepository(binding)  # type: ignore[arg-type]
    [original, reply] = repository.list_messages("chat-1", "support")
    assert text(original.to_message()) == "my card is 4111 1111 1111 1111"
    assert text(reply.to_message()) == "[redacted]" and text(reply.message) == "ok"
    update = binding.records[-1]
    assert update.payload["messageId"] == 1 and update.record["header"]["supersedes"]["seq"] == 4
    assert update.payload["value"]["created_at"] == binding.records[4].payload["value"]["created_at"]
    assert binding.records[4].payload["value"]["redact_message"] is None  # the original is not rewritten


def test_a_stale_or_out_of_order_message_is_refused_and_nothing_is_sealed() -> None:
    binding = MemoryBinding()
    repository = with_session(binding)
    repository.create_message("chat-1", "support", message(0, "first"))
    sealed = len(binding.records)
    with pytest.raises(SessionException, match="next message id is 1; the session already holds that id"):
        repository.create_message("chat-1", "support", message(0, "a second writer's first"))
    with pytest.raises(SessionException, match="next message id is 1; the session has no message before it"):
        repository.create_message("chat-1", "support", message(5, "a gap"))
    with pytest.raises(SessionException, match="Agent other in session chat-1 does not exist"):
        repository.create_message("chat-1", "other", message(0, "nobody"))
    with pytest.raises(SessionException, match="already exists"):
        repository.create_session(Session("chat-1", SessionType.AGENT))
    with pytest.raises(SessionException, match="already exists"):
        repository.create_agent("chat-1", SessionAgent("support", {}, {}))
    with pytest.raises(SessionException, match="does not exist"):
        repository.update_message("chat-1", "support", message(3, "never created"))
    with pytest.raises(SessionException, match="does not exist"):
        repository.update_agent("chat-1", SessionAgent("ghost", {}, {}))
    assert len(binding.records) == sealed
    assert repository.read_message("chat-1", "support", 0) == repository.list_messages("chat-1", "support")[0]
    assert repository.read_message("chat-1", "support", 1) is None
    # An update keeps the creation time of what it supersedes, as Strands' own repositories do.
    created = binding.records[-1].payload["value"]["created_at"]
    edited = message(0, "edited")
    edited.created_at = "2030-01-01T00:00:00+00:00"
    repository.update_message("chat-1", "support", edited)
    assert repository.list_messages("chat-1", "support")[0].created_at == created
    renamed = SessionAgent("support", {"k": 1}, {}, created_at="2030-01-01T00:00:00+00:00")
    repository.update_agent("chat-1", renamed)
    agent_record = repository.read_agent("chat-1", "support")
    assert agent_record is not None and agent_record.state == {"k": 1}
    assert agent_record.created_at == binding.records[1].payload["value"]["created_at"]


def test_deleting_a_session_is_a_tombstone_and_the_id_can_start_again() -> None:
    binding = MemoryBinding()
    repository = with_session(binding)
    repository.create_message("chat-1", "support", message(0, "before"))
    repository.delete_session("chat-1")
    assert repository.read_session("chat-1") is None and repository.read_agent("chat-1", "support") is None
    with pytest.raises(SessionException, match="does not exist"):
        repository.list_messages("chat-1", "support")
    assert binding.records[-1].payload["op"] == "delete"
    assert binding.records[-1].record["header"]["supersedes"]["seq"] == 0
    with_session(binding)
    assert repository.list_messages("chat-1", "support") == []
    assert [r.payload["op"] for r in binding.records] == ["put", "put", "put", "delete", "put", "put"]  # nothing erased


def test_multi_agent_state_is_created_read_and_superseded() -> None:
    class Swarm:
        id = "swarm-1"

        def __init__(self, state: dict[str, Any]) -> None:
            self.state = state

        def serialize_state(self) -> dict[str, Any]:
            return self.state

    binding = MemoryBinding()
    repository = with_session(binding)
    repository.create_multi_agent("chat-1", Swarm({"node": "a"}))  # type: ignore[arg-type]
    repository.update_multi_agent("chat-1", Swarm({"node": "b"}))  # type: ignore[arg-type]
    assert repository.read_multi_agent("chat-1", "swarm-1") == {"node": "b"}
    assert binding.records[-1].record["header"]["supersedes"]["seq"] == binding.records[-2].seq
    with pytest.raises(SessionException, match="does not exist"):
        repository.update_multi_agent("chat-1", type("Other", (Swarm,), {"id": "swarm-2"})({}))  # type: ignore[arg-type]


def test_a_value_without_a_canonical_form_is_refused_naming_where_and_nothing_is_sealed() -> None:
    binding = MemoryBinding()
    repository = with_session(binding)
    sealed = len(binding.records)
    bad = SessionMessage({"role": "user", "content": [{"text": "x", "score": float("nan")}]}, 0)  # type: ignore[typeddict-unknown-key]
    with pytest.raises(InvalidInputError, match=r"value\.message\.content\.0\.score"):
        repository.create_message("chat-1", "support", bad)
    with pytest.raises(InvalidInputError, match="limit"):
        repository.list_messages("chat-1", "support", limit=-1)
    with pytest.raises(InvalidInputError, match="offset"):
        repository.list_messages("chat-1", "support", offset=-2)
    assert len(binding.records) == sealed
    # Bytes are Strands' own base64 form, sealed as JSON and read back as bytes.
    image = {"image": {"format": "png", "source": {"bytes": b"\x89PNG"}}}
    repository.create_message("chat-1", "support", SessionMessage({"role": "user", "content": [image]}, 0))  # type: ignore[list-item]
    [read] = repository.list_messages("chat-1", "support")
    assert read.message["content"][0]["image"]["source"]["bytes"] == b"\x89PNG"


def test_other_residuals_of_the_lineage_are_skipped() -> None:
    binding = MemoryBinding()
    binding.seal({"note": "the agent's own conclusion"})
    binding.seal(session_add_payload({"role": "user", "content": "an OpenAI Agents item"}))
    repository = with_session(binding)
    assert repository.read_session("chat-1") is not None
    assert repository.list_messages("chat-1", "support") == []


def put(kind: str, **fields: Any) -> dict[str, Any]:
    return {"format": STRANDS_SESSION_FORMAT, "op": "put", "kind": kind, "sessionId": "s", **fields, "value": {}}


@pytest.mark.parametrize(
    ("build", "reason"),
    [
        (lambda b: (b.seal(put("session")), b.seal(put("session"))), "at seq 1: it creates session 's', which seq 0"),
        (
            lambda b: (b.seal(put("session")), b.seal(put("session")), b.seal(put("session"), supersedes=b.records[0])),
            "at seq 1",
        ),
        (
            lambda b: (
                b.seal(put("session")),
                b.seal(put("session"), supersedes=b.records[0]),
                b.seal(put("session"), supersedes=b.records[0]),
            ),
            "at seq 2: it does not supersede the current record of session 's'",
        ),
        (lambda b: b.seal(put("message", agentId="a", messageId=0)), "its agent 'a' of session 's' is not live"),
        (lambda b: b.seal(put("agent", agentId="a")), "its session 's' is not live"),
        (lambda b: b.seal({**put("session"), "op": "edit"}), "unknown op 'edit'"),
        (lambda b: b.seal({**put("session"), "value": [1]}), "a put holds no object value"),
        (lambda b: b.seal(put("message", messageId=0)), "a message record names no agentId"),
        (
            lambda b: (
                b.seal(put("session")),
                b.seal(put("agent", agentId="a")),
                b.seal({**put("agent", agentId="a"), "op": "delete"}, supersedes=b.records[1]),
            ),
            "a delete ends a session; a 'agent' record is superseded, never deleted",
        ),
        (lambda b: b.seal({**put("session"), "op": "delete"}), "it does not supersede the current record"),
    ],
)
def test_a_strands_record_that_does_not_fold_raises_and_no_history_is_returned(build: Any, reason: str) -> None:
    binding = MemoryBinding()
    build(binding)
    with pytest.raises(SessionHistoryError, match=reason):
        ResealSessionRepository(binding).read_session("s")  # type: ignore[arg-type]
