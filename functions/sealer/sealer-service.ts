import { createHash } from 'node:crypto';
import { FORMAT_VERSION } from '../../shared/canonical/digest';
import { parseStrictJson, StrictJsonError, StrictJsonFailure } from '../../shared/canonical/strict-json';
import { ResealError } from '../../shared/errors';
import { DEFAULT_MAX_RECEIPT_AGE_SECONDS } from '../../shared/guard/policy';
import type { EventPublisher } from '../../shared/ports/event-publisher';
import {
  ConflictReason,
  DuplicateResidualError,
  LineageInconsistentError,
  type LineageStore,
  type RejectionRecord,
  StaleEpochError,
  StaleHeadError,
} from '../../shared/ports/lineage-store';
import type { MacAnchor } from '../../shared/ports/mac-anchor';
import { RejectionReason, RejectionStage, type SealRequest, SealRequestSchema } from '../../shared/schemas/messages';
import { AnchorUnavailableError } from '../../shared/seal/errors';
import { sealRecord } from '../../shared/seal/residual-sealer';
import { type LineageHead, lineageHeadOf, SealedRecordSchema } from '../../shared/seal/sealed-record';
import { differingWriteContent } from '../../shared/seal/write-content';
import { MetricName, type PipelineMetrics, type ServiceLogger } from '../common/observability';
import { rejectedDetailOf } from '../common/rejection';
import { checkSealRequest, resolveSealRequestPolicy, type SealRequestRefusal } from './seal-request-check';

/** Appends tried per message when the head keeps moving (lost races), before a conflict is recorded. */
export const MAX_APPEND_ATTEMPTS = 5;

/** One `seal-requests` message, as the sealer needs it. */
export interface SealMessage {
  readonly messageId: string;
  readonly body: string;
  /** SQS `SentTimestamp`, ms. */
  readonly sentAtMs: number;
}

/** What happened to a seal request. Every one ends in exactly one of these. */
export type SealOutcome =
  | { readonly kind: 'SEALED'; readonly head: LineageHead; readonly attempts: number }
  | { readonly kind: 'DUPLICATE'; readonly head: LineageHead | null }
  | { readonly kind: 'CONFLICT'; readonly reason: ConflictReason }
  | { readonly kind: 'REJECTED'; readonly reason: RejectionReason };

/** Dependencies of {@link SealerService}, injected. */
export interface SealerDeps {
  readonly store: LineageStore;
  readonly publisher: EventPublisher;
  readonly anchor: MacAnchor;
  readonly metrics: PipelineMetrics;
  readonly logger: ServiceLogger;
  readonly clock: () => number;
  /** Override of {@link MAX_APPEND_ATTEMPTS}. */
  readonly maxAppendAttempts?: number;
  /**
   * The guard's receipt age limit, seconds (`MAX_RECEIPT_AGE_SECONDS`, the guard's value): the
   * sealer re-runs the guard with it. @default {@link DEFAULT_MAX_RECEIPT_AGE_SECONDS}
   */
  readonly maxReceiptAgeSeconds?: number;
  /** Oldest `acceptedAtMs` accepted, seconds: the `seal-requests` retention. @default 4 days */
  readonly maxRequestAgeSeconds?: number;
}

/**
 * Per-message logic of the sealer Lambda (seed 003): idempotent by residual id within the
 * lineage (the same id in another lineage is another residual); reads the head, seals (header
 * MAC'd by the anchor), appends with one conditional transaction, and emits `ResidualSealed` with
 * the new head.
 *
 * - Redelivery (marker present in this lineage, or the append reports a duplicate) with the same
 *   content (`payloadHash`, `manifestDigest`, `variablesDigest`, `generationEpoch`, `sessionId`,
 *   `authority`, `supersedes` equal to the stored header's): no second record; the stored
 *   record's head is re-emitted (events are at least once). A marker whose record is missing or
 *   unreadable: a `LINEAGE_INCONSISTENT` conflict record + `ResidualRejected`.
 * - The residual id sealed in this lineage with other content: a `RESIDUAL_ID_REUSED`
 *   rejection record + `ResidualRejected`, never retried.
 * - Head behind the records (`LineageInconsistentError`: the head held but the next seq is taken,
 *   i.e. the head was rewound or deleted): a `LINEAGE_INCONSISTENT` conflict record +
 *   `ResidualRejected`, never retried (it is not a race).
 * - Lost race (`StaleHeadError`): re-read the head, re-seal, retry up to
 *   {@link MAX_APPEND_ATTEMPTS}; then a `LOST_RACE` conflict record + `ResidualRejected`.
 * - Fenced out (`StaleEpochError`, from the core or the store): a `STALE_EPOCH` conflict
 *   record + `ResidualRejected`, never retried.
 * - A body that is not a valid `SealRequest`, or a write the core cannot seal (e.g. header over
 *   4,096 bytes): rejection record + `ResidualRejected`.
 * - A verdict the sealer cannot reproduce (`checkSealRequest`: the guard re-run at `acceptedAtMs`
 *   is unsafe or gives another `verdictDigest`; `acceptedAtMs` in the future or older than the
 *   queue's retention): `VERDICT_MISMATCH` / `ACCEPTANCE_TIME_INVALID` rejection record +
 *   `ResidualRejected`, before anything is read or sealed. The carried verdict is never trusted.
 * Rejects only on infrastructure failures (KMS, DynamoDB, EventBridge) so the FIFO message is
 * retried in order, and finally dead-lettered.
 */
