"""The online client of a deployed Reseal stack (docs/python.md, "The online loop"): publish a
signed write, learn its outcome, recall, each answer checked with public keys alone
(docs/verifiable-log.md) as the TypeScript client checks it. The table is read, never trusted:
a seal counts once its record is proven in a signed checkpoint consistent with the kept one; a
refusal once its statement, signed by the function that decided it, names this write; a recall
once the record is proven and the delta recomputed here.
"""

from __future__ import annotations

import copy
import hashlib
import importlib
import os
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Final, Literal, TypeVar, cast

from ._checks import is_hex_digest
from .authorship import (
    MAX_SIGNATURE_FUTURE_MS,
    boundary_digest,
    lineage_id_matches_policy,
    policy_digest,
    write_signature_problem,
)
from .canonical import canonical_json
from .chain_receipt import chain_receipt_of, verify_chain_receipt
from .checkpoint_store import CheckpointStore, FileCheckpointStore, SeenSealStore
from .deployment_chain import (
    DeploymentChain,
    FreshnessPolicy,
    RecordFreshness,
    decide_absence,
    decide_record_freshness,
    default_policy_text,
    freshness_policy,
)
from .deployment_chain_reader import ChainEvidence, DeploymentChainReader
from .errors import (
    HiddenSealError,
    InputIssue,
    InvalidInputError,
    LogVerificationError,
    NotIntegratedError,
    ResealError,
    UnverifiedOutcomeError,
    WaitTimeoutError,
)
from .escaped_text import escaped_text
from .guard import parse_write_request
from .item_layout import DeploymentLogTableReader, LineageTableReader, StoredLogHead
from .known_log_nodes import KnownLogNodes, known_log_nodes, last_leaf_path_of
from .local_admission import check_local_admission
from .local_recall_answer import LocalRecallReads, local_recall_answer
from .log import (
    EMPTY_ROOT,
    Checkpoint,
    check_conflict,
    check_consistency,
    check_rejection,
    checkpoint_origin,
    leaf_hash,
    open_checkpoint,
    open_outcome_of_stage,
    request_digest,
    verify_record_proof,
)
from .logged_seal_search import search_logged_seal
from .proof_parking import ProofParking
from .re_anchor import ReAnchorNotice
from .recall_absence import recall_absence
from .records import IntegrityFailure, V, check_record_integrity, payload_hash, variables_digest
from .refusal_checks import RefusalChecks
from .resealed_residual import resealed_residual
from .seen_seal import SeenSealContradiction, add_seen_seal, prune_seen_seals, seen_seal_contradiction
from .stack import DEFAULT_STACK_NAME, PinnedStack, read_stack_pin, stack_from_cloudformation
from .tenancy import check_lineage_of_tenant, parse_tenant_id, recall_source_of, write_queue_url
from .tree_refs import consistency_proof_refs, inclusion_proof_refs, range_root
from .triage import isolate_delta, manifest_digest, triage_report_digest
from .writer_key import WriterKey

__all__ = [
    "PUBLISH_CLOCK_SKEW_MS",
    "Freshness",
    "PublishedWrite",
    "RecallResult",
    "ResealClient",
    "WriteOutcome",
    "connect",
]

PUBLISH_CLOCK_SKEW_MS: Final = 5_000
"""The guard's clock skew allowance: a refusal's ``atMs`` may read this much before the publish."""

_T = TypeVar("_T")

_REDACTED_TEXT = "[stored text: see untrusted]"
"""What a recall's reason says in place of a stored string it cannot vouch for (the TypeScript ``REDACTED_TEXT``)."""

_TRIAGE_CLAIM = "[triage's finding, not proven to this client]"
"""How a recall's reason marks a refusal triage stored that the client could not prove."""

_REFUSAL_CODES = frozenset({"NOT_FOUND", "VERIFICATION_FAILED", "INVALID_REQUEST", "MANIFEST_UNTRIAGEABLE"})
"""Triage's refusal codes (docs/triage.md): a stored code is quoted only when it is one of them."""

_DEFINITE_VERDICTS = frozenset({V.HASH_MISMATCH, V.LINEAGE_BROKEN, V.SEQUENCE_REPLAYED, V.TRUNCATION_DETECTED})
"""The verdicts a stored refusal may claim that a recall passes on as its ``NOT_INTACT`` verdict,
hedged in its reason as unproven (any other claimed verdict is ``UNVERIFIED_TAMPER_RISK``)."""


@dataclass(frozen=True)
class PublishedWrite:
    """A write sent to the ``residual-writes`` queue: the SQS message id, the client's clock
    before sending (ms), and the request as sent, signed."""

    message_id: str
    published_at_ms: int
    request: dict[str, Any]


@dataclass(frozen=True)
class WriteOutcome:
    """What became of a write, proven (docs/verifiable-log.md, "Signed outcomes"):
    ``SEALED`` (``record`` proven by ``inclusion`` in the signed ``checkpoint``), ``REJECTED`` or
    ``CONFLICT`` (``refusal`` with its signed ``statement``). A ``SEALED`` outcome's ``freshness``
    says where it stands against the deployment log (docs/deployment-log.md, "Clients"):
    ``PROVEN`` once the lineage's indexed head covers it and the index maps its residual id to it,
    ``SEALED_AWAITING_INTEGRATION`` before; ``None`` when the client checks no freshness (and for
    a refusal). A chain that contradicts the seal or does not verify is raised, never returned.

    A seal awaiting integration on a lineage whose head carries no signed lineage checkpoint (the
    sealer signs none; its tree head is committed only through the index) has no ``checkpoint``
    and no ``inclusion``: its ``record`` is intact by its own hashes and binds the request, but
    nothing signed proves it was sealed until the index holds it."""

    kind: Literal["SEALED", "REJECTED", "CONFLICT"]
    record: dict[str, Any] | None = None
    inclusion: dict[str, Any] | None = None
    checkpoint: Checkpoint | None = None
    refusal: dict[str, Any] | None = None
    statement: dict[str, Any] | None = None
    freshness: Freshness | None = None
    _chain_receipt: dict[str, Any] | str | None = field(default=None, repr=False, compare=False)
    """The format-2 receipt of a ``PROVEN`` seal, or why none could be made."""

    def __post_init__(self) -> None:
        # A refusal's detail quotes what the deciding function read from the table (a marker's
        # lineage, a head): shown escaped, as the CLI and the MCP tools show it (docs/mcp.md,
        # "Untrusted data"); ``statement`` is what was signed and checked, left as it is.
        if self.refusal is not None:
            object.__setattr__(self, "refusal", _escaped_refusal(self.refusal))

    @property
    def seq(self) -> int | None:
        """The sealed record's seq (``SEALED`` only)."""
        return None if self.record is None else int(self.record["header"]["monotonicSequenceNumber"])

    def receipt(self, format_version: int = 2) -> dict[str, Any]:
        """A portable receipt of a ``SEALED`` outcome, which :func:`reseal.verify_receipt` (or
        ``reseal verify --receipt``) checks offline (docs/verifiable-log.md, "Receipts").

        Format 2 (the default, as ``reseal export --receipt``) carries the whole freshness chain
        and needs the seal ``PROVEN``: the index holds it (``wait_for_outcome(...,
        until_proven=True)``). Format 1 carries the lineage's signed checkpoint, which only a head
        written by a signing sealer has.

        :raises ValueError: for a refusal; format 2 of a seal not yet ``PROVEN``; format 1 without
            a signed lineage checkpoint; any other format
        """
        if self.record is None:
            raise ValueError(f"a {self.kind} outcome has no record to make a receipt of")
        if format_version == 2:
            if isinstance(self._chain_receipt, str):
                raise ValueError(f"no format-2 receipt: {self._chain_receipt}")
            if self._chain_receipt is None:
                state = "unchecked" if self.freshness is None else self.freshness.state
                raise ValueError(
                    f"no format-2 receipt: the seal's freshness is {state}, and a format-2 receipt needs it "
                    "PROVEN (wait_for_outcome(..., until_proven=True))"
                )
            return copy.deepcopy(self._chain_receipt)
        if format_version != 1:
            raise ValueError(f"unknown receipt format {format_version!r}: expected 2 or 1")
        if self.checkpoint is None or self.checkpoint.note is None or self.inclusion is None:
            raise ValueError(
                "no format-1 receipt: the record is proven by no signed lineage checkpoint (its head carries "
                "none; the lineage's tree head is committed through the index): ask format 2"
            )
        return {
            "formatVersion": 1,
            "type": "reseal-receipt",
            "lineageId": self.record["header"]["lineageId"],
            "record": self.record,
            "inclusion": self.inclusion,
            "checkpoint": self.checkpoint.note,
        }


def _escaped_refusal(refusal: dict[str, Any]) -> dict[str, Any]:
    """A copy of a stored refusal with its ``detail`` and its variables' and fields' ``detail``
    passed through :func:`escaped_text`."""
    shown = dict(refusal)
    if isinstance(shown.get("detail"), str):
        shown["detail"] = escaped_text(shown["detail"])
    for name in ("rejectedVariables", "requestViolations"):
        if isinstance(shown.get(name), list):
            shown[name] = [
                {**v, "detail": escaped_text(v["detail"])}
                if isinstance(v, dict) and isinstance(v.get("detail"), str)
                else v
                for v in shown[name]
            ]
    return shown


RecallEnd = Literal["TRIAGED", "NOT_INTACT", "NOT_FOUND", "INVALID_REQUEST", "UNTRIAGEABLE"]


@dataclass(frozen=True)
class Freshness:
    """Where a recall stands against the deployment log (docs/deployment-log.md, "Clients"):
    ``state`` (``PROVEN``, ``SEALED_AWAITING_INTEGRATION``, ``ABSENT``, ``NOT_NEWEST``,
    ``INCONSISTENT`` or ``REFUSED``), the size of the deployment checkpoint it was checked against
    (``None``: none published, or refused), ``reason``, the policy's ``witnessing``
    (``UNWITNESSED``: a cold client cannot detect a rollback of the whole table) and
    ``window_seconds`` (maximum age + integration interval: what a cold client may be shown
    superseded; ``None`` when unwitnessed); ``re_anchor``, the operator's re-anchor when the
    deployment log's history is re-anchored (docs/deployment-log.md, "Re-anchor": what the restore
    lost, when and why), so such a history is never a silent ``PROVEN``."""

    state: str
    checkpoint_size: int | None
    reason: str
    witnessing: str
    window_seconds: int | None
    re_anchor: ReAnchorNotice | None = None


@dataclass(frozen=True)
class RecallResult:
    """A recall as this client decided it (docs/verifiable-log.md, "Recall"). ``end`` is
    ``TRIAGED`` (act on ``delta``), ``UNTRIAGEABLE`` (record proven, manifest cannot be triaged),
    ``NOT_FOUND`` (triage's claim, not contradicted by the signed log; with ``freshness.state``
    ``ABSENT`` the index proves it), or ``NOT_INTACT`` (``verdict`` says why; never
    ``VERIFIED_INTACT``; no record, no delta). ``report`` is triage's stored answer (with
    ``recall(..., triage=False)``, the answer this client built from its own reads): diagnostic
    only, never acted on. ``freshness`` is ``None`` when the client checks none or the chain
    says nothing. ``untrusted`` is the stored answer's own ``refusalReason`` when the recall
    passes on an answer it could not prove, escaped (control characters as ``\\uXXXX``): a table
    writer may have written it, so ``reason`` never quotes it (it says ``[stored text: see
    untrusted]``, as the TypeScript client does, docs/mcp.md, "Untrusted data"); else ``None``."""

    request_id: str
    end: RecallEnd
    verdict: str | None
    reason: str
    record: dict[str, Any] | None
    delta: dict[str, Any] | None
    checkpoint: Checkpoint | None
    report: Any
    freshness: Freshness | None = None
    untrusted: str | None = None


class _NotNewestHead(LogVerificationError):
    """The table shows fewer records of a lineage than the index holds under the authenticated
    deployment checkpoint of ``checkpoint_size`` leaves: rolled back (docs/deployment-log.md,
    "Clients", ``NOT_NEWEST``), so a recall reports that freshness beside its verdict."""

    def __init__(self, lineage_id: str, reason: str, checkpoint_size: int | None) -> None:
        super().__init__(lineage_id, V.UNVERIFIED_TAMPER_RISK, reason)
        self.checkpoint_size = checkpoint_size


class _TrustedNotExtended(LogVerificationError):
    """The head item's tree is not shown to extend the kept lineage checkpoint by this client's own
    check (its consistency proof, from the table's nodes, is missing or does not verify): a recall
    answers nothing from that tree (docs/verifiable-log.md, "Recall", "Without triage").
    ``proven``: shown by two signed checkpoints alone, no table node (the head's signed checkpoint
    smaller than the kept one: a rollback), so the finding is stated as proven."""

    def __init__(self, lineage_id: str, verdict: str, reason: str, *, proven: bool = False) -> None:
        super().__init__(lineage_id, verdict, reason)
        self.proven = proven


@dataclass(frozen=True)
class _RecallAsked:
    """One recall as the client asked and read it before deciding the answer (triage's, or its
    own): what every step of the decision (:meth:`ResealClient._decide` and the methods it calls)
    reads, in one value."""

    request_id: str
    lineage_id: str
    target: dict[str, Any]
    current_env: Mapping[str, str]
    report: dict[str, Any]
    trusted: Checkpoint | None
    newest: Checkpoint | LogVerificationError | None
    chain: DeploymentChain | None = None
    answered_by: Literal["triage", "client"] = "triage"
    """Who built ``report``: triage (its stored answer) or this client (``recall(..., triage=False)``)."""
    records: Mapping[int, Any] = field(default_factory=dict)
    """Records the client read for its own answer, by seq, as stored: proven again from memory."""


CLIENT_MANIFEST_CACHE: Final = 64
"""Manifests a client keeps (``LineageTableReader(manifest_cache=...)``, the TypeScript
``CLIENT_MANIFEST_CACHE``): each at most 64 KB of canonical JSON, so at most 4 MB."""


