"""FileCheckpointStore shares the TypeScript client's file: same bytes, same atomic-rename rule."""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO

from reseal import CheckpointFileError, FileCheckpointStore, MemoryCheckpointStore, open_checkpoint, parse_verifier_key


def test_reads_the_file_the_typescript_client_wrote_and_writes_the_same_bytes(
    ts_artifacts: dict[str, Any], tmp_path: Path
) -> None:
    written_by_ts: Path = ts_artifacts["storePath"]
    origin = ts_artifacts["origin"]
    note = FileCheckpointStore(written_by_ts).load(origin)
    assert note == ts_artifacts["receipts"][0]["checkpoint"]
    assert open_checkpoint(note, parse_verifier_key(ts_artifacts["verifierKey"]), origin).size == 3
    ours = tmp_path / "nested" / "checkpoints.json"
    FileCheckpointStore(ours).save(origin, note)
    assert ours.read_bytes() == written_by_ts.read_bytes()


def test_save_replaces_one_key_atomically_with_mode_0600(tmp_path: Path) -> None:
    path = tmp_path / "store.json"
    store = FileCheckpointStore(path)
    assert store.load("a") is None
    store.save("a", "note a\n")
    store.save("b/caf\u00e9", "note b\n")
    store.save("a", "note a2\n")
    assert FileCheckpointStore(path).load("a") == "note a2\n"
    assert store.load("b/caf\u00e9") == "note b\n"
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["store.json"]
    assert '"b/caf\u00e9"' in path.read_text("utf-8")


@pytest.mark.parametrize(
    "text",
    ["not json", '{"formatVersion": 4, "checkpoints": {}}',
     '{"formatVersion": 2, "checkpoints": {}, "seenSeals": {}}',
     '{"formatVersion": 3, "checkpoints": {}, "seenSeals": {"k": [{"seq": 1}]}}', '{"formatVersion": 1, "checkpoints": {"a": 1}}',
     '{"formatVersion": 1, "checkpoints": {"a": "x", "a": "y"}}', '{"formatVersion": 1}'],
)  # fmt: skip
def test_a_file_that_is_not_a_checkpoint_file_is_refused(tmp_path: Path, text: str) -> None:
    path = tmp_path / "store.json"
    path.write_text(text)
    with pytest.raises(CheckpointFileError):
        FileCheckpointStore(path).load("a")


def test_a_format_1_file_is_read_and_written_back_as_format_3(tmp_path: Path) -> None:
    # docs/verifiable-log.md, "Checkpoints the client keeps": format 2 also keeps deployment checkpoints.
    path = tmp_path / "store.json"
    path.write_text('{"formatVersion": 1, "checkpoints": {"reseal/s/lin-1": "note-1"}}')
    store = FileCheckpointStore(path)
    assert store.load("reseal/s/lin-1") == "note-1"
    store.save("reseal/s", "deployment-note")
    assert json.loads(path.read_text("utf-8")) == {
        "formatVersion": 3,
        "checkpoints": {"reseal/s/lin-1": "note-1", "reseal/s": "deployment-note"},
    }


SEEN = {
    "lineageId": "lin-1", "residualId": "r-2", "seq": 2, "recordHash": "ab" * 32, "treeSize": 3,
    "rootHash": "cd" * 32, "seenAtMs": 1767225600000,
}  # fmt: skip


def test_the_seals_seen_of_a_format_3_file_are_read_and_kept_through_every_save(tmp_path: Path) -> None:
    # docs/verifiable-log.md, "Seals seen awaiting integration": the TypeScript client's memory of
    # seals awaiting integration lives in the shared file; a Python save never drops it.
    path = tmp_path / "store.json"
    seen = {"reseal/s/lin-1": [SEEN]}
    path.write_text(json.dumps({"formatVersion": 3, "checkpoints": {"reseal/s": "d"}, "seenSeals": seen}))
    store = FileCheckpointStore(path)
    assert store.load_seen_seals("reseal/s/lin-1") == [SEEN]
    assert store.load_seen_seals("reseal/s/other") == []
    store.save("reseal/s/lin-1", "lineage-note")
    assert json.loads(path.read_text("utf-8")) == {
        "formatVersion": 3,
        "checkpoints": {"reseal/s": "d", "reseal/s/lin-1": "lineage-note"},
        "seenSeals": seen,
    }


TS_SEEN = """
import { FileCheckpointStore } from './client/file-checkpoint-store';
const [path, key, seal] = process.argv.slice(-3);
const store = new FileCheckpointStore(path);
void store.updateSeenSeals(key, (current) => [...current, JSON.parse(seal)]);
"""


