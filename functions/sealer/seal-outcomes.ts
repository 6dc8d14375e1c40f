import { RejectionReason } from '../../shared/pipeline/rejection-reason';
import { RejectionStage } from '../../shared/pipeline/rejection-stage';
import type { SealRequest } from '../../shared/pipeline/seal-request';
import type { SealedTreeHead } from '../../shared/pipeline/sealed-tree-head';
import type { ConflictReason } from '../../shared/ports/conflict-reason';
import type { RejectionRecord } from '../../shared/ports/lineage-store';
import { clipText } from '../../shared/schemas/clip-text';
import { escapeLoneSurrogates } from '../../shared/schemas/escape-lone-surrogates';
import { type LineageHead, lineageHeadOf } from '../../shared/seal/lineage-head';
import type { ValidatedSealInput } from '../../shared/seal/seal-input';
import type { SealedRecord } from '../../shared/seal/sealed-record';
import { differingWriteContent } from '../../shared/seal/write-content';
import { requestDigest } from '../../shared/write/request-digest';
import { MetricName } from '../common/metric-name';
import type { PipelineMetrics } from '../common/pipeline-metrics';
import type { QueueMessage } from '../common/queue-message';
import type { RefusalRecorder } from '../common/refusal-recorder';
import { rejectionRecord } from '../common/rejection-record';
import type { ServiceLogger } from '../common/service-logger';
import type { SealRequestRefusal } from './seal-request-check';

/** One `seal-requests` message, as the sealer needs it. */
export type SealMessage = QueueMessage;

/** What happened to a seal request. Every one ends in exactly one of these. */
export type SealOutcome =
  | {
      readonly kind: 'SEALED';
      /** The residual id sealed (the invocation's `batch handled` line names it, docs/pipeline.md "Logs and metrics"). */
      readonly residualId: string;
      readonly head: LineageHead;
      /** The record's `sealedAtMs`. */
      readonly sealedAtMs: number;
      readonly attempts: number;
      /** The tree head the run stored: sealed, awaiting integration. */
      readonly sealedTreeHead: SealedTreeHead;
      /** Transitional: the run's signed lineage checkpoint, `null` once the sealer no longer signs. */
      readonly checkpoint: string | null;
    }
  | {
      readonly kind: 'DUPLICATE';
      readonly residualId: string;
      /** The stored record's head, re-announced. */
      readonly head: LineageHead;
      readonly sealedAtMs: number;
      /** The tree head of the state the redelivery read (`null`: none authenticated). */
      readonly sealedTreeHead: SealedTreeHead | null;
      readonly checkpoint: string | null;
    }
  | { readonly kind: 'CONFLICT'; readonly reason: ConflictReason }
  | { readonly kind: 'REJECTED'; readonly reason: RejectionReason };

/** Rejections recorded without a statement: the writer-key refusals and the refusals of a run against the index. */
const UNSIGNED_REASONS: ReadonlySet<RejectionReason> = new Set([
  RejectionReason.WRITER_NOT_ADMITTED,
  RejectionReason.WRITER_SIGNATURE_INVALID,
  RejectionReason.LINEAGE_BEHIND_INDEX,
  RejectionReason.INDEX_UNVERIFIABLE,
]);

/** A message that passed every check and waits in a run to be sealed. */
export interface Pending {
  /** Its place in the message group. */
  readonly index: number;
  readonly message: SealMessage;
  readonly request: SealRequest;
  /** The write's seal input, validated and digested with the request. */
  readonly seal: ValidatedSealInput;
}

/** The heads a conflict record names: read before sealing, seen by the failed append, and the header tried. */
export interface ConflictHeads {
  readonly expectedHead: LineageHead | null;
  readonly observedHead: LineageHead | null;
  readonly attemptedHeader?: unknown;
}

/** The lineage and residual ids a rejection is filed under when the body is not a valid request. */
export interface NamedIds {
  readonly lineageId: string | null;
  readonly residualId: string | null;
}

/** What {@link SealOutcomes} needs: metrics, logger, and where refusals are recorded (signed, with their event). */
export interface SealOutcomesDeps {
  readonly metrics: PipelineMetrics;
  readonly logger: ServiceLogger;
  readonly refusals: RefusalRecorder;
}

/**
 * How the sealer settles and announces each write (docs/pipeline.md, the outcome table): an
 * outcome the invocation's `ResidualSealed` event announces for a sealed record or a redelivery, a signed rejection record plus
 * `ResidualRejected` for a refusal, a signed conflict record for a write that could not be
 * appended. Each returns the write's {@link SealOutcome}.
 */
export class SealOutcomes {
  readonly #deps: SealOutcomesDeps;
  constructor(deps: SealOutcomesDeps) {
    this.#deps = deps;
  }

  /**
   * A record appended, with the tree head the run stored (sealed, awaiting integration): its
   * outcome, which the invocation announces in its one `ResidualSealed` event (sealer-service.ts).
   * No log line of its own: the invocation's `batch handled` line names it (docs/pipeline.md,
   * "Logs and metrics"); its seq and hash are in the event and the table.
   */
  sealed(
    record: SealedRecord,
    sealedTreeHead: SealedTreeHead,
    checkpoint: string | null,
    attempts: number,
  ): SealOutcome {
    const head = lineageHeadOf(record);
    this.#deps.metrics.count(MetricName.RecordSealed);
    return {
      kind: 'SEALED',
      residualId: record.header.residualId,
      head,
      sealedAtMs: record.sealedAtMs,
      attempts,
      sealedTreeHead,
      checkpoint,
    };
  }

