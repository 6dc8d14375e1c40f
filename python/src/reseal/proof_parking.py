"""When a wait whose seal awaits integration proves it again (docs/pipeline.md, "Polling the
table"; the TypeScript ``ProofParking``): the seal can become ``PROVEN``, or its chain refused,
only through the deployment head, so between full proofs a poll reads that head's mark alone
(:meth:`reseal.deployment_chain_reader.DeploymentChainReader.head_mark`, eventually consistent).
"""

from __future__ import annotations

from typing import Final

__all__ = ["MAX_PARKED_PROOF_INTERVAL_S", "ProofParking"]

MAX_PARKED_PROOF_INTERVAL_S: Final = 8.0
"""The longest a parked wait goes without a full proof, seconds (the backoff's cap)."""


class ProofParking:
    """The proof runs again when the head's mark differs from the one seen at parking, and in any
    case after a backoff (twice the poll interval, doubling to :data:`MAX_PARKED_PROOF_INTERVAL_S`:
    a checkpoint aging past the policy's window moves no mark). The mark is a trigger only: a
    forged one costs a proof, and the deadline's attempt is always a full one (the caller's rule).

    :param poll_interval_s: the wait's poll interval, seconds
    """

    def __init__(self, poll_interval_s: float) -> None:
        self._first_every_s = min(2 * poll_interval_s, MAX_PARKED_PROOF_INTERVAL_S)
        self._every_s = self._first_every_s
        self._mark: str | None = None
        self._parked = False
        self._due_at_s = 0.0

    @property
    def parked(self) -> bool:
        """Whether the last full proof found the seal still waiting on the deployment log."""
        return self._parked

    def skips(self, mark: str | None, now_s: float) -> bool:
        """Whether a poll that read ``mark`` at ``now_s`` (the wait's monotonic clock, seconds)
        skips the proof: the head unmoved and no proof due. A moved head restarts the backoff."""
        if mark != self._mark:
            self._every_s = self._first_every_s
            return False
        return now_s < self._due_at_s

    def park(self, mark: str | None, now_s: float) -> None:
        """A full proof found the seal still waiting; ``mark`` was read before it (or just after, at
        the first parking). The backoff doubles when the head did not move since the last parking."""
        if self._parked and mark == self._mark:
            self._every_s = min(2 * self._every_s, MAX_PARKED_PROOF_INTERVAL_S)
        self._mark = mark
        self._parked = True
        self._due_at_s = now_s + self._every_s

    def unpark(self) -> None:
        """A full proof found something else to wait for (or the answer): poll with full proofs."""
        self._parked = False
        self._every_s = self._first_every_s
