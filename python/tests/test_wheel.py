"""The built wheel installs into a fresh virtual environment and verifies a receipt the
TypeScript core exported, with no AWS and nothing from this checkout on the path."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from conftest import REPO

VERIFY = """
import sys, reseal
from pathlib import Path
assert Path(reseal.__file__).resolve().is_relative_to(Path(sys.prefix).resolve()), reseal.__file__
result = reseal.verify_receipt(Path(sys.argv[1]).read_bytes(), sys.argv[2])
print(result.verdict, result.reason)
sys.exit(0 if result.verdict == "VERIFIED_INTACT" else 1)
"""


def run(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, f"{' '.join(args)} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
    return done.stdout


def test_wheel_installs_in_a_fresh_venv_and_verifies_an_exported_receipt(
    ts_artifacts: dict[str, Any], tmp_path: Path
) -> None:
    dist = tmp_path / "dist"
    run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(dist), str(REPO / "python")],
        tmp_path,
    )
    wheels = list(dist.glob("reseal-*.whl"))
    assert len(wheels) == 1, wheels
    fresh = tmp_path / "fresh"
    run([sys.executable, "-m", "venv", str(fresh)], tmp_path)
    python = str(fresh / "bin" / "python")
    run([python, "-m", "pip", "install", "--disable-pip-version-check", "-q", str(wheels[0])], tmp_path)
    receipt = tmp_path / "receipt.json"
    receipt.write_text(json.dumps(ts_artifacts["receipts"][2]))
    script = tmp_path / "verify.py"
    script.write_text(VERIFY)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "PYTHON"))}
    out = run([python, str(script), str(receipt), ts_artifacts["verifierKey"]], tmp_path, env)
    assert out.startswith("VERIFIED_INTACT")
