"""Shared fixtures: the repository's committed vectors, read in place (never copied), and the
artifacts the TypeScript core writes (export-artifacts.ts, run once per session with tsx)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from reseal import parse_strict_json

REPO = Path(__file__).resolve().parents[2]
VECTORS = REPO / "test" / "vectors"


def vectors(name: str) -> Any:
    """A committed vector file of test/vectors/, read with the strict reader."""
    return parse_strict_json((VECTORS / name).read_bytes(), name)


@pytest.fixture(scope="session")
def ts_artifacts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """What the TypeScript core writes: receipts, a signed rejection, a checkpoint store file."""
    store = tmp_path_factory.mktemp("ts") / "checkpoints.json"
    script = REPO / "python" / "tests" / "export-artifacts.ts"
    done = subprocess.run(
        ["npx", "--no-install", "tsx", str(script), str(store)],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, f"npx tsx {script.name} failed:\n{done.stdout}\n{done.stderr}"
    artifacts: dict[str, Any] = json.loads(done.stdout)
    artifacts["storePath"] = store
    return artifacts
