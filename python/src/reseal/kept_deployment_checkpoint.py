"""A deployment checkpoint a client kept, against the published one (docs/deployment-log.md,
"Re-anchor", "What clients see"): one history, another history an operator's re-anchor accounts
for, or a fork. The same decision as the TypeScript ``checkKeptDeploymentCheckpoint``
(``shared/integrator/kept-deployment-checkpoint.ts``), pure.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from .log import Checkpoint, verify_consistency
from .re_anchor import ReAnchorNotice

__all__ = ["KeptCheckpointFinding", "check_kept_deployment_checkpoint"]


@dataclass(frozen=True)
class KeptCheckpointFinding:
    """``CONSISTENT`` (the current one extends the kept one, RFC 9162), ``EXPLAINED_BY_RE_ANCHOR``
    (the kept checkpoint lies in the leaves the restore lost; ``re_anchor`` is the notice that says
    so), ``NOT_NEWEST`` (the kept one is larger and nothing shows two histories: the table shows an
    older state than the log signed, a rollback) or ``FORK`` (two histories nothing accounts for: a
    fork under the log key, or a re-anchor not shown), with ``reason``."""

    kind: Literal["CONSISTENT", "EXPLAINED_BY_RE_ANCHOR", "NOT_NEWEST", "FORK"]
    reason: str
    re_anchor: ReAnchorNotice | None = None
    chain: tuple[ReAnchorNotice, ...] = ()
    """For ``EXPLAINED_BY_RE_ANCHOR``: the statements from ``re_anchor`` to the current history's,
    oldest first, each linked to the next ("A chain of re-anchors")."""


def check_kept_deployment_checkpoint(
    kept: Checkpoint,
    current: Checkpoint,
    re_anchor: ReAnchorNotice | None,
    consistency: Sequence[bytes],
    earlier: Sequence[ReAnchorNotice] = (),
    kept_time_seconds: int | None = None,
) -> KeptCheckpointFinding:
    """Compares ``kept`` with ``current`` (both verified with the log key; the TypeScript
    ``checkKeptDeploymentCheckpoint``): ``CONSISTENT`` when ``consistency`` (RFC 9162, smaller to
    larger; empty for equal sizes) shows the current one extends the kept one; else
    ``EXPLAINED_BY_RE_ANCHOR`` when the current history is re-anchored (``re_anchor``, from its
    verified chain) and the kept checkpoint is larger than the restored head, at most the lost one,
    and that very checkpoint at its size, by that statement or by one of ``earlier`` (the head's
    ``reAnchorChain``, oldest first, verified with :func:`reseal.verify_re_anchor_chain`) linked
    statement by statement to it (docs/deployment-log.md, "A chain of re-anchors"), **and** the
    kept checkpoint is older than that statement: ``kept_time_seconds`` (when a quorum of the
    policy's witnesses had cosigned the kept note, :func:`reseal.quorum_cosigned_at`) is before the
    statement's ``time``, or, with no such time, the kept one is no larger than the current one
    (the size range alone explains nothing larger: a head of the re-anchored history put back under
    a newer one falls in it too; "What clients see"). Else a larger kept one is ``NOT_NEWEST`` (a
    rollback), or ``FORK`` when a proof given shows the current is no prefix of it; any other is
    ``FORK``. Never raises."""
    if kept.origin != current.origin:
        return KeptCheckpointFinding("FORK", f"the kept checkpoint is of {kept.origin}, not {current.origin}")
    kept_larger = kept.size > current.size
    older, newer = (current, kept) if kept_larger else (kept, current)
    consistent = verify_consistency(older.size, newer.size, older.root_hash, newer.root_hash, list(consistency))
    if consistent and not kept_larger:
        return KeptCheckpointFinding(
            "CONSISTENT", f"the kept checkpoint of {kept.size} and the current one of {current.size} are one history"
        )

    def before(statement: ReAnchorNotice) -> bool:
        if kept_time_seconds is None:
            return not kept_larger
        return kept_time_seconds < statement.time_seconds

    if re_anchor is not None and not consistent:
        explained = _explain_by_chain(kept, [*earlier, re_anchor], before)
        if isinstance(explained, tuple):
            first = explained[0]
            via = (
                f", then {len(explained) - 1} later re-anchor(s) up to the current history"
                if len(explained) > 1
                else ""
            )
            return KeptCheckpointFinding(
                "EXPLAINED_BY_RE_ANCHOR",
                f"the kept checkpoint of {kept.size} is of the history the operator re-anchored at "
                f"{first.restored_size} (lost up to {first.lost_size}: {first.reason}){via}",
                first,
                explained,
            )
        if explained == "TWO_ROOTS":
            return KeptCheckpointFinding(
                "FORK",
                f"two roots at size {kept.size} under the log key: the kept one and the lost one the re-anchor "
                "statement names",
            )
    if kept_larger and (consistent or not consistency):
        return KeptCheckpointFinding(
            "NOT_NEWEST",
            f"the current checkpoint of {current.size} is older than the kept one of {kept.size}: the table shows a "
            "rolled-back state of the log",
        )
    if kept.size == current.size and kept.root_hash != current.root_hash:
        return KeptCheckpointFinding(
            "FORK", f"two roots at size {kept.size} under the log key, and no re-anchor accounts for the kept one"
        )
    return KeptCheckpointFinding(
        "FORK",
        f"the kept checkpoint of {kept.size} and the current one of {current.size} are two histories, and no "
        "re-anchor accounts for the kept one",
    )


def _linked(older: ReAnchorNotice, newer: ReAnchorNotice) -> bool:
    """Whether ``newer`` re-anchored the history ``older`` began: another statement, made no
    earlier, whose lost checkpoint lies past ``older``'s re-anchor leaf."""
    return (
        older.statement_hash != newer.statement_hash
        and newer.time_seconds >= older.time_seconds
        and newer.lost_size > older.restored_size
    )


def _explain_by_chain(
    kept: Checkpoint, chain: Sequence[ReAnchorNotice], before: Callable[[ReAnchorNotice], bool]
) -> tuple[ReAnchorNotice, ...] | str | None:
    """The statements from the one whose lost part holds ``kept`` to the newest, when linked from
    there on; ``"TWO_ROOTS"`` when none does but one names a lost checkpoint of ``kept``'s size with
    another root; else ``None``. A broken link stops the search; a statement ``kept`` is not shown
    ``before`` explains nothing, and its lost root proves no fork either."""
    two_roots = False
    for j in range(len(chain) - 1, -1, -1):
        statement = chain[j]
        if j + 1 < len(chain) and not _linked(statement, chain[j + 1]):
            break
        if not statement.restored_size < kept.size <= statement.lost_size or not before(statement):
            continue
        if kept.size == statement.lost_size and base64.b64encode(kept.root_hash).decode() != statement.lost_root_hash:
            two_roots = True
            continue
        return tuple(chain[j:])
    return "TWO_ROOTS" if two_roots else None
