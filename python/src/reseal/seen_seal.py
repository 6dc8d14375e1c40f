"""The seals of this client's own waited writes seen awaiting integration (docs/verifiable-log.md,
"Checkpoints the client keeps", "Seals seen awaiting integration"): the pure rules of the
TypeScript ``shared/log/seen-seal.ts`` (``addSeenSeal``, ``pruneSeenSeals``,
``seenSealContradiction``), with the same entries, order, limit and reasons.

A seal seen is a dict of the checkpoint file's shape: ``lineageId``, ``residualId``, ``seq``,
``recordHash`` (hex), ``treeSize`` and ``rootHash`` (hex) of the head item's tree that proved it,
and ``seenAtMs`` (the client's clock when it saw it, ms since the Unix epoch).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Final

__all__ = [
    "MAX_SEEN_SEALS_PER_LINEAGE",
    "SeenSealContradiction",
    "add_seen_seal",
    "prune_seen_seals",
    "seen_seal_contradiction",
]

SeenSeal = dict[str, Any]
"""One seal seen (the keys of the module docstring)."""

MAX_SEEN_SEALS_PER_LINEAGE: Final = 64
"""Most seals kept per lineage: the newest (largest seq) are kept."""


@dataclass(frozen=True)
class SeenSealContradiction:
    """A seal seen that the lineage's state no longer holds, and the reason naming it and when it was seen."""

    seen: SeenSeal
    reason: str


def add_seen_seal(entries: Sequence[Mapping[str, Any]], seen: Mapping[str, Any]) -> list[SeenSeal]:
    """``entries`` with ``seen`` added: one entry per ``(seq, recordHash)`` (the first sighting
    stays), sorted by seq (stable), and only the newest :data:`MAX_SEEN_SEALS_PER_LINEAGE` kept."""
    known = any(e["seq"] == seen["seq"] and e["recordHash"] == seen["recordHash"] for e in entries)
    every = [dict(e) for e in entries] + ([] if known else [dict(seen)])
    every.sort(key=lambda e: e["seq"])
    return every[-MAX_SEEN_SEALS_PER_LINEAGE:]


def prune_seen_seals(entries: Sequence[Mapping[str, Any]], indexed_size: int) -> list[SeenSeal]:
    """``entries`` less those an index entry covers (``seq`` below ``indexed_size``, the lineage's
    tree size in the index under a kept deployment checkpoint): from then on that checkpoint
    catches their rollback. The caller has checked them first (:func:`seen_seal_contradiction`)."""
    return [dict(e) for e in entries if e["seq"] >= indexed_size]


def _iso(ms: int) -> str:
    """``ms`` since the Unix epoch as JavaScript's ``Date.toISOString`` writes it (UTC, milliseconds)."""
    try:
        at = datetime.fromtimestamp(ms // 1000, tz=timezone.utc)
    except (OverflowError, OSError, ValueError):
        return f"{ms} ms since the Unix epoch"
    return f"{at.strftime('%Y-%m-%dT%H:%M:%S')}.{ms % 1000:03d}Z"


def seen_seal_contradiction(
    entries: Sequence[Mapping[str, Any]],
    tree_size: int,
    record_hashes: Mapping[int, str],
    absent_residual_id: str | None = None,
) -> SeenSealContradiction | None:
    """The first seal seen awaiting integration that the lineage's state no longer holds
    (docs/verifiable-log.md, "Seals seen awaiting integration"): its residual id found absent, a
    tree smaller than its seq, or another record at its seq. That is a rollback of records not yet
    integrated (a table writer rewound the head and deleted them, with their markers), refused
    whatever the index says; ``None`` when every seal seen is still there.

    :param tree_size: the head item's tree size now (``0``: no head and no records)
    :param record_hashes: the records the reader proved in that tree, by seq: their record hashes (hex)
    :param absent_residual_id: a residual id the reader is about to answer absent, if any
    """
    for seen in entries:
        seq, residual_id, record_hash = seen["seq"], seen["residualId"], seen["recordHash"]
        sighting = (
            f"this client saw residual {residual_id} sealed at seq {seq} (record {record_hash[:16]}…, in the "
            f"head item's tree of {seen['treeSize']} records) at {_iso(seen['seenAtMs'])}, awaiting integration"
        )
        if absent_residual_id == residual_id:
            return SeenSealContradiction(
                dict(seen),
                f"rollback: residual {residual_id} reads absent, but {sighting}: its record and marker were "
                "removed from the table",
            )
        if tree_size <= seq:
            return SeenSealContradiction(
                dict(seen),
                f"rollback: the lineage's tree now holds {tree_size} records, but {sighting}: the head was "
                "rewound over records not yet integrated",
            )
        now = record_hashes.get(seq)
        if now is not None and now != record_hash:
            return SeenSealContradiction(
                dict(seen),
                f"rollback: seq {seq} now holds record {now[:16]}…, but {sighting}: the head was rewound "
                "and resealed over records not yet integrated",
            )
    return None