class ResealClient:
    """The agent-side client of one deployed stack.

    :param stack: the stack's outputs and pinned verifier keys (:func:`reseal.read_stack_pin`, or
        :func:`connect`)
    :param dynamodb, sqs, events: boto3 clients (``boto3.client("dynamodb")``, ...)
    :param writer: signs every published write; without one only signed requests are sent
    :param checkpoints: where the last verified checkpoint per lineage, and the newest deployment
        checkpoint authenticated, are kept (the TypeScript client's file format; docs/verifiable-log.md,
        "Checkpoints the client keeps"): every deployment chain read (publish waits, recall,
        ``proven_records``, receipts) is compared with the kept one first, so a table rolled back
        behind it is refused ``DEPLOYMENT_ROLLBACK`` and two histories ``FORK``; without one a
        rollback of the whole table cannot be seen under an unwitnessed policy
    :param policy: the C2SP tlog-policy deployment checkpoints must meet, with its maximum age and
        the stack's interval (:func:`reseal.freshness_policy`); default the stack's
        :func:`reseal.default_policy_text` (its log key, ``quorum none``: ``UNWITNESSED``). When the
        stack's outputs name its interval (``integration_interval_seconds``), the client uses that
        one, not the policy's
    :param freshness: ``False`` checks no freshness (every recall's ``freshness`` is ``None``)
    :param tenant_id: the tenant the client acts for in a stack with tenants (docs/authorship.md,
        "Tenancy"): recalls are put with its source ``reseal.tenant.<id>``, and a write, a wait or
        a recall naming a lineage outside ``<tenant_id>/`` raises :class:`TenantMismatchError`
        before anything is read, signed or sent; default none (one tenant, source ``reseal``)
    """

    def __init__(
        self,
        stack: PinnedStack,
        *,
        dynamodb: Any,
        sqs: Any,
        events: Any,
        writer: WriterKey | None = None,
        checkpoints: CheckpointStore | None = None,
        policy: FreshnessPolicy | None = None,
        freshness: bool = True,
        now_ms: Callable[[], int] = lambda: int(time.time() * 1000),
        sleep: Callable[[float], None] = time.sleep,
        tenant_id: str | None = None,
    ) -> None:
        self.stack = stack
        self.tenant_id = None if tenant_id is None else parse_tenant_id(tenant_id)
        # Proving one write after another reads the agent's manifest item once (docs/pipeline.md,
        # "Learning the outcome of a write"): a manifest is kept once it hashes to its digest.
        self.table = LineageTableReader(dynamodb, stack.outputs.table_name, manifest_cache=CLIENT_MANIFEST_CACHE)
        # The window is stated with the stack's own interval when its outputs name one, as the
        # TypeScript client does: a policy read with the default 2 s would overstate the freshness
        # of a stack deployed with a longer interval.
        interval = stack.outputs.integration_interval_seconds
        if policy is None:
            policy = freshness_policy(default_policy_text(stack.log_key))
        if interval is not None and policy.interval_seconds != interval:
            policy = freshness_policy(policy.text, policy.max_age_seconds, interval)
        self.policy = policy
        self._chains = (
            DeploymentChainReader(
                DeploymentLogTableReader(dynamodb, stack.outputs.table_name), lambda: self.policy, now_ms, checkpoints
            )
            if freshness
            else None
        )
        self._sqs = sqs
        self._events = events
        self.writer = writer
        self._checkpoints = checkpoints
        # docs/verifiable-log.md, "Seals seen awaiting integration": a store without the seen-seal
        # methods remembers none.
        self._seen: SeenSealStore | None = (
            cast(SeenSealStore, checkpoints)
            if callable(getattr(checkpoints, "load_seen_seals", None))
            and callable(getattr(checkpoints, "update_seen_seals", None))
            else None
        )
        self._now_ms = now_ms
        self._sleep = sleep
        # The waits' deadlines and backoffs: monotonic, seconds (a wall clock can step).
        self._clock: Callable[[], float] = time.monotonic

    # --- publish -----------------------------------------------------------------------------

    def _write_queue_url(self) -> str:
        """``residual-writes``, or the client's tenant's queue on a stack with tenants.

        :raises TenantRequiredError: a stack with tenants, none of them the client's"""
        outputs = self.stack.outputs
        return write_queue_url(outputs.residual_writes_queue_url, outputs.tenant_queue_urls, self.tenant_id)

    def publish(self, request: Mapping[str, Any]) -> PublishedWrite:
        """Signs a write with the client's writer key (adding the sole-writer policy to the first
        write of a lineage whose id certifies it), validates it as the guard will, and sends its
        RFC 8785 canonical JSON to the ``residual-writes`` queue.

        :raises InvalidInputError: naming each bad field; an unsigned request without a writer
            key; a signature that does not verify or is too old; a writer the lineage's head item
            shows is not admitted (:func:`reseal.local_admission.check_local_admission`: one
            ``GetItem`` of the head, read once with the inception rule's)
        :raises TenantMismatchError: the lineage is not of the client's tenant (nothing read, signed or sent)
        :raises TenantRequiredError: a stack with tenants, none of them the client's (nothing read, signed or sent)
        """
        check_lineage_of_tenant(request.get("lineageId"), self.tenant_id)
        queue_url = self._write_queue_url()
        prepared = dict(request)
        now = self._now_ms()
        # The head item, once read: the inception rule and the admission check both decide on it.
        head: list[StoredLogHead | None] = []
        if self.writer is not None:
            policy = self.writer.policy()
            if (
                "policy" not in prepared
                and type(prepared.get("lineageId")) is str
                and lineage_id_matches_policy(prepared["lineageId"], policy)
            ):
                head.append(self.table.log_head(prepared["lineageId"]))
                if head[0] is None:
                    prepared["policy"] = policy
            prepared = self.writer.sign_request(prepared, now)
        elif "writer" not in prepared:
            raise InvalidInputError(
                "residual write request",
                [InputIssue("writer", "the request is unsigned and the client has no writer key to sign it")],
            )
        parsed = parse_write_request(prepared)
        problem = write_signature_problem(parsed, now)
        if problem is not None:
            raise InvalidInputError("residual write request", [InputIssue("writer", problem)])
        lineage_id = parsed["lineageId"]
        check_local_admission(
            head[0] if head else self.table.log_head(lineage_id),
            parsed,
            lambda: self.table.has_record(lineage_id, 0),
        )
        published_at = self._now_ms()
        out = self._sqs.send_message(QueueUrl=queue_url, MessageBody=canonical_json(parsed))
        message_id = out.get("MessageId")
        if not message_id:
            raise ResealError("SQS SendMessage returned no MessageId")
        return PublishedWrite(str(message_id), published_at, parsed)

    # --- outcomes ----------------------------------------------------------------------------

    def wait_for_outcome(
        self,
        published: PublishedWrite,
        *,
        timeout_s: float = 60.0,
        poll_interval_s: float = 0.5,
        until_proven: bool = False,
    ) -> WriteOutcome:
        """Polls until the published write has a proven outcome: its record proven in the latest
        signed checkpoint (consistent with the kept one, which it then replaces) and binding this
        request's content, with its ``freshness`` against the deployment log (docs/deployment-log.md,
        "Clients"); or a refusal signed by the function that decided it, naming this request.
        Unsigned or forged items are ignored: a table writer can delay an answer, never change it.
        A proven seal of this write (in a signed lineage checkpoint, or in the tree head the index
        holds) wins over a refusal: the guard reads no table, so a duplicate delivery of a write
        already sealed can be refused honestly. A seal awaiting integration with no signed
        checkpoint is the table's word alone (a table writer can build its record from the refused
        request): it never outranks a refusal signed for this very request; the wait goes on for
        the seal to be integrated, and at the deadline the outcome is that refusal
        (docs/pipeline.md, "Polling the table"). A refusal the *sealer* signed for this very request
        beside its seal is no answer at all: the sealer answers a request it sealed as a duplicate,
        so both stand only on an edited table; unless the seal is integrated by the deadline, an
        ``UnverifiedOutcomeError`` naming both is raised. Between refusals, the latest. While the
        seal awaits integration, a poll between full proofs reads only the deployment head item
        (eventually consistent: a trigger, never an answer) and proves the outcome again when it
        changed, when a backoff is due (twice ``poll_interval_s``, doubling to 8 s), and always at
        the deadline (docs/pipeline.md, "Polling the table"; :class:`reseal.proof_parking.ProofParking`).

        :param until_proven: wait past the seal until its freshness is ``PROVEN``; when the time
            runs out while the write is only sealed, the ``SEALED`` outcome is returned with
            ``SEALED_AWAITING_INTEGRATION`` (the write is sealed: not a timeout). Without
            freshness checks it changes nothing. Without it, the first seal proven is the answer,
            as in TypeScript: one on a lineage whose head carries no signed lineage checkpoint,
            past the head the index holds, is ``SEALED_AWAITING_INTEGRATION`` without a
            checkpoint, unless a refusal signed for this request stands beside it.
        :raises WaitTimeoutError: when nothing proven appears within ``timeout_s``
        :raises UnverifiedOutcomeError: when the marker names a record that cannot be proven, or
            the deployment log contradicts the seal (``INCONSISTENT``) or does not verify
            (``REFUSED``): such a seal is never returned to act on; ``UNVERIFIED_TAMPER_RISK`` at
            the deadline when a seal not yet integrated stands beside a refusal the sealer signed
            for this request
        :raises LogVerificationError: ``UNVERIFIED_TAMPER_RISK`` when nothing came and a seal this
            client kept of the lineage no longer holds (a rollback, as a recall reports it)
        :raises HiddenSealError: when nothing came but this write's seal is proven (the deployment
            index maps its residual id, or its record is in the lineage's signed log) without a
            marker: a tamper finding, not "no outcome" (docs/cli.md, ``publish --wait``)
        :raises TenantMismatchError: the lineage is not of the client's tenant (nothing read)
        """
        request = published.request
        lineage_id, residual_id = request["lineageId"], request["residualId"]
        check_lineage_of_tenant(lineage_id, self.tenant_id)
        since = published.published_at_ms - PUBLISH_CLOCK_SKEW_MS
        foreign: list[int] = []
        sealed: list[WriteOutcome] = []
        contested: list[WriteOutcome] = []
        tamper: list[UnverifiedOutcomeError] = []
        chains = self._chains
        parking = ProofParking(poll_interval_s)
        refusal_checks = RefusalChecks(poll_interval_s)
        shown = [False]

        def attempt(final: bool) -> WriteOutcome | None:
            # Until the write shows sealed or refused, a poll looks at the marker and the refusals
            # in an eventually consistent copy first (half the read units), the refusals only when
            # their backoff is due (RefusalChecks): nothing there only means "poll again", and
            # whatever is there is decided on the strong reads that follow (a copy can miss a
            # marker beside a refusal, or show a marker since put again). The deadline's attempt
            # reads all, strongly.
            if not final and not shown[0]:
                if not self._shows(request, since, foreign, refusal_checks):
                    return None
                shown[0] = True
            # A seal waiting on the deployment log: the full proof is run again only when the head
            # moved, the backoff is due, or at the deadline (never skipped there: the answer rests
            # on a proof; the mark is a trigger, never an answer).
            peeked = chains is not None and parking.parked and not final
            mark = chains.head_mark() if chains is not None and peeked else None
            if peeked and parking.skips(mark, self._clock()):
                return None
            outcome = self._outcome_of(
                request, since, foreign, contested, tamper, final=final, answers=not until_proven
            )
            # Waited past until proven (a plain wait answers with the seal as it stands, as the
            # TypeScript client does); a refusal beside a seal no signed tree proves: wait for the
            # seal to be proven.
            awaiting = not contested and (
                until_proven
                and outcome is not None
                and outcome.freshness is not None
                and outcome.freshness.state == "SEALED_AWAITING_INTEGRATION"
            )
            if awaiting and outcome is not None:
                sealed[:] = [outcome]
            # Waiting only for the seal to be proven: what can change that is the deployment head.
            if chains is not None and not final and (awaiting or contested):
                parking.park(mark if peeked else chains.head_mark(), self._clock())
            else:
                parking.unpark()
            return None if awaiting or contested else outcome

        try:
            return self._poll(
                attempt,
                f"a proven outcome of residual {residual_id} in lineage {lineage_id}",
                timeout_s,
                poll_interval_s,
            )
        except WaitTimeoutError:
            if tamper:
                # The sealer refused the request it sealed: the table was edited, neither is the outcome.
                raise tamper[-1] from None
            if contested:
                # A guard refusal signed for this request outranks a seal that is only the table's word.
                return contested[-1]
            if sealed:
                return sealed[-1]
            # Nothing under the marker at the deadline: a proven seal whose marker is hidden is a
            # tamper finding, not "no outcome" (docs/cli.md, `publish --wait`).
            if not foreign:
                found = self._hidden_seal(request, since, foreign)
                if found is not None:
                    return found
                self._unless_seen_rolled_back_at_deadline(lineage_id, residual_id)
            raise

    def _unless_seen_rolled_back_at_deadline(self, lineage_id: str, residual_id: str) -> None:
        """At a wait's deadline with nothing found for ``residual_id`` (no marker, no hidden seal):
        the seals this client kept of the lineage held against the lineage as read now, as a recall
        holds them (docs/verifiable-log.md, "Seals seen awaiting integration"): ``residual_id`` seen
        sealed but absent now, a tree no larger than a seal's seq, or another record at it is a
        rollback. Nothing is read when no seal of the lineage is kept; a lineage whose tree head
        does not read leaves the timeout standing.

        :raises LogVerificationError: ``UNVERIFIED_TAMPER_RISK`` naming the seal
        """
        if self._seen is None or not self._seen.load_seen_seals(self._origin(lineage_id)):
            return
        chain = None if self._chains is None else self._chains.read(lineage_id)
        try:
            latest = self._latest(lineage_id, self._trusted(lineage_id), chain)
        except LogVerificationError:
            return
        found = self._seen_contradiction(lineage_id, latest, residual_id)
        if found is not None:
            raise LogVerificationError(lineage_id, V.UNVERIFIED_TAMPER_RISK, found.reason)

    def _hidden_seal(self, request: dict[str, Any], since: int, foreign: list[int]) -> WriteOutcome | None:
        """At the deadline with no marker: looks for this write's seal where a table writer cannot
        forge it, the deployment index (its residual id mapped, as of a verified deployment
        checkpoint), then the lineage's signed log, newest record first, back to the request's
        signing time (at most :data:`reseal.logged_seal_search.MAX_HIDDEN_SEAL_SCAN` records). The marker is read once more
        before a finding (the seal may have landed since the last poll), so an honest table never
        reads as tampered.

        :returns: the outcome when the marker is back, else ``None`` (no seal found: the timeout stands)
        :raises HiddenSealError: when a seal is proven but its marker is absent, or the log does not verify
        """
        finding = self._indexed_seal(request) or self._logged_seal(request, since)
        if finding is None:
            return None
        again = self._outcome_of(request, since, foreign)
        if again is not None:
            return again
        raise finding

    def _indexed_seal(self, request: dict[str, Any]) -> HiddenSealError | None:
        """The index maps the residual id (verified chain) though the table shows no marker."""
        if self._chains is None:
            return None
        lineage_id, residual_id = request["lineageId"], request["residualId"]
        chain = self._chains.read(lineage_id, residual_id)
        if chain.kind != "PROVEN" or chain.residual is None:
            return None
        absence = decide_absence(chain, residual_id=residual_id)
        if absence is None or absence.verdict is None:
            return None
        return HiddenSealError(lineage_id, residual_id, int(chain.residual["seq"]), absence.verdict, absence.reason)

    def _logged_seal(self, request: dict[str, Any], wait_since: int) -> HiddenSealError | None:
        """This write's record in the lineage's signed log (past the index, or with no deployment
        log), though no marker names it."""
        lineage_id, residual_id = request["lineageId"], request["residualId"]
        # A record sealed before the request could have reached the sealer is not its seal: the
        # guard takes a signature at most MAX_SIGNATURE_FUTURE_MS ahead of the send
        # (docs/authorship.md, "Replay"). An earlier publish of the same request counts.
        writer = request.get("writer")
        signed_at = writer.get("signedAtMs") if isinstance(writer, Mapping) else None
        since = wait_since if type(signed_at) is not int else signed_at - MAX_SIGNATURE_FUTURE_MS
        try:
            latest = self._latest(lineage_id, self._trusted(lineage_id))
            if latest is None:
                return None
            found = search_logged_seal(
                self._proven_in(lineage_id),
                residual_id,
                latest,
                since_ms=since,
                matches=lambda record: _binds_request(record, request),
            )
            if found.kind != "FOUND":
                return None
            return HiddenSealError(
                lineage_id,
                residual_id,
                found.seq,
                V.UNVERIFIED_TAMPER_RISK,
                f"its record is sealed at seq {found.seq}, proven in the lineage's signed checkpoint of "
                f"{latest.size} records: the marker was deleted",
            )
        except LogVerificationError as error:
            return HiddenSealError(
                lineage_id,
                residual_id,
                None,
                error.verdict,
                f"the lineage's signed log does not verify: {error.reason}",
            )

    def _outcome_of(
        self,
        request: dict[str, Any],
        since: int,
        foreign: list[int],
        contested: list[WriteOutcome] | None = None,
        tamper: list[UnverifiedOutcomeError] | None = None,
        *,
        final: bool = True,
        answers: bool = False,
    ) -> WriteOutcome | None:
        """This write's outcome as the table shows it now, or ``None``. A seal no signed tree proves
        (awaiting integration, no ``checkpoint``) beside a refusal signed for this request is
        returned, but the refusal is put in ``contested`` (emptied first): the caller waits on for
        the seal to be proven, and else takes the refusal; when the sealer signed a refusal of this
        request, the finding (:func:`_sealer_refusal_finding`) is put in ``tamper`` (emptied first)
        and raised instead. ``final`` is false for a wait's attempts before its deadline: the
        deployment head is then read eventually consistent, and, unless ``answers``, the refusals
        beside such a seal are not read (docs/pipeline.md, "Learning the outcome of a write");
        ``answers``: the caller returns the seal as it is (a plain wait), see :meth:`_sealed_outcome`."""
        if contested is not None:
            contested.clear()
        if tamper is not None:
            tamper.clear()
        lineage_id, residual_id = request["lineageId"], request["residualId"]
        location = self.table.find_by_residual_id(lineage_id, residual_id)
        if location and location["lineageId"] == lineage_id and location["seq"] >= 0 and location["seq"] not in foreign:
            sealed = self._sealed_outcome(request, location["seq"], foreign, final=final, answers=answers)
            if sealed is not None:
                # A seal no signed tree proves never outranks a refusal signed for this request:
                # a plain wait, which answers with the seal, reads the refusals at each proof; a wait
                # until proven waits past the seal whatever refusal stands beside it, which only the
                # deadline's attempt answers (contested), so with a deployment log only that
                # attempt reads them.
                if sealed.checkpoint is None and contested is not None and (final or answers or self._chains is None):
                    refusal, by_sealer = self._refusals_of(request, since)
                    if refusal is not None:
                        contested.append(refusal)
                    if by_sealer is not None and tamper is not None:
                        tamper.append(_sealer_refusal_finding(request, sealed, by_sealer))
                return sealed
        refusal = self._refusal_of(request, since)
        if refusal is not None and not foreign and self._seal_hidden_beside(request, since):
            return None
        return refusal

    def _seal_hidden_beside(self, request: dict[str, Any], since: int) -> bool:
        """No marker, but a refusal signed for this request (a refused duplicate delivery, or one
        the writer caused by sending the request again): before that refusal is the answer, this
        write's seal is looked for where a table writer cannot forge it (the index, then the signed
        log), as the deadline does, so deleting the marker cannot turn a proven seal into
        ``REJECTED`` (docs/pipeline.md, "Polling the table").

        :returns: ``True`` when the marker is back (poll again: it answers), ``False`` when no seal is found
        :raises HiddenSealError: when a seal is proven but its marker is absent, or the log does not verify
        """
        finding = self._indexed_seal(request) or self._logged_seal(request, since)
        if finding is None:
            return False
        # The seal may have landed since (record, then head, then marker): an honest table never reads as tampered.
        again = self.table.find_by_residual_id(request["lineageId"], request["residualId"])
        if again and again["lineageId"] == request["lineageId"]:
            return True
        raise finding

    def _shows(self, request: dict[str, Any], since: int, foreign: list[int], refusal_checks: RefusalChecks) -> bool:
        """Whether an eventually consistent copy shows this write's marker (at a seq not known to
        be another write's) or, when ``refusal_checks`` has a read due, a refusal signed for it: a
        trigger for the strong reads, never an answer."""
        location = self.table.find_by_residual_id(request["lineageId"], request["residualId"], consistent=False)
        lineage_id = request["lineageId"]
        if location and location["lineageId"] == lineage_id and location["seq"] >= 0 and location["seq"] not in foreign:
            return True
        if not refusal_checks.due(self._clock()):
            return False
        return self._refusals_of(request, since, consistent=False)[0] is not None

    def _refusal_of(self, request: dict[str, Any], since: int) -> WriteOutcome | None:
        """The latest refusal of this request signed by the function that decided it, recorded at
        or after ``since``, or ``None``."""
        return self._refusals_of(request, since)[0]

    def _refusals_of(
        self, request: dict[str, Any], since: int, *, consistent: bool = True
    ) -> tuple[WriteOutcome | None, WriteOutcome | None]:
        """The refusals of this request signed by the function that decided each, recorded at or
        after ``since``: the latest, and the latest the sealer decided (every conflict, and a
        rejection at the ``SEALER`` stage); each ``None`` when there is none. ``consistent=False``:
        from a copy up to about a second old (:meth:`_shows`, the wait's trigger alone)."""
        lineage_id, residual_id = request["lineageId"], request["residualId"]
        rejections = [
            (r, s)
            # Bounded by ``since`` in the key: the older ones, filtered out here anyway, are never read.
            for r in self.table.rejections(lineage_id, residual_id, consistent=consistent, since_ms=since)
            if (s := self._open_refusal("REJECTED", r, request)) is not None and r["atMs"] >= since
        ]
        conflicts = [
            (c, s)
            for c in self.table.conflicts(lineage_id, residual_id, consistent=consistent)
            if (s := self._open_refusal("CONFLICT", c, request)) is not None and c["atMs"] >= since
        ]

        def latest(among: list[tuple[dict[str, Any], dict[str, Any]]]) -> WriteOutcome | None:
            if conflicts and (not among or conflicts[-1][0]["atMs"] >= among[-1][0]["atMs"]):
                return WriteOutcome("CONFLICT", refusal=conflicts[-1][0], statement=conflicts[-1][1])
            if among:
                return WriteOutcome("REJECTED", refusal=among[-1][0], statement=among[-1][1])
            return None

        return latest(rejections), latest([(r, s) for r, s in rejections if r.get("stage") == "SEALER"])

    def _sealed_outcome(
        self, request: dict[str, Any], seq: int, foreign: list[int], *, final: bool = True, answers: bool = False
    ) -> WriteOutcome | None:
        """The seal at ``seq`` when it is this request's: proven in the lineage's authenticated tree
        head, with its freshness and (once ``PROVEN``) its format-2 receipt; or, past the head the
        index holds on a lineage whose head carries no signed checkpoint, awaiting integration.

        Before a wait's deadline (``final`` false) the deployment head is read eventually
        consistent (half a read unit), as a recall reads it: a copy a second old can only leave the
        seal awaiting integration a moment longer, and any finding against it (an
        ``UnverifiedOutcomeError``: the chain refused, the record inconsistent with it) is decided
        again on a strong read. The deadline's proof, the wait's last word, reads it strongly, and so
        does a seal found awaiting integration when ``answers`` (a plain wait, which returns it as
        its answer)."""
        if final or self._chains is None:
            return self._sealed_outcome_on(request, seq, foreign, eventual=False)
        try:
            sealed = self._sealed_outcome_on(request, seq, foreign, eventual=True)
        except UnverifiedOutcomeError:
            return self._sealed_outcome_on(request, seq, foreign, eventual=False)
        # A plain wait answers with the seal as it stands: "awaiting" from a copy would be its last
        # word where the deployment log may already prove the write.
        if (
            answers
            and sealed is not None
            and sealed.freshness is not None
            and sealed.freshness.state == "SEALED_AWAITING_INTEGRATION"
        ):
            return self._sealed_outcome_on(request, seq, foreign, eventual=False)
        return sealed

    def _sealed_outcome_on(
        self, request: dict[str, Any], seq: int, foreign: list[int], *, eventual: bool
    ) -> WriteOutcome | None:
        """:meth:`_sealed_outcome` on the deployment head read as ``eventual`` says."""
        lineage_id, residual_id = request["lineageId"], request["residualId"]
        # Read before the head: a write integrated in between then never reads as two histories.
        chain, evidence = (
            (None, None)
            if self._chains is None
            else self._chains.read_with_evidence(lineage_id, residual_id, eventual=eventual)
        )
        try:
            record, inclusion, checkpoint, trusted = self._prove_record(lineage_id, seq, chain)
        except NotIntegratedError as waiting:
            return self._awaiting_outcome(request, seq, chain, waiting)
        except LogVerificationError as error:
            raise UnverifiedOutcomeError(lineage_id, residual_id, seq, error.verdict, error.reason) from error
        if record["header"]["residualId"] != residual_id:
            raise UnverifiedOutcomeError(
                lineage_id,
                residual_id,
                seq,
                V.LINEAGE_BROKEN,
                f"the marker points at seq {seq}, which seals {record['header']['residualId']}",
            )
        if not _binds_request(record, request):
            foreign.append(seq)  # another write's seal under this id: this one's refusal is awaited
            return None
        fresh = None
        receipt: dict[str, Any] | str | None = None
        if chain is not None:
            # Decided as a recall by residual id is: PROVEN needs the index to map it here.
            decided = self._record_freshness(lineage_id, chain, checkpoint, record, {"residualId": residual_id})
            if decided.verdict is not None:
                raise UnverifiedOutcomeError(
                    lineage_id, residual_id, seq, decided.verdict, f"{decided.state}: {decided.reason}"
                )
            fresh = self._freshness_of(decided, chain)
            # This request's own seal (its content bound by the record): remembered while awaiting
            # integration; once proven through the index, every seal of its residual id is forgotten,
            # at whatever seq (docs/verifiable-log.md, "Seals seen awaiting integration").
            if decided.state == "SEALED_AWAITING_INTEGRATION":
                self._remember_seen(record, checkpoint)
            elif decided.state == "PROVEN":
                self._forget_seen(lineage_id, residual_id)
            if decided.state == "PROVEN" and evidence is not None:
                try:
                    receipt = self._chain_receipt(lineage_id, record, inclusion, chain, evidence)
                except (LogVerificationError, NotIntegratedError) as error:
                    receipt = str(error)  # the seal stands, proven above; ask client.receipt() again
        self._keep(lineage_id, checkpoint, trusted)
        return WriteOutcome(
            "SEALED",
            record=record,
            inclusion=inclusion,
            checkpoint=checkpoint,
            freshness=fresh,
            _chain_receipt=receipt,
        )

    def _awaiting_outcome(
        self, request: dict[str, Any], seq: int, chain: DeploymentChain | None, waiting: NotIntegratedError
    ) -> WriteOutcome | None:
        """A seal past the indexed head of a lineage whose head carries no signed checkpoint:
        ``SEALED`` and ``SEALED_AWAITING_INTEGRATION`` when the stored record is intact by its own
        hashes and binds this request (the table's claim until the index holds it), else ``None``
        (waited past)."""
        integrity = check_record_integrity(self.table.read_record(request["lineageId"], seq))
        if isinstance(integrity, IntegrityFailure):
            return None
        record = integrity.record
        if record["header"]["residualId"] != request["residualId"] or not _binds_request(record, request):
            return None
        size = None if chain is None or chain.checkpoint is None else chain.checkpoint.size
        state = RecordFreshness("SEALED_AWAITING_INTEGRATION", size, waiting.reason)
        if chain is not None:
            self._remember_awaiting(request["lineageId"], seq, record, chain)
        return WriteOutcome("SEALED", record=record, freshness=self._freshness_of(state, chain))

    def _remember_awaiting(self, lineage_id: str, seq: int, record: dict[str, Any], chain: DeploymentChain) -> None:
        """Remembers this request's own seal past the indexed head once it is proven by inclusion in
        the tree the head item claims (the tree the TypeScript client proves it in); a seal that tree
        does not prove is not remembered (docs/verifiable-log.md, "Seals seen awaiting integration")."""
        if self._seen is None:
            return
        try:
            tree = self._claimed_tree(lineage_id, self._latest(lineage_id, self._trusted(lineage_id), chain))
            if tree is None or seq >= tree.size:
                return
            proven = self._included_record(lineage_id, seq, tree)[0]
        except LogVerificationError:
            return
        if proven["recordHash"] == record["recordHash"]:
            self._remember_seen(proven, tree)

    def _chain_receipt(
        self,
        lineage_id: str,
        record: dict[str, Any],
        inclusion: dict[str, Any],
        chain: DeploymentChain,
        evidence: ChainEvidence,
    ) -> dict[str, Any]:
        """The format-2 receipt of a record the chain proves (docs/verifiable-log.md, "Receipts"),
        its inclusion proof at the indexed head (built from the table's nodes when the record was
        proven in another tree head), checked as an offline verifier checks it before it is returned.

        :raises NotIntegratedError: the record is past the indexed head, or its lineage or residual
            id is not indexed yet
        :raises LogVerificationError: a proof cannot be built, or the receipt does not verify
        """
        seq = int(record["header"]["monotonicSequenceNumber"])
        held = chain.lineage
        if chain.kind != "PROVEN" or held is None or evidence.residual is None or chain.checkpoint is None:
            raise NotIntegratedError(
                lineage_id, seq, f"the index does not map the record as of the chain read ({chain.kind})"
            )
        size = int(held["treeSize"])
        if seq >= size:
            raise NotIntegratedError(
                lineage_id,
                seq,
                f"seq {seq} is past the lineage head the index holds ({size} records) as of deployment checkpoint "
                f"{chain.checkpoint.size}",
            )
        if inclusion.get("treeSize") != size:
            inclusion = {
                "leafIndex": seq,
                "treeSize": size,
                "inclusionProof": self._proof(lineage_id, inclusion_proof_refs(seq, size)),
            }
        receipt = chain_receipt_of(
            lineage_id=lineage_id,
            record=record,
            inclusion=inclusion,
            index_root=evidence.index_root,
            lineage=evidence.lineage,
            residual=evidence.residual,
            deployment_inclusion=evidence.inclusion,
            deployment_checkpoint=evidence.note,
        )
        checked = verify_chain_receipt(
            receipt,
            self.policy.policy,
            now_seconds=self._now_ms() // 1000,
            max_age_seconds=self.policy.max_age_seconds,
        )
        if checked.verdict != V.VERIFIED_INTACT:
            raise LogVerificationError(
                lineage_id, checked.verdict, f"the format-2 receipt does not verify: {checked.reason}"
            )
        return receipt

    def _open_refusal(self, kind: str, item: dict[str, Any], request: dict[str, Any]) -> dict[str, Any] | None:
        """The item's signed statement when it checks and names this request, else ``None``."""
        if item.get("statement") is None or "unreadable" in item:
            return None
        # A conflict is always the sealer's; a rejection names its stage, whose keys alone may sign
        # it (docs/verifiable-log.md, "Signed outcomes"): the guard key, or the sealer key (the log
        # key for a sealer refusal stored before the sealer key).
        stage = item.get("stage") if kind == "REJECTED" else "SEALER"
        if stage not in ("GUARD", "SEALER"):
            return None
        keys = {"guard": self.stack.guard_key, "sealer": self.stack.sealer_key, "log": self.stack.log_key}
        try:
            statement = open_outcome_of_stage(item["statement"], stage, keys, self.stack.outputs.log_name)
            (check_rejection if kind == "REJECTED" else check_conflict)(item, statement)
        except ResealError:
            return None
        if statement["requestDigest"] is not None:
            return statement if statement["requestDigest"] == request_digest(request) else None
        # A body refused before it parsed names no request digest; the client sent its canonical JSON.
        sent = hashlib.sha256(canonical_json(request).encode("utf-8")).hexdigest()
        return statement if kind == "REJECTED" and item.get("bodyDigest") == sent else None

    # --- recall ------------------------------------------------------------------------------

    def recall(
        self,
        lineage_id: str,
        current_env: Mapping[str, str],
        *,
        target: Mapping[str, Any] | None = None,
        timeout_s: float = 60.0,
        poll_interval_s: float = 0.5,
        triage: bool = True,
    ) -> RecallResult:
        """Requests a recall, waits for triage's answer and decides it with public keys alone:
        the record proven in the answer's signed checkpoint, consistent with the kept one and no
        older than the newest this client read itself before asking; the record is the target;
        the delta recomputed from the proven record and ``current_env``. A proven newer
        checkpoint is kept.

        With ``triage=False`` the client answers the recall itself (docs/verifiable-log.md,
        "Recall", "Without triage"; the TypeScript ``recallDirect``, ``reseal recall
        --no-triage``): no ``RecallRequested`` is put and no report waited for; the answer triage
        would give is built from this client's reads (:func:`reseal.local_recall_answer.local_recall_answer`)
        and decided by the same steps, so ``report`` is the client's own answer and a refusal it
        cannot prove reads ``[this client's reading of the table, not proven]``. ``timeout_s`` and
        ``poll_interval_s`` are then unused.

        :param target: ``{"latest": True}`` (default), ``{"seq": n}`` or ``{"residualId": id}``
        :param triage: ``False``: answered by this client, without triage's events
        :raises InvalidInputError: naming each bad field of the request
        :raises WaitTimeoutError: when no answer appears within ``timeout_s``
        :raises LogVerificationError: when the kept checkpoint does not verify
        :raises TenantMismatchError: the lineage is not of the client's tenant (nothing read or put)
        :raises TenantRequiredError: a stack with tenants, none of them the client's, recalling
            through triage (nothing read or put)
        """
        check_lineage_of_tenant(lineage_id, self.tenant_id)
        if triage:
            self._write_queue_url()  # a recall of no tenant: the bus refuses its source on a stack with tenants
        target = dict(target) if target is not None else {"latest": True}
        _check_recall(lineage_id, target, current_env)
        trusted = self._trusted(lineage_id)
        # Read before asking: an index head larger than the answer then shows a replayed answer,
        # never a write that landed while triage worked (docs/deployment-log.md, "Clients"); and
        # before the head, whose tree head it gives when the head carries no signed checkpoint.
        chain = None if self._chains is None else self._chains.read(lineage_id, target.get("residualId"))
        try:
            newest: Checkpoint | LogVerificationError | None = self._latest(lineage_id, trusted, chain)
        except LogVerificationError as error:
            newest = error
        if not triage:
            return self._recall_direct(lineage_id, target, current_env, trusted, newest, chain)
        request_id = f"recall-{uuid.uuid4()}"
        detail: dict[str, Any] = {
            "requestId": request_id,
            "lineageId": lineage_id,
            "target": target,
            "currentEnv": dict(current_env),
            **({"trustedCheckpoint": trusted.note} if trusted is not None else {}),
        }
        out = self._events.put_events(
            Entries=[
                {
                    "Source": recall_source_of(self.tenant_id),
                    "DetailType": "RecallRequested",
                    "EventBusName": self.stack.outputs.event_bus_name,
                    "Detail": canonical_json(detail),
                }
            ]
        )
        entry = (out.get("Entries") or [{}])[0]
        if out.get("FailedEntryCount") or not entry.get("EventId"):
            raise ResealError(f"EventBridge refused RecallRequested {request_id}: {entry.get('ErrorMessage')}")

        def answered(_final: bool) -> Any:
            report = self.table.triage_report(lineage_id, request_id)
            ok = isinstance(report, dict) and report.get("requestId") == request_id
            return report if ok and report.get("lineageId") == lineage_id else None

        report = self._poll(answered, f"triage report of recall {request_id}", timeout_s, poll_interval_s)
        asked = _RecallAsked(request_id, lineage_id, target, current_env, report, trusted, newest, chain)
        return self._unless_seen_rolled_back(asked, self._decide(asked))

    def _recall_direct(
        self,
        lineage_id: str,
        target: dict[str, Any],
        current_env: Mapping[str, str],
        trusted: Checkpoint | None,
        newest: Checkpoint | LogVerificationError | None,
        chain: DeploymentChain | None,
    ) -> RecallResult:
        """A recall answered by this client (``recall(..., triage=False)``): the answer built from
        the head item's tree (:meth:`_answer_tree`) and the target record proven in it, then decided
        by the very steps of a triage answer. The records read for the answer are read once: the
        decision proves the same items again, from memory."""
        request_id = f"direct-{uuid.uuid4()}"
        read: dict[int, Any] = {}

        def prove_in(seq: int, tree: Checkpoint) -> tuple[dict[str, Any], dict[str, Any]]:
            read[seq] = self.table.read_record(lineage_id, seq)
            return self._included_record(lineage_id, seq, tree, read[seq])

        reads = LocalRecallReads(
            prove_in,
            lambda size1, size2: self._consistency(lineage_id, size1, size2),
            lambda residual_id: self.table.find_by_residual_id(lineage_id, residual_id),
            self._now_ms,
        )
        request = {"requestId": request_id, "lineageId": lineage_id, "target": target, "currentEnv": current_env}
        answer = local_recall_answer(reads, request, self._answer_tree(lineage_id, newest), trusted)
        asked = _RecallAsked(
            request_id, lineage_id, target, current_env, answer, trusted, newest, chain, "client", read
        )
        return self._unless_seen_rolled_back(asked, self._decide(asked))

    def _answer_tree(
        self, lineage_id: str, newest: Checkpoint | LogVerificationError | None
    ) -> Checkpoint | LogVerificationError | None:
        """The tree triage answers from, as this client read it: the head item's signed checkpoint,
        else the tree a head without one claims (:meth:`_claimed_tree`, which triage proves records
        in, holding no deployment log). A head whose claim this client's index check refused
        (rolled back behind the index, or no verified deployment chain) is still answered from its
        claim, as triage would: the decision then refuses it against the index, with its freshness.
        A head whose tree this client could not show to extend its kept checkpoint is not: that
        finding is the answer, an unproven refusal (the nodes it rests on are the table's).
        ``None`` or the finding when there is no tree to answer from."""
        if isinstance(newest, _TrustedNotExtended):
            return newest
        if isinstance(newest, LogVerificationError):
            stored = self.table.log_head(lineage_id)
            if stored is None or stored.checkpoint is not None:
                return newest
            newest = Checkpoint(self._origin(lineage_id), 0, EMPTY_ROOT)
        try:
            return self._claimed_tree(lineage_id, newest)
        except LogVerificationError as error:
            return error

    def _unless_seen_rolled_back(self, asked: _RecallAsked, decided: RecallResult) -> RecallResult:
        """``decided``, unless a seal of this client's own waited writes it saw awaiting integration
        is contradicted by the lineage as this recall read it (docs/verifiable-log.md, "Seals seen
        awaiting integration"): the head's tree smaller than its seq, another record at its seq, or
        its residual id about to be answered absent is a rollback of records not yet integrated,
        ``NOT_INTACT`` ``UNVERIFIED_TAMPER_RISK`` (freshness ``NOT_NEWEST``), as the TypeScript
        client refuses it. A residual id this recall proves ``PROVEN`` through the index settles every
        seal of it first, at whatever seq. The seals the index now covers (under the authenticated
        deployment checkpoint) are then forgotten, a contradiction at one of them reported this once.
        A recall refused otherwise (other than awaiting integration) is left as is."""
        newest, chain, target = asked.newest, asked.chain, asked.target
        if self._seen is None or isinstance(newest, LogVerificationError):
            return decided
        awaiting = decided.freshness is not None and decided.freshness.state == "SEALED_AWAITING_INTEGRATION"
        if decided.end == "NOT_INTACT" and not awaiting:
            return decided
        fresh, residual_id = decided.freshness, target.get("residualId")
        if decided.verdict == V.VERIFIED_INTACT and fresh is not None and fresh.state == "PROVEN" and residual_id:
            self._forget_seen(asked.lineage_id, residual_id)
        absent = target.get("residualId") if decided.end == "NOT_FOUND" else None
        found = self._seen_contradiction(asked.lineage_id, newest, absent)
        if chain is not None and chain.kind in ("PROVEN", "ABSENT") and chain.lineage is not None:
            self._prune_seen(asked.lineage_id, int(chain.lineage["treeSize"]))
        if found is not None:
            stale = None
            if chain is not None:
                at = None if chain.checkpoint is None else chain.checkpoint.size
                stale = self._freshness_of(RecordFreshness("NOT_NEWEST", at, found.reason), chain)
            return replace(
                decided,
                end="NOT_INTACT",
                verdict=V.UNVERIFIED_TAMPER_RISK,
                reason=found.reason,
                record=None,
                delta=None,
                freshness=stale,
            )
        return decided

    # --- seals seen awaiting integration (docs/verifiable-log.md, "Seals seen awaiting integration")

    def _remember_seen(self, record: Mapping[str, Any], tree: Checkpoint) -> None:
        """Remembers ``record``, proven by inclusion in ``tree`` (not vouched for by the index yet).
        Only for the seal of a write this client published and waited for (its content bound by
        ``record``): a record read on a recall is the table's word, which a table writer can forge."""
        if self._seen is None:
            return
        header = record["header"]
        seen = {
            "lineageId": header["lineageId"],
            "residualId": header["residualId"],
            "seq": header["monotonicSequenceNumber"],
            "recordHash": record["recordHash"],
            "treeSize": tree.size,
            "rootHash": tree.root_hash.hex(),
            "seenAtMs": self._now_ms(),
        }
        self._seen.update_seen_seals(self._origin(header["lineageId"]), lambda now: add_seen_seal(now, seen))

    def _forget_seen(self, lineage_id: str, residual_id: str) -> None:
        """Forgets every seal seen of ``residual_id``: the index now proves it (``PROVEN``), and the
        index is the authority on where a residual id is sealed (docs/verifiable-log.md, "Seals
        seen awaiting integration"); a seal of it at another seq was planted."""
        if self._seen is None:
            return
        key = self._origin(lineage_id)
        if not any(seen["residualId"] == residual_id for seen in self._seen.load_seen_seals(key)):
            return
        self._seen.update_seen_seals(key, lambda now: [seen for seen in now if seen["residualId"] != residual_id])

    def _prune_seen(self, lineage_id: str, indexed_size: int) -> None:
        """Forgets the seals seen below ``indexed_size``, the lineage's size in the index under the
        deployment checkpoint just authenticated (and kept): from then on that checkpoint catches their
        rollback, and the index settles what those seqs hold. Called after :meth:`_seen_contradiction`
        in the same read: a contradiction at a seq the index covers is reported that once."""
        if self._seen is None:
            return
        key = self._origin(lineage_id)
        if all(seen["seq"] >= indexed_size for seen in self._seen.load_seen_seals(key)):
            return
        self._seen.update_seen_seals(key, lambda now: prune_seen_seals(now, indexed_size))

    def _seen_contradiction(
        self, lineage_id: str, newest: Checkpoint | None, absent_residual_id: str | None = None
    ) -> SeenSealContradiction | None:
        """The first seal seen that the lineage as read now no longer holds
        (:func:`reseal.seen_seal.seen_seal_contradiction`), held against the head item's tree
        (:meth:`_claimed_tree` of ``newest``): each seal below its size is proven in it (a record
        that does not verify there holds no seal); ``None`` when every seal seen is still there,
        none is remembered, or the head item's tree cannot be read (a reader that raised already
        refuses that, as the TypeScript client leaves such a walk as it is).

        :param newest: the lineage's tree head as read now (``None``: no head and no records)
        :param absent_residual_id: a residual id about to be answered absent
        """
        if self._seen is None:
            return None
        entries = self._seen.load_seen_seals(self._origin(lineage_id))
        if not entries:
            return None
        try:
            tree = self._claimed_tree(lineage_id, newest)
        except LogVerificationError:
            return None
        size = 0 if tree is None else tree.size
        hashes: dict[int, str] = {}
        for seen in entries:
            seq = seen["seq"]
            if tree is None or seq >= size or seq in hashes:
                continue
            try:
                hashes[seq] = self._included_record(lineage_id, seq, tree)[0]["recordHash"]
            except LogVerificationError:
                hashes[seq] = "(a record that does not verify)"
        return seen_seal_contradiction(entries, size, hashes, absent_residual_id)

    def _decide(self, asked: _RecallAsked) -> RecallResult:
        request_id, lineage_id, report, trusted = asked.request_id, asked.lineage_id, asked.report, asked.trusted

        def end(kind: RecallEnd, verdict: str | None, reason: str, **found: Any) -> RecallResult:
            if kind == "NOT_INTACT" and verdict in (None, V.VERIFIED_INTACT):
                verdict = V.UNVERIFIED_TAMPER_RISK  # fail closed
            return RecallResult(
                request_id,
                kind,
                verdict,
                reason,
                found.get("record"),
                found.get("delta"),
                found.get("checkpoint"),
                report,
                found.get("freshness"),
                found.get("untrusted"),
            )

        proof = report.get("proof")
        if proof is None:
            return self._unproven_refusal(asked, end)
        if not isinstance(proof, dict) or not all(k in proof for k in ("seq", "recordHash")):
            return end("NOT_INTACT", V.UNVERIFIED_TAMPER_RISK, "the stored triage answer is malformed")
        if proof.get("checkpoint") is None:
            # No signed lineage checkpoint in the answer: the record is proven here, in the tree head
            # the index holds (read before asking), from the table's nodes.
            return self._decide_on_index(asked, end)
        if not all(k in proof for k in ("inclusion", "consistency")):
            return end("NOT_INTACT", V.UNVERIFIED_TAMPER_RISK, "the stored triage answer is malformed")
        key = self.stack.log_key
        try:
            latest = open_checkpoint(proof["checkpoint"], key, checkpoint_origin(key.name, lineage_id))
        except (ResealError, TypeError) as error:
            return end("NOT_INTACT", V.HASH_MISMATCH, f"the answer's checkpoint does not verify: {error}")
        if trusted is not None:
            consistency = proof["consistency"]
            if consistency is None and trusted.size != latest.size:
                return end(
                    "NOT_INTACT",
                    V.UNVERIFIED_TAMPER_RISK,
                    "the answer carries no consistency proof from the trusted one",
                )
            if consistency is not None and not isinstance(consistency, dict):
                return end("NOT_INTACT", V.UNVERIFIED_TAMPER_RISK, "the answer's consistency proof is malformed")
            hashes = [] if consistency is None else consistency.get("proof", [])
            checked = check_consistency(trusted, latest, hashes if type(hashes) is list else ["malformed"])
            if checked.verdict != V.VERIFIED_INTACT:
                return end("NOT_INTACT", checked.verdict, checked.reason)
        seq = proof["seq"]
        record = self._record_read(asked, seq) if type(seq) is int and seq >= 0 else None
        proven = verify_record_proof(record, proof["inclusion"], latest, lineage_id)
        if proven.verdict != V.VERIFIED_INTACT or proven.record is None:
            return end("NOT_INTACT", proven.verdict, proven.reason, checkpoint=latest)
        return self._decide_record(asked, end, latest, seq, proven.record)

    def _decide_on_index(self, asked: _RecallAsked, end: Callable[..., RecallResult]) -> RecallResult:
        """An answer that names no signed lineage checkpoint: its record is proven here by
        inclusion in the lineage head the index holds, read before asking (``newest``, from a head
        item that carries no signed checkpoint); a record past it is sealed, awaiting integration,
        and nothing of it is passed on (docs/deployment-log.md, "Clients")."""
        lineage_id, report, newest, chain = asked.lineage_id, asked.report, asked.newest, asked.chain
        if isinstance(newest, _NotNewestHead) and chain is not None:
            # A head item rolled back behind the index: the answer is not the newest, whatever it proves.
            stale = RecordFreshness("NOT_NEWEST", newest.checkpoint_size, newest.reason, newest.verdict)
            return end("NOT_INTACT", newest.verdict, newest.reason, freshness=self._freshness_of(stale, chain))
        if isinstance(newest, LogVerificationError):
            if chain is not None and chain.kind == "REFUSED":
                # The tree head could not be taken from a refused chain: say so in the freshness too
                # (e.g. DEPLOYMENT_ROLLBACK against the kept deployment checkpoint), as the TypeScript client does.
                refused = RecordFreshness(
                    "REFUSED",
                    None,
                    f"the deployment checkpoint does not prove freshness ({chain.refusal}): {chain.reason}",
                    V.UNVERIFIED_TAMPER_RISK,
                )
                return end("NOT_INTACT", newest.verdict, newest.reason, freshness=self._freshness_of(refused, chain))
            return end("NOT_INTACT", newest.verdict, newest.reason)
        if newest is None:
            return end(
                "NOT_INTACT", V.UNVERIFIED_TAMPER_RISK, "the answer proves a record, but the table shows no lineage"
            )
        if newest.note is not None:
            return end(
                "NOT_INTACT",
                V.UNVERIFIED_TAMPER_RISK,
                "the answer names no signed checkpoint, but the lineage's head carries one",
            )
        seq = report["proof"]["seq"]
        if type(seq) is not int or seq < 0:
            return end("NOT_INTACT", V.UNVERIFIED_TAMPER_RISK, "the stored triage answer is malformed")
        if seq >= newest.size:
            size = None if chain is None or chain.checkpoint is None else chain.checkpoint.size
            reason = (
                f"sealed, awaiting integration: the answer's seq {seq} is past the lineage head the index "
                f"holds ({newest.size} records); recall again after the next integration"
            )
            waiting = self._freshness_of(RecordFreshness("SEALED_AWAITING_INTEGRATION", size, reason), chain)
            return end("NOT_INTACT", V.UNVERIFIED_TAMPER_RISK, reason, freshness=waiting)
        try:
            record = self._included_record(lineage_id, seq, newest, asked.records.get(seq))[0]
        except LogVerificationError as error:
            return end("NOT_INTACT", error.verdict, error.reason, checkpoint=newest)
        return self._decide_record(asked, end, newest, seq, record)

    def _record_read(self, asked: _RecallAsked, seq: int) -> Any:
        """Record ``seq`` as stored: as read for the client's own answer, else from the table."""
        read = asked.records.get(seq)
        return read if read is not None else self.table.read_record(asked.lineage_id, seq)

    def _decide_record(
        self,
        asked: _RecallAsked,
        end: Callable[..., RecallResult],
        latest: Checkpoint,
        seq: int,
        record: dict[str, Any],
    ) -> RecallResult:
        """The rest of a recall once record ``seq`` is proven in the tree head ``latest``: the
        answer names it and it is the target, no older than ``newest``, placed against the chain,
        and the delta recomputed from it and ``current_env``."""
        lineage_id, target, current_env, report = asked.lineage_id, asked.target, asked.current_env, asked.report
        trusted, newest, chain = asked.trusted, asked.newest, asked.chain
        proof = report["proof"]
        header = record["header"]
        got = header["monotonicSequenceNumber"]
        if got != seq or record["recordHash"] != proof["recordHash"] or report.get("seq") != got:
            return end("NOT_INTACT", V.LINEAGE_BROKEN, f"the answer names another record than the seq {got} it proves")
        wrong = (
            ("residualId" in target and target["residualId"] != header["residualId"])
            or ("seq" in target and target["seq"] != got)
            or ("latest" in target and got != latest.size - 1)
        )
        if wrong:
            return end(
                "NOT_INTACT", V.LINEAGE_BROKEN, f"the answer proves seq {got} ({header['residualId']}), not the target"
            )
        stale = self._stale_answer(lineage_id, latest, newest)
        if stale is not None:
            return end("NOT_INTACT", stale.verdict, stale.reason)
        fresh: Freshness | None = None
        if chain is not None:
            decided = self._record_freshness(lineage_id, chain, latest, record, target)
            fresh = self._freshness_of(decided, chain)
            if decided.verdict is not None:
                # NOT_NEWEST, INCONSISTENT, REFUSED: nothing of the record is passed on.
                return end("NOT_INTACT", decided.verdict, decided.reason, freshness=fresh)
        try:
            delta = isolate_delta(record["manifest"], dict(current_env))
        except ResealError as error:
            self._keep(lineage_id, latest, trusted)
            return end(
                "UNTRIAGEABLE",
                V.VERIFIED_INTACT,
                f"record proven; its manifest cannot be triaged: {error}",
                record=record,
                checkpoint=latest,
                freshness=fresh,
            )
        stored = report.get("report")
        try:
            same = report.get("outcome") == "TRIAGED" and triage_report_digest(stored) == triage_report_digest(delta)
        except ResealError:
            same = False
        if not same:
            return end(
                "NOT_INTACT",
                V.HASH_MISMATCH,
                "the stored triage report does not match the proven record and this environment",
                checkpoint=latest,
            )
        self._keep(lineage_id, latest, trusted)
        return end(
            "TRIAGED",
            V.VERIFIED_INTACT,
            f"record proven in the {'signed checkpoint' if latest.note is not None else 'lineage head the index holds'} "
            f"of {latest.size} records" + self._rollback_checked(trusted, chain),
            record=record,
            delta=delta,
            checkpoint=latest,
            freshness=fresh,
        )

    def _rollback_checked(self, trusted: Checkpoint | None, chain: DeploymentChain | None) -> str:
        """What a proven recall's reason says a rollback was checked against: the kept lineage
        checkpoint; else the deployment checkpoint the record was placed against, when the
        checkpoint store keeps one (the chain reader refuses a table behind it, ``DEPLOYMENT_ROLLBACK``,
        and keeps the newer); else nothing (a lineage whose head carries no signed checkpoint keeps
        no lineage checkpoint)."""
        if trusted is not None:
            return f", consistent with the kept one of {trusted.size}"
        anchored = None if chain is None or chain.kind == "REFUSED" else chain.checkpoint
        if anchored is not None and self._checkpoints is not None and self._checkpoints.load(anchored.origin):
            return (
                f" (no lineage checkpoint kept; a rollback is checked against the deployment checkpoint kept in the "
                f"checkpoint store: this one, of {anchored.size} leaves, is no older)"
            )
        return " (nothing kept: a rollback could not be checked)"

    def _freshness_of(self, decided: RecordFreshness, chain: DeploymentChain | None = None) -> Freshness:
        return Freshness(
            decided.state,
            decided.checkpoint_size,
            decided.reason,
            self.policy.witnessing,
            self.policy.window_seconds,
            None if chain is None else chain.re_anchor,
        )

    def _record_freshness(
        self,
        lineage_id: str,
        chain: DeploymentChain,
        answered: Checkpoint,
        record: Mapping[str, Any],
        target: Mapping[str, Any],
    ) -> RecordFreshness:
        """Where a proven record stands against the chain (``decide_record_freshness``); the
        consistency proof between the record's checkpoint and the indexed head comes from the
        table's nodes (one that cannot be built leaves them inconsistent)."""
        indexed = chain.lineage["treeSize"] if chain.lineage is not None else None
        consistency: list[str] | None = None
        header = record["header"]
        if type(indexed) is int and indexed != answered.size:
            try:
                # The record's leaf, and the answered tree's frontier when it proves the record as
                # the last leaf, are not read again: the indexed head one record behind needs no
                # node item at all.
                known = known_log_nodes(answered, header["monotonicSequenceNumber"], record["recordHash"])
                consistency = self._consistency(
                    lineage_id, min(indexed, answered.size), max(indexed, answered.size), known
                )
            except (LogVerificationError, ValueError):
                consistency = None
        decided = decide_record_freshness(
            chain,
            answered,
            {
                "seq": header["monotonicSequenceNumber"],
                "recordHash": record["recordHash"],
                "residualId": header["residualId"],
            },
            latest="latest" in target,
            residual_asked="residualId" in target,
            consistency=consistency,
        )
        if decided.verdict is not None or "residualId" in target or self._chains is None:
            return decided
        if chain.kind not in ("PROVEN", "ABSENT"):
            return decided
        # Asked without its residual id: the index must still map that id to this very record, else
        # it is a second sealing the integrator left out (RESIDUAL_CHANGED), never proven memory.
        by_residual = self._chains.read(lineage_id, header["residualId"])
        checked = self._record_freshness(
            lineage_id, by_residual, answered, record, {"residualId": header["residualId"]}
        )
        return checked if checked.verdict is not None else decided

    def _stale_answer(
        self, lineage_id: str, answered: Checkpoint, newest: Checkpoint | LogVerificationError | None
    ) -> LogVerificationError | None:
        """An answer older than the newest checkpoint this client read itself is a replay; a newer
        one must extend it."""
        if newest is None:
            try:
                newest = self._latest(lineage_id, None)
            except LogVerificationError as error:
                return error
            if newest is None:
                return LogVerificationError(
                    lineage_id,
                    V.UNVERIFIED_TAMPER_RISK,
                    "the answer proves a record, but the table shows no checkpoint",
                )
        if isinstance(newest, LogVerificationError):
            return newest
        if answered.size < newest.size:
            return LogVerificationError(
                lineage_id,
                V.UNVERIFIED_TAMPER_RISK,
                f"the answer is older than the newest signed checkpoint ({answered.size} < {newest.size} records): a replayed answer",
            )
        checked = check_consistency(newest, answered, self._consistency(lineage_id, newest.size, answered.size))
        if checked.verdict != V.VERIFIED_INTACT:
            return LogVerificationError(lineage_id, V.LINEAGE_BROKEN, checked.reason)
        return None

    def _unproven_refusal(self, asked: _RecallAsked, end: Callable[..., RecallResult]) -> RecallResult:
        target, report = asked.target, asked.report
        trusted, newest, chain = asked.trusted, asked.newest, asked.chain
        code = report.get("refusalCode")
        # Every word of an unproven answer may be a table writer's: its reason is never quoted
        # (only in `untrusted`, escaped), and its code and verdict only when they are Reseal's own.
        stored = report.get("refusalReason")
        untrusted = escaped_text(stored) if isinstance(stored, str) and stored else None
        # docs/verifiable-log.md, "Recall": a refusal is never passed on as a finding, and one this
        # client built from its own reads is never passed on as triage's either.
        by_client = asked.answered_by == "client"
        named = "refused" if by_client else "triage refused"
        named = f"{named} ({code})" if code in _REFUSAL_CODES else named
        whose = "[this client's reading of the table, not proven]" if by_client else _TRIAGE_CLAIM
        if by_client and isinstance(newest, _TrustedNotExtended) and newest.proven:
            # The client's own refusal, from two signed checkpoints it checked: a proven finding.
            return end("NOT_INTACT", newest.verdict, newest.reason)
        claim = f"{named}: {_REDACTED_TEXT if untrusted else 'no reason given'} {whose}"
        if report.get("outcome") == "TRIAGED":
            return end("NOT_INTACT", V.UNVERIFIED_TAMPER_RISK, "the stored answer carries no proof")
        if code == "INVALID_REQUEST":
            return end(
                "NOT_INTACT",
                V.UNVERIFIED_TAMPER_RISK,
                "the stored answer calls the request invalid, but it validates: not triage's answer",
            )
        if code != "NOT_FOUND":
            # Passed on as the unproven claim it is (docs/pipeline.md, "Outcomes and retries";
            # docs/verifiable-log.md, "Recall"): its definite verdict as claimed, hedged in the
            # reason, and NOT_INTACT, never an answer to act on; any other verdict a tamper risk. As
            # the TypeScript checkRecallAnswer passes it on.
            verification = report.get("verification")
            claimed = verification.get("verdict") if isinstance(verification, Mapping) else None
            verdict = claimed if claimed in _DEFINITE_VERDICTS else V.UNVERIFIED_TAMPER_RISK
            hidden = None if by_client or code != "VERIFICATION_FAILED" else self._seal_past_unusable_marker(asked)
            if hidden is not None:
                return end("NOT_INTACT", hidden[0], hidden[1], freshness=hidden[2])
            return end("NOT_INTACT", verdict, claim, untrusted=untrusted)
        if isinstance(newest, LogVerificationError):
            return end("NOT_INTACT", newest.verdict, newest.reason)
        size = 0 if newest is None else newest.size
        if trusted is not None and trusted.size > size:
            return end(
                "NOT_INTACT",
                V.TRUNCATION_DETECTED,
                f"truncated: the table's signed checkpoint covers {size} records, but the kept one saw {trusted.size}",
            )
        covered = ("seq" in target and target["seq"] < size) or ("latest" in target and size > 0)
        if covered:
            return end(
                "NOT_INTACT",
                V.UNVERIFIED_TAMPER_RISK,
                f"the stored answer says the record does not exist, but the signed checkpoint covers {size} records",
            )
        residual_id = target.get("residualId")
        # The newest tree head read before asking; for a head that carries no signed checkpoint,
        # the tree the head item claims (what the TypeScript client proves records in).
        try:
            tree = self._claimed_tree(asked.lineage_id, newest)
        except LogVerificationError as error:
            return end("NOT_INTACT", error.verdict, error.reason)
        claimed = 0 if tree is None else tree.size
        if ("seq" in target and target["seq"] < claimed) or ("latest" in target and claimed > 0):
            # Records sealed, none past them integrated: the head item shows them, so "no such
            # record" is not triage's answer (docs/verifiable-log.md, "Recall"), as in TypeScript.
            return end(
                "NOT_INTACT",
                V.UNVERIFIED_TAMPER_RISK,
                f"the stored answer says the record does not exist, but the lineage's head item shows {claimed} "
                f"records (the lineage head the index holds has {size}; the rest sealed, awaiting integration)",
            )
        marked = self._marked_record(asked.lineage_id, residual_id, tree)
        if marked is not None:
            return end(
                "NOT_INTACT",
                V.UNVERIFIED_TAMPER_RISK,
                f"the stored answer says residual {residual_id} does not exist, but it is proven at seq {marked}",
            )
        decided: RecordFreshness | None = None
        if chain is not None:
            # docs/deployment-log.md, "Clients": absence is the index's to prove; a residual id or
            # record the index holds, missing from the table, is tamper, never "no such record".
            decided = (
                decide_absence(chain, residual_id=residual_id)
                if residual_id is not None
                else decide_absence(chain, seq=int(target.get("seq", 0)))
            )
            if decided is not None and decided.verdict is not None:
                return end("NOT_INTACT", decided.verdict, decided.reason, freshness=self._freshness_of(decided, chain))
        if residual_id is not None:
            # Absent from the index only as of its last integration: the records past it are
            # searched too, proven in that tree (item 3).
            past = recall_absence(self._proven_in(asked.lineage_id), residual_id, tree, chain, decided)
            decided = past.freshness
            fresh = None if decided is None or chain is None else self._freshness_of(decided, chain)
            if past.verdict is not None:
                return end("NOT_INTACT", past.verdict, past.reason or "", freshness=fresh)
        if decided is not None and chain is not None:
            return end(
                "NOT_FOUND",
                None,
                f"{decided.reason} [proven by the index]",
                freshness=self._freshness_of(decided, chain),
            )
        return end("NOT_FOUND", None, claim, untrusted=untrusted)

    def _seal_past_unusable_marker(self, asked: _RecallAsked) -> tuple[str, str, Freshness | None] | None:
        """The seal a residual-id marker naming no valid seq hides, as the index or the records past
        it prove it (verdict, reason, freshness), searched as for a deleted marker: triage refuses
        such a marker ``LINEAGE_BROKEN``, its unproven word (docs/verifiable-log.md, "Recall"), as
        the TypeScript ``Recalls`` does. ``None`` when the marker read here names a valid seq (or
        none is read), or nothing proves a seal: triage's refusal then stands, hedged."""
        lineage_id, residual_id, newest, chain = (
            asked.lineage_id,
            asked.target.get("residualId"),
            asked.newest,
            asked.chain,
        )
        if type(residual_id) is not str or isinstance(newest, LogVerificationError):
            return None
        location = self.table.find_by_residual_id(lineage_id, residual_id)
        if location is None or location.get("lineageId") != lineage_id:
            return None
        seq = location.get("seq")
        if type(seq) is int and seq >= 0:
            return None
        decided = None if chain is None else decide_absence(chain, residual_id=residual_id)
        if decided is not None and decided.verdict is not None and chain is not None:
            return decided.verdict, decided.reason, self._freshness_of(decided, chain)
        try:
            tree = self._claimed_tree(lineage_id, newest)
        except LogVerificationError:
            return None
        past = recall_absence(self._proven_in(lineage_id), residual_id, tree, chain, decided)
        if past.verdict is None:
            return None
        fresh = None if past.freshness is None or chain is None else self._freshness_of(past.freshness, chain)
        return past.verdict, past.reason or "", fresh

    def _claimed_tree(self, lineage_id: str, newest: Checkpoint | None) -> Checkpoint | None:
        """``newest``, or, when it was taken from the index (its head item carries no signed
        checkpoint), the tree the head item claims: ``seq + 1`` records, the root of its frontier (of ``seq``
        leaves) extended by the head record's leaf
        (``note`` ``None``: the table's word, as the TypeScript ``readLatestCheckpoint`` reads it).
        A claim no larger than ``newest`` is ``newest``.

        :raises LogVerificationError: ``LINEAGE_BROKEN`` when the head's frontier is not the
            frontier of a tree of that size
        """
        if newest is None or newest.note is not None:
            return newest
        stored = self.table.log_head(lineage_id)
        if stored is None or stored.checkpoint is not None:
            return newest
        seq = int(stored.head.get("seq", -1))
        size = seq + 1
        frontier = stored.frontier
        record_hash = stored.head["recordHash"]
        # The stored frontier is the tree's before the head record (``seq`` leaves), as the sealer
        # writes it and the TypeScript ``claimedLogState`` reads it; the head record is its last leaf.
        if (
            seq < 0
            or frontier is None
            or len(frontier) != bin(seq).count("1")
            or not all(is_hex_digest(h) for h in frontier)
            or not is_hex_digest(record_hash)
        ):
            raise LogVerificationError(
                lineage_id, V.LINEAGE_BROKEN, f"the head item's frontier is not that of a tree of {size} records"
            )
        if size <= newest.size:
            return newest
        root = range_root([*(bytes.fromhex(h) for h in frontier), leaf_hash(bytes.fromhex(record_hash))])
        return Checkpoint(newest.origin, size, root)

    def _marked_record(self, lineage_id: str, residual_id: Any, newest: Checkpoint | None) -> int | None:
        """The seq the residual id's marker names, when that record is proven in ``newest`` and is
        of that residual id: a ``NOT_FOUND`` its own marker contradicts (docs/verifiable-log.md,
        "Recall": a refusal the client can check). ``None`` otherwise: a marker that is gone or
        leads nowhere proves nothing either way."""
        if type(residual_id) is not str or newest is None:
            return None
        location = self.table.find_by_residual_id(lineage_id, residual_id)
        seq = None if location is None else location.get("seq")
        if type(seq) is not int or not 0 <= seq < newest.size:
            return None
        try:
            record = self._included_record(lineage_id, seq, newest)[0]
        except LogVerificationError:
            return None
        return seq if record["header"]["residualId"] == residual_id else None

    # --- the signed log ----------------------------------------------------------------------

    def receipt(self, lineage_id: str, seq: int, *, format_version: int = 2) -> dict[str, Any]:
        """A portable receipt for record ``seq``, proven here first (docs/verifiable-log.md,
        "Receipts"), as ``reseal export --receipt`` writes it: format 2 by default, the whole
        freshness chain from the table alone (the record's inclusion in the lineage head the
        index holds, the index proofs of the lineage and the residual id, the index root's leaf
        proof and the published deployment checkpoint; no lineage checkpoint), checked with this
        client's policy before it is returned. Format 1 carries the lineage's signed checkpoint,
        which only a head written by a signing sealer has.

        :raises NotIntegratedError: (format 2) the record is past the lineage head the index
            holds, its lineage or residual id is not indexed yet, or nothing is published
        :raises LogVerificationError: when the record cannot be proven, the chain does not verify,
            or the index maps the record's residual id elsewhere
        :raises InvalidInputError: format 2 from a client that reads no deployment log
            (``freshness=False``), format 1 without a signed lineage checkpoint, another format
        """
        if format_version == 1:
            record, inclusion, checkpoint, trusted = self._prove_record(lineage_id, seq)
            if checkpoint.note is None:
                raise InvalidInputError(
                    "receipt",
                    [
                        InputIssue(
                            "formatVersion",
                            "format 1 needs the lineage's signed checkpoint, which its head does not carry "
                            "(its tree head is committed through the index): ask format 2",
                        )
                    ],
                )
            self._keep(lineage_id, checkpoint, trusted)
            return WriteOutcome("SEALED", record=record, inclusion=inclusion, checkpoint=checkpoint).receipt(1)
        if format_version != 2:
            raise InvalidInputError("receipt", [InputIssue("formatVersion", "expected 2 (the default) or 1")])
        if self._chains is None:
            raise InvalidInputError(
                "receipt",
                [InputIssue("formatVersion", "format 2 needs the deployment log, which this client does not read")],
            )
        raw = self.table.read_record(lineage_id, seq)
        if raw is None:
            raise LogVerificationError(lineage_id, V.TRUNCATION_DETECTED, f"no record at seq {seq}")
        integrity = check_record_integrity(raw)
        if isinstance(integrity, IntegrityFailure):
            raise LogVerificationError(lineage_id, integrity.verdict, f"record {seq}: {integrity.reason}")
        record = integrity.record
        residual_id = record["header"]["residualId"]
        chain, evidence = self._chains.read_with_evidence(lineage_id, residual_id)
        if chain.kind == "UNPUBLISHED":
            raise NotIntegratedError(lineage_id, seq, chain.reason)
        if chain.kind == "REFUSED" or evidence is None or chain.checkpoint is None:
            raise LogVerificationError(
                lineage_id,
                V.UNVERIFIED_TAMPER_RISK,
                f"the deployment chain does not verify ({chain.refusal}): {chain.reason}",
            )
        at = f"deployment checkpoint {chain.checkpoint.size}"
        if chain.lineage is None:
            raise NotIntegratedError(lineage_id, seq, f"the lineage is not in the index as of {at}")
        size = int(chain.lineage["treeSize"])
        if seq >= size:
            raise NotIntegratedError(
                lineage_id, seq, f"seq {seq} is past the lineage head the index holds ({size} records) as of {at}"
            )
        if chain.residual is None:
            raise LogVerificationError(
                lineage_id,
                V.LINEAGE_BROKEN,
                f"the index holds {size} records of the lineage as of {at} but not residual {residual_id}, "
                f"sealed at seq {seq}",
            )
        inclusion = {
            "leafIndex": seq,
            "treeSize": size,
            "inclusionProof": self._proof(lineage_id, inclusion_proof_refs(seq, size)),
        }
        return self._chain_receipt(lineage_id, record, inclusion, chain, evidence)

    def latest_checkpoint(self, lineage_id: str) -> Checkpoint | None:
        """The lineage's latest authenticated tree head, consistent with the kept one (which it
        then replaces when signed): the head item's signed checkpoint, or, when the head carries
        none, the head the index holds (``note`` ``None``; size 0 while nothing is integrated);
        ``None`` for an unknown lineage.

        :raises LogVerificationError: on a rollback, a fork, or a checkpoint that does not verify
        """
        trusted = self._trusted(lineage_id)
        latest = self._latest(lineage_id, trusted)
        if latest is not None:
            self._keep(lineage_id, latest, trusted)
        return latest

    def proven_records(self, lineage_id: str) -> tuple[list[dict[str, Any]], Checkpoint | None]:
        """Every record of the lineage, each proven by inclusion in one authenticated tree head
        (the latest, consistent with the kept one, which it then replaces), in seq order; ``([],
        None)`` for a lineage that does not exist and was never kept. The framework adapters read
        their history with it (docs/frameworks.md). The tree head is the head item's signed
        checkpoint, or, when the head carries none, the lineage head the index holds (a
        :class:`Checkpoint` without ``note``): records sealed past it are awaiting integration and
        not returned. A lineage whose head item stands (or whose records stand without one) while no
        record is integrated (no
        deployment checkpoint published, or the index does not hold the lineage) is never answered
        empty: it raises, as the TypeScript session's ``history`` does (a table writer deleting the
        deployment head would otherwise empty the memory without an error).

        :raises LogVerificationError: ``UNVERIFIED_TAMPER_RISK``, reason ``sealed, awaiting
            integration: …``, when the lineage has records but none is integrated yet; on a
            rollback, a fork, a missing or edited record, or a
            checkpoint that does not verify; and when the deployment log shows the history is not
            the newest (``NOT_NEWEST``: the index holds a larger head, a rollback a cold client
            sees only there), contradicts it (``INCONSISTENT``) or does not verify (``REFUSED``,
            docs/deployment-log.md, "Clients"): nothing is returned then, not even the intact part
        """
        # Read before the head: a write integrated in between then never reads as a rollback.
        chain = None if self._chains is None else self._chains.read(lineage_id)
        trusted = self._trusted(lineage_id)
        latest = self._latest(lineage_id, trusted, chain)
        rolled_back = self._seen_contradiction(lineage_id, latest)
        if rolled_back is not None:
            raise LogVerificationError(lineage_id, V.UNVERIFIED_TAMPER_RISK, rolled_back.reason)
        if latest is None:
            absent = None if chain is None else decide_absence(chain, seq=0)
            if absent is not None and absent.verdict is not None:
                raise LogVerificationError(lineage_id, absent.verdict, f"{absent.state}: {absent.reason}")
            if self.table.last_record_seq(lineage_id) is not None:
                # Records without a head item the index does not hold: a first append in flight or
                # crashed (docs/sealing.md, "The append's layout", "What each reader changes"),
                # sealed but proven by no tree head yet: never empty memory.
                raise LogVerificationError(lineage_id, V.UNVERIFIED_TAMPER_RISK, _awaiting_reason(chain))
            return [], None
        if latest.size == 0:
            # A head item stands, so the lineage has records: none proven yet is never empty memory
            # (a deleted deployment head reads the same as one not yet published; docs/frameworks.md).
            raise LogVerificationError(lineage_id, V.UNVERIFIED_TAMPER_RISK, _awaiting_reason(chain))
        proven: list[dict[str, Any]] = []
        for seq in range(latest.size):
            proven.append(self._included_record(lineage_id, seq, latest)[0])
        twice = resealed_residual(proven)
        if twice is not None:
            residual_id, first, second = twice
            raise LogVerificationError(
                lineage_id,
                V.SEQUENCE_REPLAYED,
                f"INCONSISTENT: residual {residual_id} is sealed twice (seq {first} and seq {second}; "
                "RESIDUAL_CHANGED: the index keeps the first sealing): nothing is returned",
            )
        if chain is not None:
            decided = self._record_freshness(lineage_id, chain, latest, proven[-1], {"latest": True})
            if decided.verdict is not None:
                raise LogVerificationError(lineage_id, decided.verdict, f"{decided.state}: {decided.reason}")
        self._keep(lineage_id, latest, trusted)
        return proven, latest

    def _origin(self, lineage_id: str) -> str:
        return checkpoint_origin(self.stack.log_key.name, lineage_id)

    def _trusted(self, lineage_id: str) -> Checkpoint | None:
        """The kept checkpoint, verified again (the store file is not trusted either)."""
        note = None if self._checkpoints is None else self._checkpoints.load(self._origin(lineage_id))
        if note is None:
            return None
        try:
            return open_checkpoint(note, self.stack.log_key, self._origin(lineage_id))
        except ResealError as error:
            raise LogVerificationError(
                lineage_id, V.UNVERIFIED_TAMPER_RISK, f"the kept checkpoint does not verify: {error}"
            ) from error

    def _latest(
        self, lineage_id: str, trusted: Checkpoint | None, chain: DeploymentChain | None = None
    ) -> Checkpoint | None:
        """The lineage's authenticated tree head, shown to extend ``trusted``: the head item's
        signed checkpoint when it carries one, else the
        lineage head the index holds under the authenticated deployment checkpoint
        (:meth:`_indexed_head`, ``note`` ``None``; ``chain`` is read when not given). ``None``
        when the lineage does not exist and nothing was kept. A signed checkpoint never outranks
        the index: freshness places it against the indexed head (``NOT_NEWEST`` when smaller).

        The lineage's last record key (a ``Query``) is read only where the head item alone cannot
        decide: no head item, a head behind the index, a head claiming more than its signed
        checkpoint. A head that stands reads none, as the TypeScript ``readLatestCheckpoint`` reads
        it for a client (docs/pipeline.md, "Learning the outcome of a write")."""
        stored = self.table.log_head(lineage_id)

        def fail(verdict: str, reason: str) -> LogVerificationError:
            return LogVerificationError(lineage_id, verdict, reason)

        if stored is None:
            last = self.table.last_record_seq(lineage_id)
            if last is not None:
                # Records without a head item: a first append in flight or crashed where the index
                # does not hold the lineage; a deleted head where it does (docs/sealing.md, "The
                # append's layout", "What each reader changes").
                if chain is None and self._chains is not None:
                    chain = self._chains.read(lineage_id)
                if chain is not None and chain.kind == "REFUSED":
                    raise fail(
                        V.UNVERIFIED_TAMPER_RISK,
                        f"records up to seq {last} are stored without a head item and the deployment chain "
                        f"does not verify ({chain.refusal}): {chain.reason}",
                    )
                if chain is not None and chain.lineage is not None:
                    raise fail(
                        V.UNVERIFIED_TAMPER_RISK,
                        f"records up to seq {last} are stored without a head item, but the index holds "
                        f"{chain.lineage['treeSize']} records of the lineage (head deleted)",
                    )
            if trusted is not None:
                raise fail(V.TRUNCATION_DETECTED, "truncated: the lineage is gone but a kept checkpoint saw it")
            return None
        if stored.checkpoint is None:
            checkpoint = self._indexed_head(lineage_id, stored.head, chain)
        else:
            try:
                checkpoint = open_checkpoint(stored.checkpoint, self.stack.log_key, self._origin(lineage_id))
            except ResealError as error:
                raise fail(V.HASH_MISMATCH, f"the stored checkpoint does not verify: {error}") from error
            # Records stored past the head's tree are no finding: every append stores its records
            # before it moves the head (docs/sealing.md, "The append's layout").
            # The head claims more records than its signed checkpoint, and they are stored: a stale
            # note carried by a head written without one. The index is the tree head; the note must
            # agree with it. (Only such a head costs the last record key.)
            if int(stored.head.get("seq", -1)) + 1 > checkpoint.size and (
                (last := self.table.last_record_seq(lineage_id)) is not None and last >= checkpoint.size
            ):
                checkpoint = self._stale_signed(
                    lineage_id, checkpoint, self._indexed_head(lineage_id, stored.head, chain)
                )
        # The head item's frontier, a claim checked wherever it is used (known_log_nodes, _included_record).
        path = last_leaf_path_of(stored.frontier, int(stored.head.get("seq", -1)), checkpoint.size)
        if path is not None:
            checkpoint = replace(checkpoint, last_leaf_path=path)
        if trusted is not None:
            try:
                proof = (
                    []
                    if trusted.size > checkpoint.size
                    else self._consistency(lineage_id, trusted.size, checkpoint.size)
                )
            except LogVerificationError as error:
                raise _TrustedNotExtended(lineage_id, error.verdict, error.reason) from error
            checked = check_consistency(trusted, checkpoint, proof)
            if checked.verdict != V.VERIFIED_INTACT:
                # A signed head smaller than the kept one: two signed checkpoints, no table node.
                signed_rollback = checkpoint.note is not None and trusted.size > checkpoint.size
                raise _TrustedNotExtended(lineage_id, checked.verdict, checked.reason, proven=signed_rollback)
        return checkpoint

    def _indexed_head(self, lineage_id: str, head: Mapping[str, Any], chain: DeploymentChain | None) -> Checkpoint:
        """The lineage's tree head from the index, for a head item that carries no signed
        checkpoint (docs/deployment-log.md, "Clients": a lineage's tree head is committed through
        the index entry under the authenticated deployment checkpoint). Size 0 (the empty tree)
        while the lineage is not indexed or nothing is published: every record is sealed,
        awaiting integration. Nothing of the head item is trusted; its size only tells a
        rollback (fewer records than the index holds: ``NOT_NEWEST``) from a hidden record.

        :raises LogVerificationError: ``UNVERIFIED_TAMPER_RISK`` when the chain does not verify,
            this client reads no deployment log, or the table shows fewer records than the index
            holds
        """

        def fail(reason: str) -> LogVerificationError:
            return LogVerificationError(lineage_id, V.UNVERIFIED_TAMPER_RISK, reason)

        if chain is None and self._chains is not None:
            chain = self._chains.read(lineage_id)
        if chain is None:
            raise fail(
                "the head carries no signed checkpoint, and this client reads no deployment log to take the "
                "lineage's tree head from"
            )
        if chain.kind == "REFUSED" or (chain.kind != "UNPUBLISHED" and chain.checkpoint is None):
            raise fail(
                f"REFUSED: the head carries no signed checkpoint and the deployment chain does not verify "
                f"({chain.refusal}): {chain.reason}"
            )
        origin = self._origin(lineage_id)
        if chain.lineage is None:
            return Checkpoint(origin, 0, EMPTY_ROOT)
        size = int(chain.lineage["treeSize"])
        shown = int(head.get("seq", -1)) + 1
        if shown < size:
            # Records stored past a head behind the index count too: the last record key, read
            # only here, where the head item alone would call the table rolled back.
            last = self.table.last_record_seq(lineage_id)
            shown = max(shown, -1 if last is None else last + 1)
        if shown < size:
            at = "" if chain.checkpoint is None else f" as of deployment checkpoint {chain.checkpoint.size}"
            raise _NotNewestHead(
                lineage_id,
                f"NOT_NEWEST: the table shows {shown} records of the lineage, but the index holds {size}{at} "
                "(rolled back)",
                None if chain.checkpoint is None else chain.checkpoint.size,
            )
        return Checkpoint(origin, size, bytes.fromhex(chain.lineage["rootHash"]))

    def _stale_signed(self, lineage_id: str, signed: Checkpoint, indexed: Checkpoint) -> Checkpoint:
        """The index's tree head in place of a stale signed checkpoint (docs/python.md, "Tree heads
        from the index"), once the two are shown one history (RFC 9162, from the table's nodes).

        :raises LogVerificationError: ``LINEAGE_BROKEN`` when they are not shown to be one history
        """
        older, newer = (signed, indexed) if signed.size <= indexed.size else (indexed, signed)
        proof = [] if older.size in (0, newer.size) else self._consistency(lineage_id, older.size, newer.size)
        checked = check_consistency(older, newer, proof)
        if checked.verdict != V.VERIFIED_INTACT:
            raise LogVerificationError(
                lineage_id,
                V.LINEAGE_BROKEN,
                f"the head's stale signed checkpoint ({signed.size} records) and the head the index holds "
                f"({indexed.size} records) are not shown to be one history: {checked.reason}",
            )
        return indexed

    def _consistency(self, lineage_id: str, size1: int, size2: int, known: KnownLogNodes | None = None) -> list[str]:
        return self._proof(lineage_id, consistency_proof_refs(size1, size2), known)

    def _proof(
        self, lineage_id: str, groups: list[list[tuple[int, int]]], known: KnownLogNodes | None = None
    ) -> list[str]:
        """Proof elements from the table's nodes but those in ``known``
        (:func:`reseal.known_log_nodes.known_log_nodes`: no record item is read for them, and none
        at all when every node is known); one missing is a broken lineage. The caller checks the
        proof against the roots, so a forged node, read or known, only makes it fail."""
        refs = [ref for group in groups for ref in group]
        held = {} if known is None else {ref: known[ref] for ref in refs if ref in known}
        unread = [ref for ref in dict.fromkeys(refs) if ref not in held]
        hashes: dict[tuple[int, int], str | None] = dict(held)
        if unread:
            hashes.update(zip(unread, self.table.read_nodes(lineage_id, unread), strict=True))
        missing = [ref for ref, h in hashes.items() if h is None or len(h) != 64]
        if missing:
            level, index = missing[0]
            raise LogVerificationError(
                lineage_id, V.LINEAGE_BROKEN, f"cannot build the proof: tree node ({level}, {index}) is missing"
            )
        try:
            return [range_root([bytes.fromhex(str(hashes[ref])) for ref in group]).hex() for group in groups]
        except ValueError as error:
            raise LogVerificationError(lineage_id, V.LINEAGE_BROKEN, f"cannot build the proof: {error}") from error

    def _prove_record(
        self, lineage_id: str, seq: int, chain: DeploymentChain | None = None
    ) -> tuple[dict[str, Any], dict[str, Any], Checkpoint, Checkpoint | None]:
        """Record ``seq`` proven by inclusion in the latest tree head (consistent with the kept one).

        :raises NotIntegratedError: ``seq`` is past a tree head taken from the index
        :raises LogVerificationError: the record cannot be proven
        """
        trusted = self._trusted(lineage_id)
        latest = self._latest(lineage_id, trusted, chain)
        if latest is None:
            raise LogVerificationError(lineage_id, V.TRUNCATION_DETECTED, "the lineage has no records")
        if seq >= latest.size and latest.note is None:
            raise NotIntegratedError(
                lineage_id,
                seq,
                f"seq {seq} is past the lineage head the index holds ({latest.size} records); "
                "its head carries no signed checkpoint",
            )
        if seq >= latest.size:
            raise LogVerificationError(
                lineage_id, V.TRUNCATION_DETECTED, f"seq {seq} is past the signed checkpoint ({latest.size} records)"
            )
        record, inclusion = self._included_record(lineage_id, seq, latest)
        return record, inclusion, latest, trusted

    def _proven_in(self, lineage_id: str) -> Callable[[int, Checkpoint], dict[str, Any]]:
        """Reads a record of ``lineage_id`` proven in a tree head (:meth:`_included_record`), for a search."""
        return lambda seq, latest: self._included_record(lineage_id, seq, latest)[0]

    def _included_record(
        self, lineage_id: str, seq: int, latest: Checkpoint, raw: Any = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Record ``seq`` read from the table (``raw``: as already read) and proven by inclusion in
        ``latest``, with its proof.

        :raises LogVerificationError: when the record is missing or does not prove
        """
        if raw is None:
            raw = self.table.read_record(lineage_id, seq)
        if raw is None:
            raise LogVerificationError(lineage_id, V.LINEAGE_BROKEN, f"record {seq} is missing")
        # The last leaf's path from the head item's frontier: no node read when it proves the
        # record; else the nodes are read (the TypeScript proveStoredRecord).
        if latest.last_leaf_path is not None and seq == latest.size - 1:
            inclusion = {"leafIndex": seq, "treeSize": latest.size, "inclusionProof": list(latest.last_leaf_path)}
            proven = verify_record_proof(raw, inclusion, latest, lineage_id)
            if proven.verdict == V.VERIFIED_INTACT and proven.record is not None:
                return proven.record, inclusion
        inclusion = {
            "leafIndex": seq,
            "treeSize": latest.size,
            "inclusionProof": self._proof(lineage_id, inclusion_proof_refs(seq, latest.size)),
        }
        proven = verify_record_proof(raw, inclusion, latest, lineage_id)
        if proven.verdict != V.VERIFIED_INTACT or proven.record is None:
            raise LogVerificationError(lineage_id, proven.verdict, f"record {seq}: {proven.reason}")
        return proven.record, inclusion

    def _keep(self, lineage_id: str, checkpoint: Checkpoint, trusted: Checkpoint | None) -> None:
        """Keeps ``checkpoint`` (shown consistent with ``trusted``) when it is newer than the kept one."""
        if self._checkpoints is None or checkpoint.note is None or (trusted and trusted.size >= checkpoint.size):
            return
        current = self._trusted(lineage_id)  # read again: the store never moves back
        if current is not None and current.size >= checkpoint.size:
            return
        kept_note = None if current is None else current.note
        # Keep it only if the store still holds what was just read: a concurrent save of a newer
        # checkpoint is never overwritten (docs/python.md, the checkpoint store's concurrency rule).
        self._checkpoints.save(self._origin(lineage_id), checkpoint.note, lambda now: now == kept_note)

    def _poll(self, attempt: Callable[[bool], _T | None], what: str, timeout_s: float, interval_s: float) -> _T:
        """Calls ``attempt(final)`` until it returns something other than ``None``, sleeping
        ``interval_s`` between calls (never past the deadline); ``final`` tells the attempt it is
        the last, at the deadline (the wait never ends on one that was not): a wait that skips
        work between attempts on a cheap trigger does all of it there (the TypeScript ``pollUntil``).

        :raises WaitTimeoutError: the final attempt found nothing
        """
        deadline = self._clock() + timeout_s
        # The first attempt is the last when there is no time; after a sleep that reached the deadline, the next is.
        final = timeout_s <= 0
        while True:
            found = attempt(final)
            if found is not None:
                return found
            left = deadline - self._clock()
            if left <= 0:
                if final:
                    raise WaitTimeoutError(what, timeout_s)
                # The deadline passed during an attempt not told it was the last (a slow read): one more that is.
                final = True
                continue
            final = left <= interval_s
            self._sleep(min(interval_s, left))


def _binds_request(record: Mapping[str, Any], request: Mapping[str, Any]) -> bool:
    """Whether a sealed record is this request's seal, not another write's under its residual id.

    The same comparison as the TypeScript core's `differingWriteContent` (docs/authorship.md,
    "Signed writes"): every header field the sealer seals from the request, the boundary digest,
    the writer's key (`keyId`, `publicKey`; a format-1 record has none, so it differs) and the
    policy the write sets. The signature, `signedAtMs` and `senderId` are not compared: the same
    writer re-signing the same content is the same write.
    """
    header = record.get("header")
    if not isinstance(header, Mapping):
        return False
    writer = request.get("writer")
    sealed_writer = record.get("writer")
    policy = request.get("policy")
    try:
        derived = {
            "payloadHash": payload_hash(request["payload"]),
            "manifestDigest": manifest_digest(request["manifest"]),
            "variablesDigest": variables_digest(request["variablesUsed"]),
            "generationEpoch": request["generationEpoch"],
            "sessionId": request["sessionId"],
            "authority": request["authority"],
            "supersedes": request.get("supersedes"),
            "boundaryDigest": boundary_digest(request["boundary"], request["declaredImmutableConstants"]),
        }
        policy_side = policy_digest(policy) if policy is not None else None
    except (ResealError, KeyError, TypeError):
        return False
    if not all(canonical_json(v) == canonical_json(header.get(k)) for k, v in derived.items()):
        return False
    if not isinstance(writer, Mapping) or not isinstance(sealed_writer, Mapping):
        return False
    if any(writer.get(k) != sealed_writer.get(k) for k in ("keyId", "publicKey")):
        return False
    sealed_policy = header.get("policyDigest") if record.get("policy") is not None else None
    return policy_side == sealed_policy


def _awaiting_reason(chain: DeploymentChain | None) -> str:
    """Why a lineage with a head item proves no record yet: the tree head the index holds is the
    empty tree (the TypeScript ``checkWalkAgainstIndex`` reason, docs/deployment-log.md, "Clients")."""
    if chain is None or chain.kind == "UNPUBLISHED" or chain.checkpoint is None:
        at = "no deployment checkpoint published"
    else:
        at = f"the lineage not indexed yet as of deployment checkpoint {chain.checkpoint.size}"
    return (
        f"sealed, awaiting integration: past the tree head the index holds (0 records, {at}); "
        "verify again after the next integration"
    )


def _check_recall(lineage_id: Any, target: dict[str, Any], current_env: Any) -> None:
    from ._checks import Checker

    check = Checker()
    check.identifier(lineage_id, "lineageId")
    if not (
        (list(target) == ["latest"] and target["latest"] is True)
        or (list(target) == ["seq"] and type(target["seq"]) is int and target["seq"] >= 0)
        or (list(target) == ["residualId"] and check.identifier(target["residualId"], "target.residualId"))
    ):
        check.add("target", 'expected {"latest": True}, {"seq": n ≥ 0} or {"residualId": id}')
    if not isinstance(current_env, Mapping) or not all(
        type(k) is str and type(v) is str for k, v in current_env.items()
    ):
        check.add("currentEnv", "expected a mapping of strings to strings")
    check.raise_if_any("recall request")


def _session_region(environ: Mapping[str, str]) -> str | None:
    """The region :func:`connect` gives its ``boto3.Session``: ``AWS_REGION`` when it is set and
    ``AWS_DEFAULT_REGION`` is not (boto3 reads only the latter; the Node.js SDK, the CLI and the
    README set the former), else ``None``, leaving boto3 to read ``AWS_DEFAULT_REGION`` or the
    profile's region (docs/python.md, "The online loop"). An empty variable counts as unset."""
    if environ.get("AWS_DEFAULT_REGION"):
        return None
    return environ.get("AWS_REGION") or None


