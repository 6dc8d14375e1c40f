"""A Strands Agents agent whose session is a Reseal lineage (docs/frameworks.md, "Strands Agents").

No model is called: a scripted ``Model`` answers, so Strands' own agent loop and session manager
run as they would with a real one. Needs a deployed stack (``.reseal/stack.json`` from ``reseal
pin``, or ``RESEAL_STACK_FILE``) and AWS settings for it; run ``python examples/strands_session.py``.
"""

import uuid
from collections.abc import AsyncIterator
from typing import Any

from strands import Agent
from strands.models.model import Model
from strands.session.repository_session_manager import RepositorySessionManager

import reseal
from reseal.adapters import ResealBinding
from reseal.adapters.strands import ResealSessionRepository


class ScriptedModel(Model):
    """Answers each turn with the next scripted reply."""

    def __init__(self, *replies: str) -> None:
        self.replies = list(replies)

    def update_config(self, **model_config: Any) -> None:
        pass

    def get_config(self) -> Any:
        return {}

    def structured_output(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError

    async def stream(self, messages: Any, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:  # type: ignore[override]
        yield {"messageStart": {"role": "assistant"}}
        yield {"contentBlockStart": {"start": {}}}
        yield {"contentBlockDelta": {"delta": {"text": self.replies.pop(0)}}}
        yield {"contentBlockStop": {}}
        yield {"messageStop": {"stopReason": "end_turn"}}


client = reseal.connect(writer_key=".reseal/support.pem")
assert client.writer is not None
lineage = reseal.lineage_id_for(f"support-{uuid.uuid4().hex[:8]}", client.writer.policy())
env = {"ORDERS_DB": "orders-1", "HOSTNAME": "runner-1"}
binding = ResealBinding(
    client, lineage, session_id="s-1", generation_epoch=1, snapshot=lambda: dict(env), causal_keys=["ORDERS_DB"]
)


def support_agent(*replies: str) -> Agent:
    """A Strands agent whose session manager keeps the conversation in the Reseal lineage."""
    repository = ResealSessionRepository(binding)
    manager = RepositorySessionManager(session_id="chat-1", session_repository=repository)
    return Agent(model=ScriptedModel(*replies), callback_handler=None, agent_id="support", session_manager=manager)


support_agent("Noted: order #1234.")("My order is #1234.")
env["ORDERS_DB"] = "orders-2"  # the database the first answers rested on moved
resumed = support_agent("Order #1234 ships tomorrow.")  # a new process: the history is read back, proven
print("resumed with:", [m["content"][0]["text"] for m in resumed.messages])
resumed("When does it ship?")
for proven in ResealSessionRepository(binding).list_proven_messages("chat-1", "support"):
    text = proven.message.to_message()["content"][0]["text"]
    print(f"message {proven.message.message_id} (seq {proven.proof.seq}): {text!r} drifted={proven.proof.drifted}")
print("records sealed:", len(client.proven_records(lineage)[0]))