def test_a_seal_seen_by_the_typescript_client_survives_a_python_save(tmp_path: Path) -> None:
    path = tmp_path / "store.json"
    FileCheckpointStore(path).save("reseal/s", "python note\n")
    done = subprocess.run(
        [str(REPO / "node_modules" / ".bin" / "tsx"), "--eval", TS_SEEN, "--", str(path), "reseal/s/lin-1",
         json.dumps(SEEN)],
        cwd=REPO, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    store = FileCheckpointStore(path)
    store.save("reseal/s", "python note 2\n")
    assert store.load_seen_seals("reseal/s/lin-1") == [SEEN]
    assert json.loads(path.read_text("utf-8"))["formatVersion"] == 3


def test_memory_store() -> None:
    store = MemoryCheckpointStore()
    store.save("k", "n")
    assert store.load("k") == "n" and store.load("other") is None


TS_STORE = """
import { FileCheckpointStore } from './client/file-checkpoint-store';
const [path, read, key, note] = process.argv.slice(-4);
const store = new FileCheckpointStore(path);
void store.load(read).then(async (loaded) => {
  await store.save(key, note);
  process.stdout.write(JSON.stringify({ loaded }));
});
"""


def test_a_file_written_by_one_client_is_read_and_extended_by_the_other(tmp_path: Path) -> None:
    # docs/python.md, "Kept checkpoints": one file, one format, one save rule (read, set one key,
    # write <path>.<pid>.tmp, rename), whichever client saves. Keys and notes beyond ASCII, with
    # the newlines every signed note carries.
    path = tmp_path / "shared" / "checkpoints.json"
    FileCheckpointStore(path).save("reseal/s/caf\u00e9", "python note\n\u2014 sig\n")
    done = subprocess.run(
        [str(REPO / "node_modules" / ".bin" / "tsx"), "--eval", TS_STORE, "--", str(path), "reseal/s/caf\u00e9",
         "reseal/s/\u00fcber", "typescript note\n\u2014 sig\n"],
        cwd=REPO, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"loaded": "python note\n\u2014 sig\n"}
    store = FileCheckpointStore(path)
    assert store.load("reseal/s/caf\u00e9") == "python note\n\u2014 sig\n"
    assert store.load("reseal/s/\u00fcber") == "typescript note\n\u2014 sig\n"
    typescript_bytes = path.read_bytes()
    store.save("reseal/s/\u00fcber", "typescript note\n\u2014 sig\n")  # the same content, rewritten here
    assert path.read_bytes() == typescript_bytes
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert sorted(p.name for p in path.parent.iterdir()) == ["checkpoints.json"]


def test_concurrent_saves_from_threads_keep_valid_json_and_every_key(tmp_path: Path) -> None:
    """docs/python.md, the checkpoint store's concurrency rule: saves of one store run one at a time."""
    import threading

    path = tmp_path / "checkpoints.json"
    store = FileCheckpointStore(path)
    for round_ in range(50):
        start = threading.Barrier(2)

        def save(key: str, note: str, start: threading.Barrier = start) -> None:
            start.wait()
            store.save(key, note)

        threads = [
            threading.Thread(target=save, args=("reseal/s", f"deployment-{round_}")),
            threading.Thread(target=save, args=(f"reseal/s/lin-{round_}", "lineage")),
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        checkpoints = json.loads(path.read_text())["checkpoints"]
        assert checkpoints["reseal/s"] == f"deployment-{round_}"
        assert all(checkpoints[f"reseal/s/lin-{earlier}"] == "lineage" for earlier in range(round_ + 1))
    assert sorted(os.listdir(tmp_path)) == ["checkpoints.json"]


@pytest.mark.parametrize("store_of", [FileCheckpointStore, lambda _path: MemoryCheckpointStore()])
def test_a_save_refused_by_replaces_keeps_the_note_read_right_before_the_write(tmp_path: Path, store_of: Any) -> None:
    """docs/python.md: a save decided on an older read never moves a key back."""
    store = store_of(tmp_path / "checkpoints.json")
    store.save("reseal/s/lin", "newer")
    store.save("reseal/s/lin", "older", lambda current: current is None)
    assert store.load("reseal/s/lin") == "newer"
    store.save("reseal/s/lin", "newest", lambda current: current == "newer")
    assert store.load("reseal/s/lin") == "newest"
