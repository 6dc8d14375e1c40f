"""Each adapter's example (python/examples/) runs against the deployed stack as written."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def run_example(name: str, cwd: Path, pin: str) -> str:
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / name)],
        cwd=cwd,
        env={**os.environ, "RESEAL_STACK_FILE": pin},
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert done.returncode == 0, f"{name} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        (
            "openai_agents_session.py",
            [
                "popped: (a reply to take back)",
                "seq 0: 'My order is #1234.' drift=FULL_RECONSTRUCTION_REQUIRED",
                "seq 1: 'Noted: order #1234.' drift=FULL_RECONSTRUCTION_REQUIRED",
                "records sealed: 4",
            ],
        ),
        (
            "langgraph_store.py",
            [
                "diet: {'food': 'vegan'} proven at seq 1 of 4",
                "drift: FULL_RECONSTRUCTION_REQUIRED invalidated: ['memory']",
                "namespaces: [('users', 'u1')]",
                "deleted db: None",
            ],
        ),
        (
            "strands_session.py",
            [
                "resumed with: ['My order is #1234.', 'Noted: order #1234.']",
                "message 0 (seq 2): 'My order is #1234.' drifted=True",
                "message 1 (seq 4): 'Noted: order #1234.' drifted=True",
                "message 2 (seq 5): 'When does it ship?' drifted=False",
                "message 3 (seq 7): 'Order #1234 ships tomorrow.' drifted=False",
                "records sealed: 8",
            ],
        ),
    ],
)
def test_the_example_runs_against_the_emulator(
    name: str, expected: list[str], tmp_path: Path, deployed: dict[str, Any]
) -> None:
    assert run_example(name, tmp_path, deployed["pin"]).splitlines() == expected
