"""A residual id sealed twice in one lineage (docs/deployment-log.md, "Integration",
``RESIDUAL_CHANGED``): only the first sealing is a write; the second is a table writer's doing
(a residual marker deleted before the id was integrated), never memory to serve."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["resealed_residual"]


def resealed_residual(records: Sequence[Mapping[str, Any]]) -> tuple[str, int, int] | None:
    """The first residual id two of ``records`` (proven records, in seq order) carry, with the
    seqs of its first and second sealing; ``None`` when every residual id is sealed once."""
    first: dict[str, int] = {}
    for record in records:
        header = record["header"]
        residual_id, seq = header["residualId"], header["monotonicSequenceNumber"]
        if residual_id in first:
            return residual_id, first[residual_id], seq
        first[residual_id] = seq
    return None
