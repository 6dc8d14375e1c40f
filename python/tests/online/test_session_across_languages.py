"""One session, two languages (docs/frameworks.md, "Session items as residuals"): the Python and
the TypeScript ``ResealSession`` write the same session-item records to one lineage on the
deployed stack, and each reads, proven, what the other wrote, removals included. The payload
level is held by test_session_items.py and test/vectors/session-item.json; this is the stack."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import uuid
from pathlib import Path
from typing import Any

from conftest import REPO

import reseal
from reseal.adapters import ResealBinding
from reseal.adapters.openai_agents import ResealSession

SCRIPT = Path(__file__).with_name("ts-session.ts")


def typescript(lineage_id: str, ops: list[Any]) -> dict[str, Any]:
    """Runs ``ops`` through the TypeScript session with this client's key and checkpoint files."""
    done = subprocess.run(
        [
            "npx", "--no-install", "tsx", str(SCRIPT),
            str(Path(".reseal/agent.pem").resolve()), lineage_id, str(Path(".reseal/checkpoints.json").resolve()),
            "s-1", "1", json.dumps(ops),
        ],
        cwd=REPO,
        env=dict(os.environ),
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, f"{SCRIPT.name} failed:\n{done.stdout}\n{done.stderr}"
    result: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return result


def test_a_session_written_in_one_language_reads_the_same_in_the_other(client: reseal.ResealClient) -> None:
    assert client.writer is not None
    lineage_id = reseal.lineage_id_for(f"both-{uuid.uuid4().hex[:8]}", client.writer.policy())
    session = ResealSession(ResealBinding(client, lineage_id, session_id="s-1", generation_epoch=1))
    asked = {"role": "user", "content": "Où est ma commande #1234 ?"}
    asyncio.run(session.add_items([asked, {"role": "user", "content": "(sent twice)"}]))
    assert asyncio.run(session.pop_item()) == {"role": "user", "content": "(sent twice)"}

    answer = {"type": "message", "role": "assistant", "status": "completed", "content": [{"type": "output_text", "text": "Shipped."}]}  # fmt: skip
    typed = typescript(lineage_id, [{"add": [answer, {"type": "message", "role": "user", "content": "oops"}]}, "pop"])
    assert typed["items"] == [asked, answer]  # Python's pop folded by TypeScript
    assert typed["popped"] == [{"type": "message", "role": "user", "content": "oops"}]
    assert asyncio.run(session.get_items()) == [asked, answer]  # TypeScript's add and pop folded by Python

    asyncio.run(session.clear_session())
    assert typescript(lineage_id, [])["items"] == []
    assert typescript(lineage_id, [{"add": [asked]}, "clear", {"add": [answer]}])["items"] == [answer]
    assert asyncio.run(session.get_items()) == [answer]
    records, _ = client.proven_records(lineage_id)
    assert [r["payload"]["op"] for r in records] == [
        "add",
        "add",
        "pop",
        "add",
        "add",
        "pop",
        "clear",
        "add",
        "clear",
        "add",
    ]
    assert {r["payload"]["format"] for r in records} == {"reseal.session-item/1"}
