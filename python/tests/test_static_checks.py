"""The package is typed (``py.typed``, ``mypy --strict``) and lint-clean (ruff), as its pyproject
configures them; caches go nowhere, so a run leaves the tree as it was."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1]


def run(args: list[str]) -> None:
    done = subprocess.run(args, cwd=PACKAGE, capture_output=True, text=True, check=False)
    assert done.returncode == 0, f"{' '.join(args)}:\n{done.stdout}\n{done.stderr}"


def test_mypy_strict() -> None:
    run([sys.executable, "-m", "mypy", "--cache-dir", "/dev/null", "src"])


def test_ruff_lint_and_format() -> None:
    run([sys.executable, "-m", "ruff", "check", "--no-cache", "src", "tests"])
    run([sys.executable, "-m", "ruff", "format", "--no-cache", "--check", "src", "tests"])
