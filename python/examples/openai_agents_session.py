"""An OpenAI Agents SDK session whose history is a Reseal lineage (docs/frameworks.md).

No model is called: the session is driven as ``Runner.run(agent, input, session=session)`` drives
it. Needs a deployed stack (``.reseal/stack.json`` from ``reseal pin``, or ``RESEAL_STACK_FILE``)
and AWS settings for it; run ``python examples/openai_agents_session.py``.
"""

import asyncio
import uuid

import reseal
from reseal.adapters import ResealBinding
from reseal.adapters.openai_agents import ResealSession

client = reseal.connect(writer_key=".reseal/agent-7.pem")
assert client.writer is not None
lineage = reseal.lineage_id_for(f"support-chat-{uuid.uuid4().hex[:8]}", client.writer.policy())
env = {"MODEL": "gpt-5", "REGION": "eu-west-1"}
session = ResealSession(
    ResealBinding(client, lineage, session_id="s-1", generation_epoch=1, snapshot=lambda: dict(env))
)


async def main() -> None:
    await session.add_items([{"role": "user", "content": "My order is #1234."}])
    await session.add_items([{"role": "assistant", "content": "Noted: order #1234."}])
    await session.add_items([{"role": "assistant", "content": "(a reply to take back)"}])
    print("popped:", (await session.pop_item() or {}).get("content"))
    env["REGION"] = "us-east-1"  # the environment moved since the items were sealed
    for proven in await session.get_proven_items():
        drift = proven.proof.drift or {}
        print(f"seq {proven.proof.seq}: {proven.item['content']!r} drift={drift.get('verdict')}")
    print("records sealed:", len(client.proven_records(lineage)[0]))


asyncio.run(main())
