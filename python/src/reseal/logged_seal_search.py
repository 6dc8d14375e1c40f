"""The search for a residual id's seal in a lineage's signed log (docs/deployment-log.md,
"Clients", item 3; docs/cli.md, ``publish --wait``), as the TypeScript ``searchLoggedSeal``
(``client/logged-seal-search.ts``) runs it: newest record first, each proven by inclusion in one
tree head, where a table writer cannot hide a seal by deleting its residual-id marker."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

from .log import Checkpoint

__all__ = ["MAX_HIDDEN_SEAL_SCAN", "LoggedSealSearch", "search_logged_seal"]

MAX_HIDDEN_SEAL_SCAN: Final = 256
"""Most records of a lineage one :func:`search_logged_seal` reads, newest first: a seal is looked
for among the records sealed lately, a bounded number of reads even on a busy lineage (the
TypeScript client's bound)."""


@dataclass(frozen=True)
class LoggedSealSearch:
    """The record found (``FOUND``: its ``seq`` and the proven ``record``), or how much was searched
    without finding it (``NOT_FOUND``): ``records`` from ``from_seq`` to the tree head's size,
    ``searched`` read and proven newest first (fewer past the bound or ``since_ms``), and
    ``complete``, whether every record that could hold it was read."""

    kind: Literal["FOUND", "NOT_FOUND"]
    seq: int | None = None
    record: dict[str, Any] | None = None
    records: int = 0
    searched: int = 0
    complete: bool = True


def search_logged_seal(
    prove_in: Callable[[int, Checkpoint], dict[str, Any]],
    residual_id: str,
    latest: Checkpoint,
    *,
    from_seq: int = 0,
    since_ms: int | None = None,
    matches: Callable[[Mapping[str, Any]], bool] | None = None,
) -> LoggedSealSearch:
    """Looks for ``residual_id``'s seal among records ``from_seq`` … ``latest.size - 1``, newest
    first, at most :data:`MAX_HIDDEN_SEAL_SCAN` of them.

    :param prove_in: record ``seq`` read and proven by inclusion in the tree head given (the
        client's ``_included_record``)
    :param from_seq: the search stops below this seq (the lineage's indexed size: what the index
        already answers for)
    :param since_ms: a record sealed before this time (ms) ends the search: no older one can be it
    :param matches: a record of the residual id counts only when this holds (it binds the write)
    :raises LogVerificationError: what ``prove_in`` raises for a record that does not prove
    """
    start = max(0, from_seq)
    last = latest.size - 1
    records = max(0, last + 1 - start)
    searched = 0
    for seq in range(last, start - 1, -1):
        if searched >= MAX_HIDDEN_SEAL_SCAN:
            return LoggedSealSearch("NOT_FOUND", records=records, searched=searched, complete=False)
        record = prove_in(seq, latest)
        searched += 1
        if since_ms is not None and record["sealedAtMs"] < since_ms:
            return LoggedSealSearch("NOT_FOUND", records=records, searched=searched, complete=True)
        if record["header"]["residualId"] != residual_id:
            continue
        if matches is not None and not matches(record):
            continue
        return LoggedSealSearch("FOUND", seq=seq, record=record)
    return LoggedSealSearch("NOT_FOUND", records=records, searched=searched, complete=True)
