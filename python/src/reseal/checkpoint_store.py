"""Kept checkpoints (docs/verifiable-log.md, "Checkpoints the client keeps").

:class:`FileCheckpointStore` reads and writes the file of the TypeScript client's
``FileCheckpointStore``, so both clients share one file: ``{"formatVersion": 3, "checkpoints":
{<key>: <signed note>}, "seenSeals": {<lineage origin>: [<seal seen>, ...]}}``, two-space indented,
a final newline, mode 0600. Keys are checkpoint origins: a lineage's ``reseal/<stack>/<lineageId>``
(its signed lineage checkpoint) and, from format 2 on, the deployment log's ``reseal/<stack>`` (the
newest deployment checkpoint the client authenticated). Format 3 adds ``seenSeals`` (omitted when
empty): the seals of its own waited writes a client (TypeScript or Python) saw awaiting integration,
per lineage (docs/verifiable-log.md, "Seals seen awaiting integration"); this store reads them
(:meth:`FileCheckpointStore.load_seen_seals`), changes one lineage's list under the same rule as a
save (:meth:`FileCheckpointStore.update_seen_seals`) and carries them through every save unchanged. Formats 1 and 2 are read as is and written back as
format 3; any other format, or ``seenSeals`` in a format-1 or -2 file, is refused. The concurrency rule is
the same too: saves of one store run one at a time (a lock held by the store, so threads sharing
it never lose a key), each reads the file afresh, sets its one key, writes a temporary file of its
own beside it (``<path>.<pid>.<random>.tmp``) and renames it over the file, so a reader never sees
a half-written file. ``save(key, note, replaces)`` keeps ``note`` only when ``replaces(current)``
is true for the note read right before the write, so a save decided on an older read never moves
a key back. Saves from two processes do not merge (the last rename wins); a lost newer checkpoint
is kept again at the next read. Kept notes are verified again when loaded by whoever uses them, so an
edited file makes a client refuse, never accept.
"""

from __future__ import annotations

import json
import os
import secrets
import threading
from collections.abc import Callable
from typing import Any, Final, Protocol

from ._checks import Checker
from .errors import CheckpointFileError, InvalidInputError
from .strict_json import parse_strict_json

__all__ = ["CheckpointStore", "FileCheckpointStore", "MemoryCheckpointStore", "SeenSealStore"]

MAX_KEY_UNITS: Final = 1024
MAX_NOTE_UNITS: Final = 16_384
FORMAT_VERSION: Final = 3
"""The format written; formats 1, 2 and 3 are read."""
_READ_FORMATS: Final = (1, 2, 3)
MAX_SEEN_SEALS: Final = 1024
_SEEN_SEAL_FIELDS: Final = ("lineageId", "residualId", "seq", "recordHash", "treeSize", "rootHash", "seenAtMs")


class CheckpointStore(Protocol):
    """Where a client keeps the newest checkpoint it verified, per key (a lineage's or the deployment log's origin)."""

    def load(self, key: str) -> str | None: ...

    def save(self, key: str, note: str, replaces: Callable[[str | None], bool] | None = None) -> None: ...


class SeenSealStore(Protocol):
    """A checkpoint store that also keeps the seals seen awaiting integration (format 3's
    ``seenSeals``); a store without these methods remembers none (docs/verifiable-log.md, "Seals
    seen awaiting integration")."""

    def load_seen_seals(self, key: str) -> list[dict[str, Any]]: ...

    def update_seen_seals(self, key: str, update: Callable[[list[dict[str, Any]]], list[dict[str, Any]]]) -> None: ...


class MemoryCheckpointStore:
    """Keeps checkpoints, and the seals seen awaiting integration, for the life of the object."""

    def __init__(self) -> None:
        self._notes: dict[str, str] = {}
        self._seen: dict[str, list[dict[str, Any]]] = {}
        self._updating = threading.Lock()

    def load_seen_seals(self, key: str) -> list[dict[str, Any]]:
        """The seals seen kept under the lineage origin ``key``, oldest seq first."""
        return [dict(seal) for seal in self._seen.get(key, [])]

    def update_seen_seals(self, key: str, update: Callable[[list[dict[str, Any]]], list[dict[str, Any]]]) -> None:
        """Replaces the seals under ``key`` by ``update(current)``, one update at a time; an empty list drops the key."""
        with self._updating:
            after = [dict(seal) for seal in update(self.load_seen_seals(key))]
            if after:
                self._seen[key] = after
            else:
                self._seen.pop(key, None)

    def load(self, key: str) -> str | None:
        return self._notes.get(key)

    def save(self, key: str, note: str, replaces: Callable[[str | None], bool] | None = None) -> None:
        if replaces is not None and not replaces(self._notes.get(key)):
            return
        self._notes[key] = note


