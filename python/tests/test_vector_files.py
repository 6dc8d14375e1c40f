"""Every committed vector file is read by some test here, so a new file shows up as a failure."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import VECTORS


def test_every_vector_file_is_read_by_a_python_test() -> None:
    sources = "\n".join(p.read_text("utf-8") for p in Path(__file__).parent.glob("test_*.py"))
    read = set(re.findall(r'vectors\("([^"]+\.json)"\)', sources))
    committed = {p.name for p in VECTORS.glob("*.json")}
    assert committed, f"no vector files found in {VECTORS}"
    unread = sorted(committed - read)
    assert not unread, f"vector files no Python test reads (add a test in python/tests/): {unread}"
    missing = sorted(read - committed)
    assert not missing, f"Python tests read vector files that are not committed: {missing}"
