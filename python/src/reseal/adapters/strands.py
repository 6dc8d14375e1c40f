"""A Strands Agents ``SessionRepository`` backed by a Reseal lineage (docs/frameworks.md, "Strands
Agents"). Needs the ``strands`` extra (``pip install 'reseal[strands]'``).

Every session, agent, message and multi-agent state the repository is given is a sealed record
of the bound lineage; an update seals a record superseding the current one, and deleting a
session seals a tombstone: history is never erased, and what Strands reads back is the fold of
the proven records. A read proves every record in one signed checkpoint consistent with the kept
one, so a tampered or rolled-back history raises :class:`reseal.LogVerificationError` and nothing
of it is returned.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from strands.session.session_repository import SessionRepository
from strands.types.exceptions import SessionException
from strands.types.session import Session, SessionAgent, SessionMessage

from ..canonical import canonical_bytes
from ..errors import CanonicalizationError, InputIssue, InvalidInputError
from .binding import ProvenRecord, ResealBinding
from .session_history import SessionHistoryError

if TYPE_CHECKING:
    from strands.multiagent.base import MultiAgentBase

__all__ = ["STRANDS_SESSION_FORMAT", "ProvenMessage", "ResealSessionRepository", "fold_strands_session"]

STRANDS_SESSION_FORMAT = "reseal.strands-session/1"
"""The ``format`` member of every record this adapter seals (docs/frameworks.md, "Strands Agents")."""

_KINDS = ("session", "agent", "message", "multiAgent")

Key = tuple[str, str, str, int]
"""``(kind, sessionId, agentId or multiAgentId or "", messageId or -1)``: what one record is of."""


@dataclass(frozen=True)
class ProvenMessage:
    """A Strands message with the record that proves its current version (``proof.drift``: its
    drift verdict against the environment at the read)."""

    message: SessionMessage
    proof: ProvenRecord


def fold_strands_session(records: Iterable[ProvenRecord]) -> dict[Key, ProvenRecord]:
    """The current record of every live session, agent, message and multi-agent state, from the
    proven records of the lineage in seq order (docs/frameworks.md, "Strands Agents").

    A ``put`` with no ``supersedes`` creates its key, which must not be live; a ``put`` with one
    updates it and must supersede its current record; a ``delete`` (of a session) must supersede
    the session's current record and ends the session and everything in it. An agent or
    multi-agent state needs its session live, a message its agent. Records of other formats are
    skipped.

    :raises SessionHistoryError: a record of this format that does not fold (the records are
        authentic, so this is not tampering, but no history is returned)
    """
    live: dict[Key, ProvenRecord] = {}
    for record in records:
        payload = record.payload
        if not isinstance(payload, dict) or payload.get("format") != STRANDS_SESSION_FORMAT:
            continue
        key = _key(record)
        supersedes = record.record["header"].get("supersedes")
        current = live.get(key)
        if payload.get("op") == "put":
            if not isinstance(payload.get("value"), dict):
                raise SessionHistoryError(record.seq, "a put holds no object value")
            parent = _parent(key)
            if parent is not None and parent not in live:
                raise SessionHistoryError(record.seq, f"its {parent[0]} {_name(parent)} is not live")
            if supersedes is None and current is not None:
                raise SessionHistoryError(
                    record.seq, f"it creates {key[0]} {_name(key)}, which seq {current.seq} already holds"
                )
        elif payload.get("op") == "delete":
            if key[0] != "session":
                raise SessionHistoryError(
                    record.seq, f"a delete ends a session; a {key[0]!r} record is superseded, never deleted"
                )
        else:
            raise SessionHistoryError(record.seq, f"unknown op {payload.get('op')!r}")
        if (supersedes is not None or payload["op"] == "delete") and (
            current is None
            or supersedes is None
            or supersedes.get("seq") != current.seq
            or supersedes.get("recordHash") != current.record_hash
        ):
            raise SessionHistoryError(record.seq, f"it does not supersede the current record of {key[0]} {_name(key)}")
        if payload["op"] == "delete":
            for gone in [k for k in live if k[1] == key[1]]:
                del live[gone]
        else:
            live[key] = record
    return live


def _key(record: ProvenRecord) -> Key:
    payload = record.payload
    kind, session_id = payload.get("kind"), payload.get("sessionId")
    owner = payload.get("multiAgentId") if kind == "multiAgent" else payload.get("agentId")
    message_id = payload.get("messageId")
    if kind not in _KINDS or type(session_id) is not str:
        raise SessionHistoryError(record.seq, "not a session, agent, message or multi-agent record of a session id")
    if kind != "session" and type(owner) is not str:
        field = "multiAgentId" if kind == "multiAgent" else "agentId"
        raise SessionHistoryError(record.seq, f"a {kind} record names no {field}")
    if kind == "message" and (type(message_id) is not int or message_id < 0):
        raise SessionHistoryError(record.seq, "a message record names no messageId (an integer ≥ 0)")
    return (kind, session_id, owner if kind != "session" else "", message_id if kind == "message" else -1)


def _parent(key: Key) -> Key | None:
    if key[0] == "session":
        return None
    if key[0] == "message":
        return ("agent", key[1], key[2], -1)
    return ("session", key[1], "", -1)


def _name(key: Key) -> str:
    return {
        "session": f"{key[1]!r}",
        "agent": f"{key[2]!r} of session {key[1]!r}",
        "multiAgent": f"{key[2]!r} of session {key[1]!r}",
        "message": f"{key[3]} of agent {key[2]!r} of session {key[1]!r}",
    }[key[0]]


class ResealSessionRepository(SessionRepository):
    """Strands' ``SessionRepository`` over a :class:`ResealBinding`:
    ``Agent(session_manager=RepositorySessionManager(session_id=…, session_repository=ResealSessionRepository(binding)))``.

    Writes are serialized within this object, each a read that proves the history, then one
    sealed record that counts only once proven. Each method raises what the binding raises:
    :class:`reseal.adapters.StaleWriteRefusedError` when the guard refuses a write,
    :class:`reseal.adapters.SealRefusedError` when the sealer does (a newer generation wrote),
    :class:`reseal.adapters.SealUnprovenError` when a write is sealed but not proven by the deadline,
    :class:`reseal.LogVerificationError` when the history does not verify; a value without a
    canonical JSON form raises :class:`reseal.InvalidInputError` before anything is sealed, and
    what Strands' own repositories refuse (a session or agent that exists already or does not
    exist, a message id that is not the agent's next) raises Strands' ``SessionException``.
    """

    def __init__(self, binding: ResealBinding) -> None:
        self.binding = binding
        self._lock = threading.Lock()

    # Sessions

    def create_session(self, session: Session, **kwargs: Any) -> Session:
        """Seals the session; ``SessionException`` when it exists."""
        with self._lock:
            live = self._live()
            if _session_key(session.session_id) in live:
                raise SessionException(f"Session {session.session_id} already exists")
            self._seal("session", session.session_id, session.to_dict(), None, what="create_session")
        return session

    def read_session(self, session_id: str, **kwargs: Any) -> Session | None:
        """The live session, proven; ``None`` when there is none."""
        record = self._live().get(_session_key(session_id))
        return None if record is None else Session.from_dict(record.payload["value"])

    def delete_session(self, session_id: str, **kwargs: Any) -> None:
        """Seals a tombstone superseding the session's record: the session and everything in it
        are no longer live; every record stays. ``SessionException`` when there is none."""
        with self._lock:
            current = self._live().get(_session_key(session_id))
            if current is None:
                raise SessionException(f"Session {session_id} does not exist")
            payload = {"format": STRANDS_SESSION_FORMAT, "op": "delete", "kind": "session", "sessionId": session_id}
            self.binding.seal(payload, supersedes=current, what="delete_session")

    # Agents

    def create_agent(self, session_id: str, session_agent: SessionAgent, **kwargs: Any) -> None:
        """Seals the agent; ``SessionException`` when the session does not exist or the agent does."""
        with self._lock:
            live = self._live()
            if _session_key(session_id) not in live:
                raise SessionException(f"Session {session_id} does not exist")
            if _agent_key(session_id, session_agent.agent_id) in live:
                raise SessionException(f"Agent {session_agent.agent_id} in session {session_id} already exists")
            value = session_agent.to_dict()
            self._seal("agent", session_id, value, None, agent_id=session_agent.agent_id, what="create_agent")

    def read_agent(self, session_id: str, agent_id: str, **kwargs: Any) -> SessionAgent | None:
        """The live agent, proven; ``None`` when there is none."""
        record = self._live().get(_agent_key(session_id, agent_id))
        return None if record is None else SessionAgent.from_dict(record.payload["value"])

    def update_agent(self, session_id: str, session_agent: SessionAgent, **kwargs: Any) -> None:
        """Seals the agent's new state superseding its current record (``created_at`` kept);
        ``SessionException`` when it does not exist."""
        with self._lock:
            current = self._live().get(_agent_key(session_id, session_agent.agent_id))
            if current is None:
                raise SessionException(f"Agent {session_agent.agent_id} in session {session_id} does not exist")
            session_agent.created_at = current.payload["value"]["created_at"]
            value = session_agent.to_dict()
            self._seal("agent", session_id, value, current, agent_id=session_agent.agent_id, what="update_agent")

    # Messages

    def create_message(self, session_id: str, agent_id: str, session_message: SessionMessage, **kwargs: Any) -> None:
        """Seals the message. ``SessionException`` when the agent does not exist, or the message
        id is not the agent's next one: a message already there with that id is a stale append
        (another writer appended since), and a gap would make ``list_messages`` lie about positions."""
        with self._lock:
            live = self._live()
            if _agent_key(session_id, agent_id) not in live:
                raise SessionException(f"Agent {agent_id} in session {session_id} does not exist")
            expected = len(_messages(live, session_id, agent_id))
            if session_message.message_id != expected:
                held = "already holds that id" if session_message.message_id < expected else "has no message before it"
                raise SessionException(
                    f"Message {session_message.message_id} of agent {agent_id} refused: the next message id is "
                    f"{expected}; the session {held}"
                )
            value = session_message.to_dict()
            self._seal(
                "message",
                session_id,
                value,
                None,
                agent_id=agent_id,
                message_id=session_message.message_id,
                what="create_message",
            )

    def read_message(self, session_id: str, agent_id: str, message_id: int, **kwargs: Any) -> SessionMessage | None:
        """The message's current version, proven; ``None`` when there is none."""
        record = self._live().get(("message", session_id, agent_id, message_id))
        return None if record is None else SessionMessage.from_dict(record.payload["value"])

    def update_message(self, session_id: str, agent_id: str, session_message: SessionMessage, **kwargs: Any) -> None:
        """Seals the message's new version (a redaction) superseding its current record
        (``created_at`` kept): the original stays in the lineage. ``SessionException`` when it
        does not exist."""
        with self._lock:
            key = ("message", session_id, agent_id, session_message.message_id)
            current = self._live().get(key)
            if current is None:
                raise SessionException(f"Message {session_message.message_id} does not exist")
            session_message.created_at = current.payload["value"]["created_at"]
            value = session_message.to_dict()
            self._seal(
                "message",
                session_id,
                value,
                current,
                agent_id=agent_id,
                message_id=session_message.message_id,
                what="update_message",
            )

    def list_messages(
        self, session_id: str, agent_id: str, limit: int | None = None, offset: int = 0, **kwargs: Any
    ) -> list[SessionMessage]:
        """The agent's messages in message-id order, each its current version, from ``offset``
        (at most ``limit``); ``SessionException`` when the agent does not exist."""
        return [proven.message for proven in self.list_proven_messages(session_id, agent_id, limit, offset)]

    def list_proven_messages(
        self, session_id: str, agent_id: str, limit: int | None = None, offset: int = 0
    ) -> list[ProvenMessage]:
        """As :meth:`list_messages`, each message with the record that proves it and its drift."""
        issues = [
            InputIssue(name, "expected an integer ≥ 0")
            for name, value in (("limit", 0 if limit is None else limit), ("offset", offset))
            if type(value) is not int or value < 0
        ]
        if issues:
            raise InvalidInputError("list_messages", issues)
        live = self._live()
        if _agent_key(session_id, agent_id) not in live:
            raise SessionException(f"Agent {agent_id} in session {session_id} does not exist")
        records = _messages(live, session_id, agent_id)[offset:]
        if limit is not None:
            records = records[:limit]
        return [ProvenMessage(SessionMessage.from_dict(r.payload["value"]), r) for r in records]

    # Multi-agent state

    def create_multi_agent(self, session_id: str, multi_agent: MultiAgentBase, **kwargs: Any) -> None:
        """Seals the multi-agent state (``serialize_state()``); ``SessionException`` when the
        session does not exist or the state does."""
        with self._lock:
            live = self._live()
            if _session_key(session_id) not in live:
                raise SessionException(f"Session {session_id} does not exist")
            if ("multiAgent", session_id, multi_agent.id, -1) in live:
                raise SessionException(f"MultiAgent state {multi_agent.id} in session {session_id} already exists")
            value = multi_agent.serialize_state()
            self._seal("multiAgent", session_id, value, None, agent_id=multi_agent.id, what="create_multi_agent")

    def read_multi_agent(self, session_id: str, multi_agent_id: str, **kwargs: Any) -> dict[str, Any] | None:
        """The multi-agent state, proven; ``None`` when there is none."""
        record = self._live().get(("multiAgent", session_id, multi_agent_id, -1))
        return None if record is None else dict(record.payload["value"])

    def update_multi_agent(self, session_id: str, multi_agent: MultiAgentBase, **kwargs: Any) -> None:
        """Seals the new multi-agent state superseding the current one; ``SessionException`` when
        there is none."""
        with self._lock:
            current = self._live().get(("multiAgent", session_id, multi_agent.id, -1))
            if current is None:
                raise SessionException(f"MultiAgent state {multi_agent.id} in session {session_id} does not exist")
            value = multi_agent.serialize_state()
            self._seal("multiAgent", session_id, value, current, agent_id=multi_agent.id, what="update_multi_agent")

    def _live(self) -> dict[Key, ProvenRecord]:
        return fold_strands_session(self.binding.read())

    def _seal(
        self,
        kind: str,
        session_id: str,
        value: Any,
        supersedes: ProvenRecord | None,
        *,
        agent_id: str | None = None,
        message_id: int | None = None,
        what: str,
    ) -> None:
        value = _plain(value)
        try:
            canonical_bytes(value)
        except CanonicalizationError as error:
            where = ".".join(["value", *error.path.split("/")[1:]])
            raise InvalidInputError(what, [InputIssue(where, error.reason)]) from error
        payload: dict[str, Any] = {"format": STRANDS_SESSION_FORMAT, "op": "put", "kind": kind, "sessionId": session_id}
        if kind == "multiAgent":
            payload["multiAgentId"] = agent_id
        elif agent_id is not None:
            payload["agentId"] = agent_id
        if message_id is not None:
            payload["messageId"] = message_id
        payload["value"] = value
        self.binding.seal(payload, supersedes=supersedes, what=what)


def _session_key(session_id: str) -> Key:
    return ("session", session_id, "", -1)


def _agent_key(session_id: str, agent_id: str) -> Key:
    return ("agent", session_id, agent_id, -1)


def _messages(live: dict[Key, ProvenRecord], session_id: str, agent_id: str) -> list[ProvenRecord]:
    """The agent's live message records in message-id order."""
    keys = sorted(k for k in live if k[0] == "message" and k[1] == session_id and k[2] == agent_id)
    return [live[k] for k in keys]


def _plain(value: Any) -> Any:
    """``value`` with every ``str`` subclass (Strands' ``SessionType``, a ``str`` enum) as the
    plain string it holds; anything else is left for the canonical-form check to judge."""
    if isinstance(value, str):
        return str.__str__(value)
    if type(value) is dict:
        return {_plain(k): _plain(v) for k, v in value.items()}
    if type(value) is list:
        return [_plain(v) for v in value]
    return value