def connect(
    stack_name: str = DEFAULT_STACK_NAME,
    *,
    pin: str | os.PathLike[str] | None = None,
    writer_key: str | os.PathLike[str] | WriterKey | None = None,
    checkpoints: str | os.PathLike[str] | CheckpointStore | None = ".reseal/checkpoints.json",
    session: Any = None,
    policy: FreshnessPolicy | None = None,
    tenant_id: str | None = None,
) -> ResealClient:
    """A client of a deployed stack: from the stack pin file when there is one (``pin``,
    ``$RESEAL_STACK_FILE`` or ``.reseal/stack.json``: no ``DescribeStacks``, no ``GetPublicKey``),
    else from CloudFormation and KMS. AWS settings come from the environment (or ``session``, a
    ``boto3.Session``, taken as it is); the region from ``AWS_DEFAULT_REGION``, else
    ``AWS_REGION`` (boto3 reads only the former), else the profile's. Needs the ``aws`` extra
    (``pip install 'reseal[aws]'``).

    :param writer_key: a PKCS #8 PEM file of the writer key (or a :class:`WriterKey`)
    :param checkpoints: the checkpoint store file (shared with the TypeScript client), a store, or ``None``
    :param policy: the freshness policy (:func:`reseal.freshness_policy`); default the stack's log
        key alone (:func:`reseal.default_policy_text`, ``UNWITNESSED``)
    :param tenant_id: the tenant the client acts for in a stack with tenants (:class:`ResealClient`)
    :raises StackConfigError: no usable pin and no such stack
    """
    try:
        boto3: Any = importlib.import_module("boto3")
    except ImportError as error:
        raise ResealError("the online client needs boto3: pip install 'reseal[aws]'") from error
    aws = session if session is not None else boto3.Session(region_name=_session_region(os.environ))
    default_pin = os.environ.get("RESEAL_STACK_FILE") or ".reseal/stack.json"
    if pin is not None or os.path.exists(default_pin):
        stack = read_stack_pin(pin)
    else:
        stack = stack_from_cloudformation(stack_name, aws.client("cloudformation"), aws.client("kms"))
    writer = WriterKey.from_file(writer_key) if isinstance(writer_key, (str, os.PathLike)) else writer_key
    store = FileCheckpointStore(checkpoints) if isinstance(checkpoints, (str, os.PathLike)) else checkpoints
    return ResealClient(
        stack,
        dynamodb=aws.client("dynamodb"),
        sqs=aws.client("sqs"),
        events=aws.client("events"),
        writer=writer,
        checkpoints=store,
        policy=policy,
        tenant_id=tenant_id,
    )


