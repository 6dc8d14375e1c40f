"""Shared fixtures: the repository's committed vectors, read in place (never copied), the
artifacts the TypeScript core writes (export-artifacts.ts, run once per session with tsx), and the
online tests' set-up (one deployment, a working directory reading its pin, a client there)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
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


# The online tests (online/): one emulator deployment for every test, the real stack started and
# deployed by the project's own scripts (online/deployed-stack.ts, as the TypeScript integration
# tests do), its stack pin written for ``reseal.connect``; AWS settings point at the emulator only.
_EMULATOR_ENV = {
    "AWS_ACCESS_KEY_ID": "test",
    "AWS_SECRET_ACCESS_KEY": "test",
    "AWS_REGION": "us-east-1",
    "AWS_DEFAULT_REGION": "us-east-1",
}


@pytest.fixture(scope="session")
def deployed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """``{"endpoint", "pin"}`` of the deployed stack; the emulator stops when the session ends."""
    pin = tmp_path_factory.mktemp("stack") / "stack.json"
    script = REPO / "python" / "tests" / "online" / "deployed-stack.ts"
    child = subprocess.Popen(
        ["npx", "--no-install", "tsx", str(script), str(pin)],
        cwd=REPO,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=sys.stderr,
        text=True,
    )
    assert child.stdout is not None and child.stdin is not None
    line = child.stdout.readline()
    if not line:
        child.wait()
        pytest.fail(f"{script.name} exited with {child.returncode} before the stack was deployed (its log is above)")
    stack: dict[str, Any] = json.loads(line)
    saved = {name: os.environ.get(name) for name in [*_EMULATOR_ENV, "AWS_ENDPOINT_URL", "AWS_PROFILE"]}
    os.environ.update({**_EMULATOR_ENV, "AWS_ENDPOINT_URL": stack["endpoint"]})
    os.environ.pop("AWS_PROFILE", None)
    try:
        yield stack
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        child.stdin.close()
        child.wait(timeout=120)


@pytest.fixture
def in_tmp(tmp_path: Path, deployed: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """An online test's fresh working directory (its own writer keys and checkpoint store), with
    the deployment's stack pin as ``$RESEAL_STACK_FILE``."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("RESEAL_STACK_FILE", deployed["pin"])
    yield tmp_path


@pytest.fixture
def client(in_tmp: Path) -> Any:
    """An online test's client (a ``reseal.ResealClient``) with its own writer key
    (``.reseal/agent.pem``) and checkpoint store, in ``in_tmp``."""
    import reseal

    return reseal.connect(writer_key=".reseal/agent.pem")


def run_cli(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """The TypeScript CLI (``reseal``, docs/cli.md) run from this checkout with ``npx tsx``."""
    return subprocess.run(
        [str(REPO / "node_modules" / ".bin" / "tsx"), str(REPO / "cli" / "main.ts"), *args],
        cwd=cwd,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.fixture(scope="session")
def cli_receipt(deployed: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A format-2 receipt ``reseal export --receipt`` wrote from the deployed stack, of a write the
    Python client published and awaited until proven: ``{"path", "policy", "lineage", "record"}``
    (``policy``: the stack's default tlog-policy, the log key and ``quorum none``)."""
    import reseal

    home = tmp_path_factory.mktemp("cli-receipt")
    client = reseal.connect(pin=deployed["pin"], writer_key=home / "exporter.pem", checkpoints=None)
    assert client.writer is not None
    lineage = reseal.lineage_id_for("cli-export", client.writer.policy())
    request = reseal.write_request(
        residual_id="r-1",
        lineage_id=lineage,
        session_id="s-1",
        generation_epoch=1,
        payload={"note": "exported by the CLI"},
        boundary_at_ms=int(time.time() * 1000) - 1000,
        manifest={"env": {"DB_HOST": "db-1"}, "structuralKeys": [], "claimDependencyMap": {"db": ["DB_HOST"]}},
    )
    outcome = client.wait_for_outcome(client.publish(request), timeout_s=240, until_proven=True)
    assert outcome.freshness is not None and outcome.freshness.state == "PROVEN", outcome.freshness
    path = home / "receipt.json"
    done = run_cli(
        ["export", "--lineage", lineage, "--receipt", "--seq", "0", "--out", str(path)],
        home,
        {"RESEAL_STACK_FILE": deployed["pin"]},
    )
    assert done.returncode == 0, f"reseal export --receipt failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
    return {
        "path": path,
        "policy": reseal.default_policy_text(client.stack.log_key),
        "lineage": lineage,
        "record": outcome.record,
    }
