"""One emulator deployment for every online test: the real stack, started and deployed by the
project's own scripts (deployed-stack.ts, as the TypeScript integration tests do), its stack pin
written for ``reseal.connect``; AWS settings point at the emulator only (never a real account)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[3]
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
