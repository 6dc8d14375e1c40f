import { FORMAT_VERSION } from '../../shared/canonical/digest';
import { ResealError } from '../../shared/errors';
import type { EventPublisher } from '../../shared/ports/event-publisher';
import type { LineageStore } from '../../shared/ports/lineage-store';
import type { MacAnchor } from '../../shared/ports/mac-anchor';
import {
  type RecallRequestedDetail,
  RecallRequestedDetailSchema,
  RefusalCode,
  type TriageCompletedDetail,
  TriageOutcome,
} from '../../shared/schemas/messages';
import { Identifier } from '../../shared/schemas/primitives';
import type { ChainVerification } from '../../shared/seal/chain-verification';
import { verifyChain } from '../../shared/seal/lineage-verifier';
import { type LineageHead, SealedRecordSchema } from '../../shared/seal/sealed-record';
import { checkStoredHead, recordsSeen, withStoredHeadFinding } from '../../shared/seal/stored-head';
import { VerificationVerdict } from '../../shared/seal/verification-verdict';
import { type DeltaIsolationReport, isolateDelta } from '../../shared/triage/delta-isolator';
import { MetricName, type PipelineMetrics, type ServiceLogger } from '../common/observability';

/** Dependencies of {@link TriageService}, injected. */
export interface TriageDeps {
  readonly store: LineageStore;
  readonly publisher: EventPublisher;
  /** Verifies MACs (KMS `VerifyMac`); the triage role cannot generate them. */
  readonly anchor: MacAnchor;
  readonly metrics: PipelineMetrics;
  readonly logger: ServiceLogger;
  readonly clock: () => number;
}

/** Outcome of one `RecallRequested` event. */
export type TriageResult =
  | { readonly kind: 'COMPLETED'; readonly detail: TriageCompletedDetail }
  | { readonly kind: 'INVALID'; readonly issues: string; readonly detail: TriageCompletedDetail | null };

/**
 * Per-event logic of the triage Lambda (seed 000 on a record verified per seed 003).
 *
 * 1. Parse the `RecallRequested` detail. Invalid → logged and counted (`INVALID`, never retried:
 *    a retry could not fix it). When its `requestId` and `lineageId` are still usable, a `REFUSED`
 *    report (`INVALID_REQUEST`) naming every bad field is stored and announced, so the requester gets an answer
 *    instead of a time-out; without them there is nowhere the triage role may write.
 * 2. A report already stored for this request id is re-emitted, not recomputed (retries are safe).
 * 3. Resolve the target (`seq`, `residualId` through its marker in this lineage, or `latest`
 *    through the head item, which is only a claim until step 4 has checked it).
 * 4. Load records 0 … max(target, checkpoint.seq, head.seq, last stored seq) and `verifyChain`
 *    them with the anchor and the caller's checkpoint, then check the stored head against them
 *    (`checkStoredHead`: records past it, another hash at its seq, records without it →
 *    `LINEAGE_BROKEN`; records ending before it → `TRUNCATION_DETECTED`), so a `latest` recall
 *    never silently uses a rewound head. A MAC that cannot be checked (KMS key disabled, missing,
 *    unreachable) yields `UNVERIFIED_TAMPER_RISK`. Anything but `VERIFIED_INTACT` → refused
 *    (`VERIFICATION_FAILED`), no triage; an empty lineage or a target not in the verified chain →
 *    refused (`NOT_FOUND`).
 * 5. `isolateDelta(record.manifest, currentEnv)` (a manifest it refuses → `MANIFEST_UNTRIAGEABLE`); store the report (pk `TRIAGE#<lineageId>`);
 *    emit `TriageCompleted`.
 * Rejects only on infrastructure failures (store, bus), so EventBridge retries the invocation.
 */
export class TriageService {
  readonly #deps: TriageDeps;
  constructor(deps: TriageDeps) {
    this.#deps = deps;
  }

  async handle(detail: unknown): Promise<TriageResult> {
    const { store, publisher, metrics, logger } = this.#deps;
    const parsed = RecallRequestedDetailSchema.safeParse(detail);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
      metrics.count(MetricName.RecallInvalid);
      logger.error('RecallRequested detail is invalid; nothing triaged', { issues });
      const refusal = this.#invalidRecallReport(detail, issues);
      if (refusal && !(await store.getTriageReport(refusal.lineageId, refusal.requestId))) {
        await store.putTriageReport(refusal);
        await publisher.triageCompleted(refusal);
      }
      return { kind: 'INVALID', issues, detail: refusal };
    }
    const recall = parsed.data;
    logger.appendKeys({ lineageId: recall.lineageId, requestId: recall.requestId });