  /**
   * The residual id is sealed in this lineage already, as `record`. Same content: a redelivery,
   * whose outcome re-announces the stored record's head in the invocation's `ResidualSealed`
   * event, so a lost event is not lost for good. Other content: the id
   * was reused for another write, which is rejected (`RESIDUAL_ID_REUSED`) instead of vanishing.
   */
  async duplicate(
    item: Pending,
    record: SealedRecord,
    sealedTreeHead: SealedTreeHead | null,
    checkpoint: string | null,
  ): Promise<SealOutcome> {
    const { lineageId, residualId } = item.request.request;
    const differing = differingWriteContent(item.request.request, record);
    if (differing.length > 0) {
      return this.reject(
        item.message,
        item.request,
        RejectionReason.RESIDUAL_ID_REUSED,
        `residual id ${residualId} is already sealed in lineage ${lineageId} at seq ${record.header.monotonicSequenceNumber} with other content (${differing.join(', ')} differ)`,
      );
    }
    this.#deps.metrics.count(MetricName.SealDuplicate);
    const head = lineageHeadOf(record);
    this.#deps.logger.info('residual already sealed (redelivery); no second record', {
      lineageId,
      residualId,
      seq: head.seq,
    });
    return { kind: 'DUPLICATE', residualId, head, sealedAtMs: record.sealedAtMs, sealedTreeHead, checkpoint };
  }

  /** A write not appended: a signed conflict record (and the rejection its writer reads). */
  async conflict(item: Pending, reason: ConflictReason, detail: string, heads: ConflictHeads): Promise<SealOutcome> {
    const { message, request } = item;
    const { lineageId, residualId } = request.request;
    await this.#deps.refusals.conflict(
      {
        lineageId,
        residualId,
        reason,
        detail: clipText(escapeLoneSurrogates(detail), 4096),
        attemptedHeader: heads.attemptedHeader ?? null,
        expectedHead: heads.expectedHead,
        observedHead: heads.observedHead,
        atMs: message.sentAtMs,
        messageId: message.messageId,
        requestDigest: requestDigest(request.request),
        statement: null,
      },
      rejectionOf(message, request, reason, detail),
    );
    this.#deps.logger.warn('write not appended; conflict recorded', { lineageId, residualId, reason, detail });
    return { kind: 'CONFLICT', reason };
  }

  /** Records the same conflict for each of `items` (heads per item), into `outcomes`. */
  async conflictAll(
    items: readonly Pending[],
    outcomes: Map<number, SealOutcome>,
    reason: ConflictReason,
    detail: string,
    headsOf: (item: Pending) => ConflictHeads,
  ): Promise<void> {
    for (const item of items) outcomes.set(item.index, await this.conflict(item, reason, detail, headsOf(item)));
  }

  /**
   * A refused write: a signed rejection record plus `ResidualRejected` (unsigned for
   * `WRITER_NOT_ADMITTED` and `WRITER_SIGNATURE_INVALID`, docs/authorship.md, and for
   * `LINEAGE_BEHIND_INDEX` and `INDEX_UNVERIFIABLE`, docs/sealing.md "The index floor"). Without a parsed request,
   * it is filed under the `ids` the body names (when valid), so its writer finds it.
   */
  async reject(
    message: SealMessage,
    request: SealRequest | null,
    reason: RejectionReason,
    detail: string,
    lists?: Pick<SealRequestRefusal, 'rejectedVariables' | 'requestViolations'>,
    ids: NamedIds = { lineageId: null, residualId: null },
  ): Promise<SealOutcome> {
    // Refusals anyone (a stranger's key, the table writer) can provoke cost no Sign (docs/authorship.md, docs/sealing.md).
    const sign = !UNSIGNED_REASONS.has(reason);
    await this.#deps.refusals.reject(rejectionOf(message, request, reason, detail, lists, request ? undefined : ids), {
      sign,
    });
    const named = request ? request.request : ids;
    this.#deps.logger.error('seal request refused', {
      lineageId: named.lineageId,
      residualId: named.residualId,
      messageId: message.messageId,
      reason,
      detail,
    });
    return { kind: 'REJECTED', reason };
  }
}

/** The rejection record of a message at the sealer stage: its `detail` as the one issue; filed under `ids` without a parsed request. */
function rejectionOf(
  message: SealMessage,
  request: SealRequest | null,
  reason: RejectionReason,
  detail: string,
  lists: Pick<SealRequestRefusal, 'rejectedVariables' | 'requestViolations'> = {
    rejectedVariables: [],
    requestViolations: [],
  },
  ids: NamedIds = { lineageId: null, residualId: null },
): RejectionRecord {
  return rejectionRecord({
    stage: RejectionStage.SEALER,
    reason,
    message,
    lineageId: request?.request.lineageId ?? ids.lineageId,
    residualId: request?.request.residualId ?? ids.residualId,
    verdictDigest: request?.verdict.verdictDigest ?? null,
    requestDigest: request ? requestDigest(request.request) : null,
    issues: [{ path: '', message: detail }],
    ...lists,
  });
}
