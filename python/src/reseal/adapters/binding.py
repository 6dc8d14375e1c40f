"""What a framework adapter is bound to (docs/frameworks.md, "The binding"): one lineage, the
Reseal session writing to it (session id, generation epoch, predecessor, session variables), the
client's writer key and checkpoint store, and the snapshot provider that says what the
environment is now. The framework's own calls then need no Reseal argument.

Every write goes through the deployed guard and sealer and counts only once proven
(:meth:`reseal.ResealClient.wait_for_outcome`); every read proves the whole history in one signed
checkpoint consistent with the kept one (:meth:`reseal.ResealClient.proven_records`), so a
tampered, truncated or rolled-back history raises instead of being returned.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..client import ResealClient, WriteOutcome
from ..errors import InputIssue, InvalidInputError, ResealError
from ..log import Checkpoint
from ..triage import isolate_delta
from ..write_request import write_request

__all__ = [
    "ProvenRecord",
    "ResealBinding",
    "SealRefusedError",
    "SealUnprovenError",
    "SnapshotProvider",
    "StaleWriteRefusedError",
]

SnapshotProvider = Callable[[], Mapping[str, str]]
"""Returns the environment now, ``{key: value}`` (strings), as the manifest of docs/triage.md takes it."""


class SealRefusedError(ResealError):
    """A write was refused with a signed statement (docs/verifiable-log.md, "Signed outcomes"):
    ``kind`` is ``REJECTED`` or ``CONFLICT``, ``refusal`` the stored refusal it was checked against."""

    def __init__(self, kind: str, refusal: Mapping[str, Any], what: str, message: str | None = None) -> None:
        self.kind = kind
        self.refusal = dict(refusal)
        reason = refusal.get("reason") or refusal.get("detail") or kind
        super().__init__(message or f"{what} was refused ({kind}): {reason}")


class StaleWriteRefusedError(SealRefusedError):
    """The stale-state guard refused the write (docs/guard.md, "Rules"): the bound session carries
    an inherited value that was not re-probed, or its epoch does not fence its predecessor.
    ``rejected_variables`` and ``violated_fields`` name what, as the guard's signed verdict does."""

    def __init__(self, refusal: Mapping[str, Any], what: str) -> None:
        self.rejected_variables = [dict(v) for v in refusal.get("rejectedVariables") or []]
        self.violated_fields = [dict(v) for v in refusal.get("requestViolations") or []]
        named = [f"{v.get('name')}: {v.get('reason')}" for v in self.rejected_variables] + [
            f"{v.get('field')}: {v.get('reason')}" for v in self.violated_fields
        ]
        message = f"{what} was refused by the stale-state guard: {'; '.join(named) or refusal.get('reason')}"
        super().__init__("REJECTED", refusal, what, message)


class SealUnprovenError(ResealError):
    """A write was sealed, but its seal was not proven by the deadline: awaiting integration past
    the tree head the index holds, with no signed lineage checkpoint (the table's word alone,
    docs/frameworks.md, "Writes"). The record is stored and reads show it once integrated: read
    again later, do not write it again. ``outcome`` is the unproven ``SEALED`` outcome."""

    def __init__(self, outcome: WriteOutcome, what: str) -> None:
        self.outcome = outcome
        reason = "" if outcome.freshness is None else f": {outcome.freshness.reason}"
        super().__init__(f"{what} was sealed at seq {outcome.seq}, but not proven by the deadline{reason}")


@dataclass(frozen=True)
class ProvenRecord:
    """One record of the bound lineage as a read proved it: ``record`` (header, payload, manifest),
    proven by inclusion in ``checkpoint``; ``drift`` is triage's report (docs/triage.md, "Rules")
    of the record's manifest against the snapshot taken at the read, ``None`` without a snapshot
    provider."""

    seq: int
    record_hash: str
    payload: Any
    record: dict[str, Any]
    checkpoint: Checkpoint
    drift: dict[str, Any] | None

    @property
    def drifted(self) -> bool:
        """Whether a claim of this record rests on a key that drifted (``invalidatedClaims``)."""
        return bool(self.drift and self.drift.get("invalidatedClaims"))