    const previous = await store.getTriageReport(recall.lineageId, recall.requestId);
    if (previous) {
      await publisher.triageCompleted(previous);
      logger.info('triage report already stored for this request; re-emitted');
      return { kind: 'COMPLETED', detail: previous };
    }
    const result = await this.#triage(recall);
    await store.putTriageReport(result);
    await publisher.triageCompleted(result);
    metrics.count(MetricName.TriageVerdict, {
      outcome: result.outcome,
      verification: result.verification?.verdict ?? 'NONE',
      verdict: result.report?.verdict ?? 'NONE',
    });
    logger.info('triage completed', {
      outcome: result.outcome,
      verification: result.verification?.verdict ?? null,
      verdict: result.report?.verdict ?? null,
      refusalCode: result.refusalCode,
      refusalReason: result.refusalReason,
    });
    return { kind: 'COMPLETED', detail: result };
  }

  /** A `REFUSED` report for an invalid detail whose request and lineage ids are still usable. */
  #invalidRecallReport(detail: unknown, issues: string): TriageCompletedDetail | null {
    const raw = (typeof detail === 'object' && detail !== null ? detail : {}) as Record<string, unknown>;
    const requestId = Identifier.safeParse(raw.requestId);
    const lineageId = Identifier.safeParse(raw.lineageId);
    if (!requestId.success || !lineageId.success) return null;
    const reason = `invalid RecallRequested detail: ${issues}`;
    return {
      formatVersion: FORMAT_VERSION,
      requestId: requestId.data,
      lineageId: lineageId.data,
      seq: null,
      residualId: null,
      outcome: TriageOutcome.REFUSED,
      verification: null,
      report: null,
      refusalReason: reason.length > 4096 ? `${reason.slice(0, 4095)}…` : reason,
      refusalCode: RefusalCode.INVALID_REQUEST,
      completedAtMs: this.#deps.clock(),
    };
  }

  async #triage(recall: RecallRequestedDetail): Promise<TriageCompletedDetail> {
    const { store, anchor } = this.#deps;
    const base = {
      formatVersion: FORMAT_VERSION,
      requestId: recall.requestId,
      lineageId: recall.lineageId,
    } as const;
    const refuse = (
      seq: number | null,
      residualId: string | null,
      verification: ChainVerification | null,
      code: RefusalCode,
      reason: string,
    ): TriageCompletedDetail => ({
      ...base,
      seq,
      residualId,
      outcome: TriageOutcome.REFUSED,
      verification: verification && { verdict: verification.verdict, firstFailure: verification.firstFailure },
      report: null,
      refusalReason: reason,
      refusalCode: code,
      completedAtMs: this.#deps.clock(),
    });

    // The last record key before the head: an append moves both at once, so a concurrent append
    // never makes the records look past the head.
    const lastStoredSeq = await store.lastRecordSeq(recall.lineageId);
    const head = await store.head(recall.lineageId);
    const seq = await this.#resolveTarget(recall, head);
    const targetResidualId = 'residualId' in recall.target ? recall.target.residualId : null;
    const notFound = () =>
      refuse(null, targetResidualId, null, RefusalCode.NOT_FOUND, 'no such record in this lineage');
    if (seq === null && head === null && lastStoredSeq === null && !recall.checkpoint) return notFound();
    // A target resolved past everything read before it (its record was appended meanwhile) is not
    // part of this recall's view of the lineage: reading it would look like records past the head.
    // A checkpoint at or past the target means the caller saw it: verify (truncation shows there).
    const readThrough = Math.max(head?.seq ?? -1, lastStoredSeq ?? -1);
    if (seq !== null && seq > readThrough && (recall.checkpoint?.seq ?? -1) < seq) {
      return refuse(
        seq,
        targetResidualId,
        null,
        RefusalCode.NOT_FOUND,
        `record ${seq} was not yet in the lineage when the recall read it (last seq ${readThrough}); recall again`,
      );
    }
    if (seq !== null) this.#deps.logger.appendKeys({ seq });

    const toSeq = Math.max(seq ?? 0, recall.checkpoint?.seq ?? 0, head?.seq ?? 0, lastStoredSeq ?? 0);
    const records = await store.readChain(recall.lineageId, 0, toSeq);
    const verification = withStoredHeadFinding(
      await verifyChain(records, {
        lineageId: recall.lineageId,
        anchor,
        ...(recall.checkpoint ? { checkpoint: recall.checkpoint } : {}),
      }),
      checkStoredHead(head, recordsSeen(records, head, lastStoredSeq)),
    );
    const entry = seq === null ? undefined : verification.records.find((r) => r.seq === seq);
    const residualId = entry?.residualId ?? targetResidualId;
    if (verification.verdict !== VerificationVerdict.VERIFIED_INTACT) {
      const failure = verification.firstFailure;
      return refuse(
        seq,
        residualId,
        verification,
        // Also the stored head's inconsistency with the records (folded into the verdict above).
        RefusalCode.VERIFICATION_FAILED,
        `record not verified (${verification.verdict}${failure ? ` at seq ${failure.seq}: ${failure.reason}` : ''}); triage refused`,
      );
    }
    if (seq === null) return notFound();
    const target = SealedRecordSchema.safeParse(records[seq]);
    if (!target.success || target.data.header.monotonicSequenceNumber !== seq) {
      return refuse(
        seq,
        residualId,
        verification,
        RefusalCode.NOT_FOUND,
        `record ${seq} is missing from the verified chain`,
      );
    }
    this.#deps.logger.appendKeys({ residualId: target.data.header.residualId });
    let report: DeltaIsolationReport;
    try {
      report = isolateDelta(target.data.manifest, recall.currentEnv);
    } catch (error) {
      if (!(error instanceof ResealError)) throw error;
      return refuse(
        seq,
        target.data.header.residualId,
        verification,
        RefusalCode.MANIFEST_UNTRIAGEABLE,
        `delta isolation refused: ${error.message}`,
      );
    }
    return {
      ...base,
      seq,
      residualId: target.data.header.residualId,
      outcome: TriageOutcome.TRIAGED,
      verification: { verdict: verification.verdict, firstFailure: verification.firstFailure },
      report,
      refusalReason: null,
      refusalCode: null,
      completedAtMs: this.#deps.clock(),
    };
  }

  /** The target's seq; `latest` is the head item's claim, checked against the records later. */
  async #resolveTarget(recall: RecallRequestedDetail, head: LineageHead | null): Promise<number | null> {
    const { store } = this.#deps;
    const { target } = recall;
    if ('seq' in target) return target.seq;
    if ('residualId' in target) {
      const location = await store.findByResidualId(recall.lineageId, target.residualId);
      return location && location.lineageId === recall.lineageId ? location.seq : null;
    }
    return head?.seq ?? null;
  }
}