class FileCheckpointStore:
    """One JSON file shared with the TypeScript client (see the module docstring).

    :raises CheckpointFileError: on load or save, when the file cannot be read or is not a
        checkpoint file (a missing file is an empty store)
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        self._saving = threading.Lock()

    def load(self, key: str) -> str | None:
        """The note kept under ``key``, or ``None``."""
        return self._read()[0].get(key)

    def load_seen_seals(self, key: str) -> list[dict[str, Any]]:
        """The seals seen awaiting integration kept under the lineage origin ``key`` (format 3), oldest seq first."""
        return [dict(seal) for seal in self._read()[1].get(key, [])]

    def save(self, key: str, note: str, replaces: Callable[[str | None], bool] | None = None) -> None:
        """Keeps ``note`` under ``key``, replacing the file atomically, one save of this store at a time.

        With ``replaces``, keeps it only when ``replaces(current)`` is true for the note in the file
        right before the write (so a key never moves back on a stale read).
        """
        check = Checker()
        check.string(key, "key", MAX_KEY_UNITS, 1)
        check.string(note, "note", MAX_NOTE_UNITS)
        check.raise_if_any("kept checkpoint")
        with self._saving:
            kept, seen = self._read()
            if replaces is not None and not replaces(kept.get(key)):
                return
            self._write({**kept, key: note}, seen)

    def update_seen_seals(self, key: str, update: Callable[[list[dict[str, Any]]], list[dict[str, Any]]]) -> None:
        """Replaces the seals seen under the lineage origin ``key`` by ``update(current)``, under the
        rule of :meth:`save` (one change of this store at a time, the file read afresh right before,
        replaced atomically), as the TypeScript ``updateSeenSeals``: nothing is written when the list
        is unchanged, and a lineage left with no seal loses its key.

        :raises CheckpointFileError: the file cannot be read or is not a checkpoint file
        :raises InvalidInputError: ``key`` or a seal ``update`` returns is not of the file's shape
        """
        check = Checker()
        check.string(key, "key", MAX_KEY_UNITS, 1)
        check.raise_if_any("seen seals")
        with self._saving:
            kept, seen = self._read()
            current = [dict(seal) for seal in seen.get(key, [])]
            after = [dict(seal) for seal in update([dict(seal) for seal in current])]
            if after == current:
                return
            check = Checker()
            _check_seen_seals(check, {key: after})
            check.raise_if_any("seen seals")
            others = {k: v for k, v in seen.items() if k != key}
            self._write(kept, {**others, key: after} if after else others)

    def _write(self, checkpoints: dict[str, str], seen_seals: dict[str, list[Any]]) -> None:
        directory = os.path.dirname(self.path)
        if directory:
            os.makedirs(directory, exist_ok=True)
        temporary = f"{self.path}.{os.getpid()}.{secrets.token_hex(8)}.tmp"
        body: dict[str, Any] = {"formatVersion": FORMAT_VERSION, "checkpoints": checkpoints}
        if seen_seals:
            body["seenSeals"] = seen_seals
        text = json.dumps(body, indent=2, ensure_ascii=False) + "\n"
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(temporary, self.path)

    def _read(self) -> tuple[dict[str, str], dict[str, list[Any]]]:
        try:
            with open(self.path, "rb") as handle:
                data = handle.read()
        except FileNotFoundError:
            return {}, {}
        except OSError as error:
            raise CheckpointFileError(self.path, str(error)) from error
        try:
            parsed: Any = parse_strict_json(data, "checkpoint file")
        except InvalidInputError as error:
            raise CheckpointFileError(self.path, f"not JSON ({error})") from error
        check = Checker()
        if check.obj(parsed, "", ("formatVersion", "checkpoints"), ("seenSeals",)):
            if parsed.get("formatVersion") not in _READ_FORMATS or type(parsed.get("formatVersion")) is not int:
                check.add("formatVersion", "expected 1, 2 or 3")
            elif "seenSeals" in parsed and parsed["formatVersion"] != 3:
                check.add("seenSeals", "seenSeals is a format-3 field")
            _check_seen_seals(check, parsed.get("seenSeals", {}))
            checkpoints = parsed.get("checkpoints")
            if type(checkpoints) is not dict:
                check.add("checkpoints", "expected an object")
            else:
                for key, note in checkpoints.items():
                    check.string(key, "checkpoints", MAX_KEY_UNITS, 1)
                    check.string(note, f"checkpoints.{key}", MAX_NOTE_UNITS)
        if check.issues:
            raise CheckpointFileError(self.path, f"not a checkpoint file ({check.issues[0].message})")
        return dict(parsed["checkpoints"]), {key: list(seals) for key, seals in parsed.get("seenSeals", {}).items()}


def _check_seen_seals(check: Checker, seen: Any) -> None:
    """The ``seenSeals`` of a format-3 file: lineage origin -> list of seals, each of the TypeScript shape."""
    if type(seen) is not dict:
        check.add("seenSeals", "expected an object")
        return
    for key, seals in seen.items():
        check.string(key, "seenSeals", MAX_KEY_UNITS, 1)
        if type(seals) is not list or len(seals) > MAX_SEEN_SEALS:
            check.add(f"seenSeals.{key}", f"expected a list of at most {MAX_SEEN_SEALS} seals")
            continue
        for seal in seals:
            if type(seal) is not dict or set(seal) != set(_SEEN_SEAL_FIELDS):
                check.add(f"seenSeals.{key}", f"expected seals of exactly {', '.join(_SEEN_SEAL_FIELDS)}")
                continue
            for field in ("seq", "treeSize", "seenAtMs"):
                if type(seal[field]) is not int or seal[field] < 0:
                    check.add(f"seenSeals.{key}.{field}", "expected a non-negative integer")
            for field in ("lineageId", "residualId", "recordHash", "rootHash"):
                check.string(seal[field], f"seenSeals.{key}.{field}", 200, 1)