class ResealBinding:
    """A lineage and the Reseal session that writes to it, for a framework adapter.

    :param client: a :class:`reseal.ResealClient` with a writer key (``reseal.connect(writer_key=…)``)
        and, to see a rollback, a checkpoint store
    :param lineage_id: the lineage every item goes to (``reseal.lineage_id_for(label, policy)``)
    :param session_id: this agent session (an identifier of docs/guard.md, "Input")
    :param generation_epoch: the session's fencing epoch (docs/guard.md, rule Q3)
    :param predecessor: ``(session id, epoch)`` of the session this one resumes; ``None`` for a cold start
    :param variables: session variables carried by every write, as docs/guard.md, "Input" shapes
        them; an inherited one must carry a fresh receipt or the guard refuses the write
    :param snapshot: the snapshot provider; each write seals its environment in the manifest, each
        read compares it with the environment now
    :param causal_keys: the snapshot keys the memory depends on (default: every key); the others
        are ambient (docs/triage.md)
    :param structural_keys: snapshot keys whose change invalidates everything
    :param boundary_at_ms: when the session's boundary was taken (ms; default: now)
    :param timeout_s: how long a write waits for its proven outcome
    :raises InvalidInputError: a client without a writer key, or a causal or structural key the
        snapshot does not report (at the first write)
    """

    def __init__(
        self,
        client: ResealClient,
        lineage_id: str,
        *,
        session_id: str,
        generation_epoch: int,
        predecessor: tuple[str, int] | None = None,
        variables: Sequence[Mapping[str, Any]] = (),
        snapshot: SnapshotProvider | None = None,
        causal_keys: Sequence[str] | None = None,
        structural_keys: Sequence[str] = (),
        authority: str = "OPERATIONAL",
        boundary_at_ms: int | None = None,
        timeout_s: float = 60.0,
    ) -> None:
        if client.writer is None:
            raise InvalidInputError(
                "adapter binding", [InputIssue("client", "the client has no writer key to sign the writes")]
            )
        self.client = client
        self.lineage_id = lineage_id
        self.session_id = session_id
        self.generation_epoch = generation_epoch
        self.predecessor = predecessor
        self.variables = [dict(v) for v in variables]
        self.snapshot = snapshot
        self.causal_keys = None if causal_keys is None else list(causal_keys)
        self.structural_keys = list(structural_keys)
        self.authority = authority
        self.boundary_at_ms = int(time.time() * 1000) if boundary_at_ms is None else boundary_at_ms
        self.timeout_s = timeout_s

    def _manifest(self) -> dict[str, Any]:
        env = {} if self.snapshot is None else dict(self.snapshot())
        causal = sorted(env) if self.causal_keys is None else self.causal_keys
        claims = {"memory": causal} if causal else {}
        return {"env": env, "structuralKeys": self.structural_keys, "claimDependencyMap": claims}

    def seal(self, payload: Any, *, supersedes: ProvenRecord | None = None, what: str = "the write") -> WriteOutcome:
        """Publishes ``payload`` as a new residual of the lineage (a fresh residual id) and waits
        for its proven outcome (``wait_for_outcome(..., until_proven=True)``): a seal ``PROVEN``
        through the deployment log, or at the deadline one in a signed lineage checkpoint; or a
        signed refusal (a guard's outranks a seal that is only the table's word; a sealer's beside
        such a seal is a tamper finding, ``UnverifiedOutcomeError``).

        :param supersedes: the record this one supersedes (a pop, an overwrite, a delete)
        :raises StaleWriteRefusedError: the guard refused the write
        :raises SealRefusedError: the sealer refused it (a conflict, a bad ``supersedes``)
        :raises SealUnprovenError: sealed, but no signed tree proves it by the deadline
        :raises WaitTimeoutError, UnverifiedOutcomeError: no proven outcome
        """
        request = write_request(
            residual_id=f"{self.session_id[:160]}.{uuid.uuid4().hex}",
            lineage_id=self.lineage_id,
            session_id=self.session_id,
            generation_epoch=self.generation_epoch,
            payload=payload,
            boundary_at_ms=self.boundary_at_ms,
            manifest=self._manifest(),
            variables=self.variables,
            authority=self.authority,
            predecessor=self.predecessor,
            supersedes=None if supersedes is None else {"seq": supersedes.seq, "recordHash": supersedes.record_hash},
        )
        outcome = self.client.wait_for_outcome(
            self.client.publish(request), timeout_s=self.timeout_s, until_proven=True
        )
        if outcome.kind == "SEALED":
            # Awaiting integration with no signed checkpoint: the table's word, never a proven write.
            if outcome.checkpoint is None:
                raise SealUnprovenError(outcome, what)
            return outcome
        refusal = outcome.refusal or {}
        if outcome.kind == "REJECTED" and refusal.get("stage") == "GUARD":
            raise StaleWriteRefusedError(refusal, what)
        raise SealRefusedError(outcome.kind, refusal, what)

    def read(self) -> list[ProvenRecord]:
        """Every record of the lineage, proven in one signed checkpoint, with its drift against
        the snapshot now.

        :raises LogVerificationError: a tampered, truncated, forked or rolled-back history
        """
        records, checkpoint = self.client.proven_records(self.lineage_id)
        if checkpoint is None:
            return []
        env = None if self.snapshot is None else dict(self.snapshot())
        return [
            ProvenRecord(
                seq=int(r["header"]["monotonicSequenceNumber"]),
                record_hash=str(r["recordHash"]),
                payload=r["payload"],
                record=r,
                checkpoint=checkpoint,
                drift=None if env is None else isolate_delta(r["manifest"], env),
            )
            for r in records
        ]