export class SealerService {
  readonly #deps: SealerDeps;
  /** @throws {InvalidInputError} when `maxReceiptAgeSeconds` or `maxRequestAgeSeconds` is malformed */
  constructor(deps: SealerDeps) {
    this.#deps = deps;
    resolveSealRequestPolicy(this.#policyAt(0));
  }

  #policyAt(nowMs: number) {
    const { maxReceiptAgeSeconds, maxRequestAgeSeconds } = this.#deps;
    return {
      nowMs,
      maxReceiptAgeSeconds: maxReceiptAgeSeconds ?? DEFAULT_MAX_RECEIPT_AGE_SECONDS,
      ...(maxRequestAgeSeconds === undefined ? {} : { maxRequestAgeSeconds }),
    };
  }

  async handle(message: SealMessage): Promise<SealOutcome> {
    const { store, logger } = this.#deps;
    let json: unknown;
    try {
      json = parseStrictJson(message.body, 'seal request');
    } catch (error) {
      if (!(error instanceof StrictJsonError)) throw error;
      // A repeated member name (or excessive nesting) is valid JSON the wire format refuses.
      const reason =
        error.failure === StrictJsonFailure.SYNTAX ? RejectionReason.MALFORMED_JSON : RejectionReason.SCHEMA_VIOLATION;
      return this.#reject(
        message,
        null,
        reason,
        error.issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; '),
      );
    }
    const parsed = SealRequestSchema.safeParse(json);
    if (!parsed.success) {
      const detail = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
      return this.#reject(message, null, RejectionReason.SCHEMA_VIOLATION, detail);
    }
    const sealRequest = parsed.data;
    const { lineageId, residualId } = sealRequest.request;
    logger.appendKeys({ lineageId, residualId });

    const refusal = checkSealRequest(sealRequest, {
      ...this.#policyAt(this.#deps.clock()),
      sentAtMs: message.sentAtMs,
    });
    if (refusal) {
      const { reason, detail, rejectedVariables, requestViolations } = refusal;
      return this.#reject(message, sealRequest, reason, detail, { rejectedVariables, requestViolations });
    }

    const existing = await store.findByResidualId(lineageId, residualId);
    if (existing) return this.#duplicate(message, sealRequest, existing.seq);