def _sealer_refusal_finding(
    request: dict[str, Any], seal: WriteOutcome, refusal: WriteOutcome
) -> UnverifiedOutcomeError:
    """The finding when a seal of ``request`` no signed tree proves stands beside a refusal the
    sealer signed for this very request: the sealer answers a delivery of a request it sealed as
    a duplicate, never with a refusal (docs/pipeline.md, "Polling the table"; an exact duplicate
    before admission, docs/authorship.md, "Two refusals, in order"). Both stand only on an edited
    table (a marker pointed away, then back; a rolled-back head), so neither is an answer to act on."""
    item = refusal.refusal or {}
    kind = "conflict" if refusal.kind == "CONFLICT" else "rejection"
    seq = seal.seq if seal.seq is not None else -1
    record_hash = (seal.record or {}).get("recordHash")
    state = seal.freshness.state if seal.freshness is not None else "not proven"
    return UnverifiedOutcomeError(
        request["lineageId"],
        request["residualId"],
        seq,
        V.UNVERIFIED_TAMPER_RISK,
        f"its seal (seq {seq}, record {record_hash}, {state}) stands beside a {item.get('reason')} {kind} "
        f"(at {item.get('atMs')} ms) the sealer signed for this very request; an honest sealer answers a "
        "request it sealed as a duplicate and never refuses it, so the table was edited: act on neither",
    )
