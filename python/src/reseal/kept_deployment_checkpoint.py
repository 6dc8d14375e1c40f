"""A deployment checkpoint a client kept, against the published one (docs/deployment-log.md,
"Re-anchor", "What clients see"): one history, another history an operator's re-anchor accounts
for, or a fork. The same decision as the TypeScript ``checkKeptDeploymentCheckpoint``
(``shared/integrator/kept-deployment-checkpoint.ts``), pure.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from .log import Checkpoint, verify_consistency
from .re_anchor import ReAnchorNotice

__all__ = ["KeptCheckpointFinding", "check_kept_deployment_checkpoint"]


@dataclass(frozen=True)
class KeptCheckpointFinding:
    """``CONSISTENT`` (one extends the other, RFC 9162), ``EXPLAINED_BY_RE_ANCHOR`` (the kept
    checkpoint lies in the leaves the restore lost; ``re_anchor`` is the notice that says so) or
    ``FORK`` (two histories nothing accounts for: a fork under the log key, or a re-anchor not
    shown), with ``reason``."""

    kind: Literal["CONSISTENT", "EXPLAINED_BY_RE_ANCHOR", "FORK"]
    reason: str
    re_anchor: ReAnchorNotice | None = None


def check_kept_deployment_checkpoint(
    kept: Checkpoint, current: Checkpoint, re_anchor: ReAnchorNotice | None, consistency: Sequence[bytes]
) -> KeptCheckpointFinding:
    """Compares ``kept`` with ``current`` (both verified with the log key): ``CONSISTENT`` when
    ``consistency`` (RFC 9162, smaller to larger; empty for equal sizes) shows one extends the
    other; else ``EXPLAINED_BY_RE_ANCHOR`` when the current history is re-anchored (``re_anchor``,
    from its verified chain) and the kept checkpoint is larger than the restored head, at most the
    lost one, and that very checkpoint at its size; else ``FORK``. Never raises."""
    if kept.origin != current.origin:
        return KeptCheckpointFinding("FORK", f"the kept checkpoint is of {kept.origin}, not {current.origin}")
    older, newer = (kept, current) if kept.size <= current.size else (current, kept)
    if verify_consistency(older.size, newer.size, older.root_hash, newer.root_hash, list(consistency)):
        return KeptCheckpointFinding(
            "CONSISTENT", f"the kept checkpoint of {kept.size} and the current one of {current.size} are one history"
        )
    if re_anchor is not None:
        in_lost = re_anchor.restored_size < kept.size <= re_anchor.lost_size
        at_lost = kept.size == re_anchor.lost_size
        if in_lost and (not at_lost or base64.b64encode(kept.root_hash).decode() == re_anchor.lost_root_hash):
            return KeptCheckpointFinding(
                "EXPLAINED_BY_RE_ANCHOR",
                f"the kept checkpoint of {kept.size} is of the history the operator re-anchored at "
                f"{re_anchor.restored_size} (lost up to {re_anchor.lost_size}: {re_anchor.reason})",
                re_anchor,
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