    const attempts = this.#deps.maxAppendAttempts ?? MAX_APPEND_ATTEMPTS;
    let lastRace: StaleHeadError | null = null;
    let expectedHead: LineageHead | null = null;
    let attemptedHeader: unknown = null;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      expectedHead = await store.head(lineageId);
      try {
        const sealed = await sealRecord(inputOf(sealRequest), expectedHead, this.#deps.anchor, this.#deps.clock());
        attemptedHeader = sealed.header;
        await store.append(sealed, expectedHead);
        return this.#sealed(lineageHeadOf(sealed), residualId, sealed.sealedAtMs, attempt);
      } catch (error) {
        if (error instanceof DuplicateResidualError) {
          return this.#duplicate(message, sealRequest, error.existing?.seq ?? null);
        }
        if (error instanceof LineageInconsistentError) {
          return this.#conflict(message, sealRequest, ConflictReason.LINEAGE_INCONSISTENT, error.message, {
            attemptedHeader,
            expectedHead,
            observedHead: expectedHead,
          });
        }
        if (error instanceof StaleEpochError) {
          return this.#conflict(message, sealRequest, ConflictReason.STALE_EPOCH, error.message, {
            attemptedHeader,
            expectedHead,
            observedHead: null,
          });
        }
        if (error instanceof StaleHeadError) {
          lastRace = error;
          this.#deps.metrics.count(MetricName.SealRetry);
          logger.warn('lost the append race; re-reading the head', { attempt, expectedSeq: error.expectedSeq });
          continue;
        }
        if (error instanceof ResealError && !(error instanceof AnchorUnavailableError)) {
          // The core refused the input (header too large, malformed head or supersedes): permanent.
          return this.#reject(message, sealRequest, RejectionReason.SEAL_REFUSED, error.message);
        }
        throw error;
      }
    }
    return this.#conflict(
      message,
      sealRequest,
      ConflictReason.LOST_RACE,
      `head moved on each of ${attempts} attempts`,
      { attemptedHeader, expectedHead, observedHead: lastRace?.observedHead ?? null },
    );
  }

  async #sealed(head: LineageHead, residualId: string, sealedAtMs: number, attempts: number): Promise<SealOutcome> {
    await this.#deps.publisher.residualSealed({ formatVersion: FORMAT_VERSION, residualId, sealedAtMs, ...head });
    this.#deps.metrics.count(MetricName.RecordSealed);
    this.#deps.logger.info('record sealed', { seq: head.seq, recordHash: head.recordHash, attempts });
    return { kind: 'SEALED', head, attempts };
  }

  /**
   * The residual id is sealed in this lineage already. Same content: a redelivery; re-emit the
   * stored record's head so a lost event is not lost for good. Other content: the id was reused
   * for another write, which is rejected (`RESIDUAL_ID_REUSED`) instead of vanishing. A marker
   * whose record is missing or unreadable: a `LINEAGE_INCONSISTENT` conflict record.
   */
  async #duplicate(message: SealMessage, request: SealRequest, seq: number | null): Promise<SealOutcome> {
    const { store, publisher, metrics, logger } = this.#deps;
    const { lineageId, residualId } = request.request;
    const stored = seq === null ? null : SealedRecordSchema.safeParse(await store.readRecord(lineageId, seq));
    if (!stored?.success) {
      // The marker names a record that is missing or unreadable: the write is neither sealed
      // (nothing to compare its content with) nor dropped silently; it is left as a conflict.
      const where = seq === null ? 'at an unknown seq' : `at seq ${seq}`;
      return this.#conflict(
        message,
        request,
        ConflictReason.LINEAGE_INCONSISTENT,
        `residual id ${residualId} is marked as sealed in lineage ${lineageId} ${where}, but that record is missing or unreadable`,
        { attemptedHeader: null, expectedHead: null, observedHead: null },
      );
    }
    const differing = differingWriteContent(request.request, stored.data.header);
    if (differing.length > 0) {
      return this.#reject(
        message,
        request,
        RejectionReason.RESIDUAL_ID_REUSED,
        `residual id ${residualId} is already sealed in lineage ${lineageId} at seq ${stored.data.header.monotonicSequenceNumber} with other content (${differing.join(', ')} differ)`,
      );
    }
    metrics.count(MetricName.SealDuplicate);
    const head = lineageHeadOf(stored.data);
    await publisher.residualSealed({
      formatVersion: FORMAT_VERSION,
      residualId,
      sealedAtMs: stored.data.sealedAtMs,
      ...head,
    });
    logger.info('residual already sealed (redelivery); no second record', { seq: head.seq });
    return { kind: 'DUPLICATE', head };
  }

  async #conflict(
    message: SealMessage,
    request: SealRequest,
    reason: ConflictReason,
    detail: string,
    heads: { attemptedHeader: unknown; expectedHead: LineageHead | null; observedHead: LineageHead | null },
  ): Promise<SealOutcome> {
    const { lineageId, residualId } = request.request;
    await this.#deps.store.recordConflict({ lineageId, residualId, reason, detail, atMs: message.sentAtMs, ...heads });
    this.#deps.metrics.count(MetricName.SealConflict, { reason });
    this.#deps.logger.warn('write not appended; conflict recorded', { reason, detail });
    await this.#deps.publisher.residualRejected(
      rejectedDetailOf(this.#rejectionOf(message, request, reason, detail), this.#deps.clock()),
    );
    return { kind: 'CONFLICT', reason };
  }

  async #reject(
    message: SealMessage,
    request: SealRequest | null,
    reason: RejectionReason,
    detail: string,
    lists?: Pick<SealRequestRefusal, 'rejectedVariables' | 'requestViolations'>,
  ): Promise<SealOutcome> {
    const rejection = { ...this.#rejectionOf(message, request, reason, detail), ...lists };
    await this.#deps.store.recordRejection(rejection);
    await this.#deps.publisher.residualRejected(rejectedDetailOf(rejection, this.#deps.clock()));
    this.#deps.metrics.count(MetricName.WriteRejected, { reason });
    this.#deps.logger.error('seal request refused', { reason, detail });
    return { kind: 'REJECTED', reason };
  }

  #rejectionOf(message: SealMessage, request: SealRequest | null, reason: RejectionReason, detail: string) {
    return {
      stage: RejectionStage.SEALER,
      reason,
      lineageId: request?.request.lineageId ?? null,
      residualId: request?.request.residualId ?? null,
      messageId: message.messageId,
      verdictDigest: request?.verdict.verdictDigest ?? null,
      bodyDigest: createHash('sha256').update(message.body, 'utf8').digest('hex'),
      bodyPreview: message.body.slice(0, 1024).toWellFormed(),
      issues: [{ path: '', message: detail.slice(0, 4096) }],
      rejectedVariables: [],
      requestViolations: [],
      atMs: message.sentAtMs,
    } satisfies RejectionRecord;
  }
}

function inputOf(request: SealRequest) {
  const { request: write, verdict } = request;
  return {
    lineageId: write.lineageId,
    residualId: write.residualId,
    sessionId: write.sessionId,
    payload: write.payload,
    generationEpoch: write.generationEpoch,
    authority: write.authority,
    manifest: write.manifest,
    verdictDigest: verdict.verdictDigest,
    variablesUsed: write.variablesUsed,
    ...(write.supersedes ? { supersedes: write.supersedes } : {}),
  };
}
