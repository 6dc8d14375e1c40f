"""The built wheel installs into a fresh virtual environment and verifies receipts the TypeScript
core exported, with no AWS and nothing from this checkout on the path: a format-1 receipt with the
log key, the format-2 receipt of test/vectors/receipt-v2.json with its tlog-policy and maximum age,
and the format-2 receipt ``reseal export --receipt`` wrote from the deployed stack on the emulator
(docs/verifiable-log.md, "Receipts")."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from conftest import REPO, vectors

VERIFY = """
import sys, reseal
from pathlib import Path
assert Path(reseal.__file__).resolve().is_relative_to(Path(sys.prefix).resolve()), reseal.__file__
result = reseal.verify_receipt(Path(sys.argv[1]).read_bytes(), sys.argv[2])
print(result.verdict, result.reason)
sys.exit(0 if result.verdict == "VERIFIED_INTACT" else 1)
"""

VERIFY_CHAIN = """
import sys, reseal
from pathlib import Path
assert Path(reseal.__file__).resolve().is_relative_to(Path(sys.prefix).resolve()), reseal.__file__
policy, now, max_age = Path(sys.argv[2]).read_text("utf-8"), int(sys.argv[3]), int(sys.argv[4])
result = reseal.verify_receipt(Path(sys.argv[1]).read_bytes(), policy=policy, now_seconds=now, max_age_seconds=max_age)
print(result.verdict, result.refusal, result.reason)
sys.exit(0 if result.verdict == "VERIFIED_INTACT" else 1)
"""


def run(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, f"{' '.join(args)} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
    return done.stdout


def test_wheel_installs_in_a_fresh_venv_and_verifies_an_exported_receipt(
    ts_artifacts: dict[str, Any], cli_receipt: dict[str, Any], tmp_path: Path
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
    chain = vectors("receipt-v2.json")
    (tmp_path / "receipt-v2.json").write_text(json.dumps(chain["receipt"]))
    (tmp_path / "policy.txt").write_text(chain["policy"])
    (tmp_path / "verify_chain.py").write_text(VERIFY_CHAIN)
    checked = [
        python,
        str(tmp_path / "verify_chain.py"),
        str(tmp_path / "receipt-v2.json"),
        str(tmp_path / "policy.txt"),
    ]
    out = run([*checked, str(chain["nowSeconds"]), str(chain["maxAgeSeconds"])], tmp_path, env)
    assert out.startswith("VERIFIED_INTACT None")
    # The same receipt past its maximum age is refused there too, with the refusal code.
    late = str(chain["cosignedAt"] + chain["maxAgeSeconds"] + 1)
    done = subprocess.run(
        [*checked, late, str(chain["maxAgeSeconds"])],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert (done.returncode, done.stdout.split(" ")[:2]) == (1, ["UNVERIFIED_TAMPER_RISK", "COSIGNATURES_TOO_OLD"]), (
        done.stderr
    )
    # The receipt the CLI exported from a real stack, with the stack's policy (the log key, quorum none).
    (tmp_path / "stack-policy.txt").write_text(cli_receipt["policy"])
    exported = [python, str(tmp_path / "verify_chain.py"), str(cli_receipt["path"]), str(tmp_path / "stack-policy.txt")]
    out = run([*exported, str(int(time.time())), "180"], tmp_path, env)
    assert out.startswith("VERIFIED_INTACT None"), out
