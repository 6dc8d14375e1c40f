import { FORMAT_VERSION } from '../../shared/canonical/hash-domain';
import { ResealError } from '../../shared/errors';
import type { Checkpoint } from '../../shared/log/checkpoint';
import { checkpointOrigin } from '../../shared/log/checkpoint-origin';
import { checkHeldRecord } from '../../shared/log/held-record-check';
import { proveLatestCheckpoint } from '../../shared/log/latest-checkpoint-proof';
import type { NoteVerifierKey } from '../../shared/log/note-key';
import type { RecallProof } from '../../shared/log/recall-proof';
import { checkRecallTarget } from '../../shared/log/recall-target-check';
import type { RecordProof } from '../../shared/log/record-proof';
import { proveStoredRecord } from '../../shared/log/stored-log';
import { openCheckpoint, type VerifiedCheckpoint } from '../../shared/log/verified-checkpoint';
import { EVENT_SOURCE } from '../../shared/pipeline/detail-type';
import { type RecallRequestedDetail, RecallRequestedDetailSchema } from '../../shared/pipeline/recall-requested-detail';
import { RefusalCode } from '../../shared/pipeline/refusal-code';
import { RejectionReason } from '../../shared/pipeline/rejection-reason';
import { type TriageCompletedDetail, TriageCompletedDetailSchema } from '../../shared/pipeline/triage-completed-detail';
import { TriageOutcome } from '../../shared/pipeline/triage-outcome';
import { triagedDetail } from '../../shared/pipeline/triaged-detail';
import type { EventPublisher } from '../../shared/ports/event-publisher';
import type { LineageStore } from '../../shared/ports/lineage-store';
import { clipText } from '../../shared/schemas/clip-text';
import { escapeLoneSurrogates } from '../../shared/schemas/escape-lone-surrogates';
import { Identifier } from '../../shared/schemas/identifier';
import type { SealedRecord } from '../../shared/seal/sealed-record';
import { VerificationVerdict as V, type VerificationVerdict } from '../../shared/seal/verification-verdict';
import { recallTenantProblem } from '../../shared/tenancy/recall-source';
import type { DeltaIsolationReport } from '../../shared/triage/delta-isolation-report';
import { isolateDelta } from '../../shared/triage/isolate-delta';
import { logInfrastructureFailure } from '../common/log-infrastructure-failure';
import { MetricName } from '../common/metric-name';
import type { PipelineMetrics } from '../common/pipeline-metrics';
import type { ServiceLogger } from '../common/service-logger';

/** Dependencies of {@link TriageService}, injected. */
export interface TriageDeps {
  readonly store: LineageStore;
  readonly publisher: EventPublisher;
  /** The log's verifier key (public key of the sealer's Ed25519 log key; fetched once, then cached). */
  readonly logKey: () => Promise<NoteVerifierKey>;
  readonly metrics: PipelineMetrics;
  readonly logger: ServiceLogger;
  readonly clock: () => number;
  /**
   * The stack's tenant ids (`TENANT_IDS`; docs/triage.md, "Tenants"): a recall must then be put
   * with its tenant's source (`reseal.tenant.<id>`) and name a lineage of that tenant.
   * @default none: one tenant, every lineage
   */
  readonly tenantIds?: ReadonlySet<string> | undefined;
}

/** Outcome of one `RecallRequested` event. */
export type TriageResult =
  | { readonly kind: 'COMPLETED'; readonly detail: TriageCompletedDetail }
  | { readonly kind: 'INVALID'; readonly issues: string; readonly detail: TriageCompletedDetail | null };

/** A recall refused before delta isolation (a value, never thrown): its code, verdict (when a record was examined) and reason. */
class Refusal {
  constructor(
    readonly code: RefusalCode,
    readonly reason: string,
    readonly verdict: VerificationVerdict | null = null,
    readonly seq: number | null = null,
  ) {}
}

/** The record a recall proved, with the proof a client checks it by. */
interface Proven {
  readonly record: SealedRecord;
  readonly proof: RecallProof;
}

/**
 * Per-event logic of the triage Lambda (docs/triage.md on a record proven by the verifiable log,
 * docs/verifiable-log.md "Recall"). Cost is independent of the lineage's length: no MAC call
 * (the log's public key is fetched once per cold start), O(log n) item reads.
 *
 * 0. In a stack with tenants, the event's `source` names the tenant (`reseal.tenant.<id>`, which
 *    IAM lets only that tenant's principals put): a source of no tenant, or a lineage id outside
 *    `<tenant>/`, is refused `INVALID_REQUEST` before anything of the lineage is read, stored and
 *    announced unless a report already holds that request id (docs/triage.md, "Tenants").
 * 1. Parse the `RecallRequested` detail. Invalid → logged and counted (`INVALID`, never retried).
 *    When its `requestId` and `lineageId` are still usable, a `REFUSED` report (`INVALID_REQUEST`)
 *    naming every bad field is stored and announced.
 * 2. A report already stored for this request id is re-emitted (retries are safe; a client
 *    verifies every answer, so a report planted in the table gains nothing).
 * 3. Read the lineage's head item's tree: its signed checkpoint (signature by the log key, origin)
 *    where it carries one, else the tree its header and frontier claim (a head the sealer MAC'd:
 *    triage holds no `kms:VerifyMac`, and the client ties that tree to the deployment index).
 *    Records stored past it (a rewound head) → `LINEAGE_BROKEN`; records without a
 *    head → `LINEAGE_BROKEN`; no lineage but a trusted checkpoint → `TRUNCATION_DETECTED`.
 * 4. With the caller's `trustedCheckpoint`: it must verify, and the latest checkpoint must extend
 *    it (consistency proof; smaller → `TRUNCATION_DETECTED`, not a prefix → `LINEAGE_BROKEN`).
 *    With a legacy `checkpoint` `{ seq, recordHash }`: that record must be in the tree.
 * 5. Resolve the target (`seq`; `residualId` through its marker; `latest` = checkpoint size − 1),
 *    read the record and prove it: its own hashes, and its inclusion at leaf = seq. A marker that
 *    names no valid seq (not a safe integer ≥ 0) or another record → `LINEAGE_BROKEN`.
 * 6. `isolateDelta(record.manifest, currentEnv)`; store the report with its proof (the tree head,
 *    size and root, and the signed checkpoint where there is one); emit
 *    `TriageCompleted`.
 * Refusals: `NOT_FOUND`, `VERIFICATION_FAILED` (with the verdict), `MANIFEST_UNTRIAGEABLE`.
 * Rejects only on infrastructure failures (store, bus, KMS), after logging the failure, so
 * EventBridge retries the invocation.
 */
export class TriageService {
  readonly #deps: TriageDeps;
  constructor(deps: TriageDeps) {
    this.#deps = deps;
  }

  /**
   * @param source - the event's `source` (the EventBridge envelope's, set by the putter under IAM's `events:source` condition)
   * @throws on an infrastructure failure (store, bus, the log key's `GetPublicKey`), logged first
   *   with the error and its cause: EventBridge retries the invocation
   */
  async handle(detail: unknown, source: string = EVENT_SOURCE): Promise<TriageResult> {
    return logInfrastructureFailure(
      this.#deps.logger,
      'triage failed on an infrastructure error; the event will be retried',
      () => this.#handle(detail, source),
    );
  }

  async #handle(detail: unknown, source: string): Promise<TriageResult> {
    const outside = this.#outsideTenant(detail, source);
    if (outside !== null) return this.#refuseOutsideTenant(detail, outside, source);
    const parsed = RecallRequestedDetailSchema.safeParse(detail);
    if (!parsed.success) return this.#invalid(detail, parsed.error.issues);
    const recall = parsed.data;
    this.#deps.logger.appendKeys({ lineageId: recall.lineageId, requestId: recall.requestId });
    const previous = await this.#storedReport(recall);
    if (previous) {
      await this.#deps.publisher.triageCompleted(previous);
      this.#deps.logger.info('triage report already stored for this request; re-emitted');
      return { kind: 'COMPLETED', detail: previous };
    }
    const result = await this.#triage(recall);
    await this.#deps.store.putTriageReport(result);
    await this.#deps.publisher.triageCompleted(result);
    this.#observe(result);
    return { kind: 'COMPLETED', detail: result };
  }

  /** Step 1, an invalid detail: logged and counted; a `REFUSED` report when its ids are usable. */
  async #invalid(
    detail: unknown,
    zodIssues: readonly { path: PropertyKey[]; message: string }[],
  ): Promise<TriageResult> {
    const { metrics, logger } = this.#deps;
    const issues = zodIssues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    metrics.count(MetricName.RecallInvalid);
    logger.error('RecallRequested detail is invalid; nothing triaged', { issues });
    const refusal = this.#invalidRecallReport(detail, `invalid RecallRequested detail: ${issues}`);
    await this.#recordRefusal(refusal);
    return { kind: 'INVALID', issues, detail: refusal };
  }

  /** Step 0: why a recall is outside the tenant its source names, or `null` (no tenants, or inside). */
  #outsideTenant(detail: unknown, source: string): string | null {
    const tenantIds = this.#deps.tenantIds;
    if (tenantIds === undefined) return null;
    const lineageId =
      typeof detail === 'object' && detail !== null ? (detail as { lineageId?: unknown }).lineageId : null;
    return recallTenantProblem(source, typeof lineageId === 'string' ? lineageId : null, tenantIds);
  }

  /**
   * Step 0, refused: logged at error and counted, **nothing stored or announced**. The slot
   * `TRIAGE#<lineageId>` / `<requestId>` belongs to the lineage's tenant, which this source is not:
   * a refusal stored there would answer that tenant's own recall of the same request id first
   * (and the requester could not read it anyway, `dynamodb:LeadingKeys`). The requester's client
   * refuses such a recall before putting it (`TenantMismatchError`); on AWS the bus policy denies
   * a source of no tenant. Logged and answered under the code `TENANT_MISMATCH`, as the guard
   * files a cross-tenant write.
   */
  async #refuseOutsideTenant(detail: unknown, reason: string, source: string): Promise<TriageResult> {
    this.#deps.metrics.count(MetricName.RecallInvalid);
    const lineageId =
      typeof detail === 'object' && detail !== null ? (detail as { lineageId?: unknown }).lineageId : undefined;
    this.#deps.logger.error('RecallRequested outside its tenant; nothing triaged, nothing stored', {
      refusal: RejectionReason.TENANT_MISMATCH,
      reason,
      source,
      lineageId: typeof lineageId === 'string' ? lineageId : null,
    });
    return { kind: 'INVALID', issues: `${RejectionReason.TENANT_MISMATCH}: ${reason}`, detail: null };
  }

  /**
   * Stores and announces a refusal of a request that could not be triaged, unless a report already
   * holds its request id (an invalid or foreign request never overwrites an answer).
   */
  async #recordRefusal(refusal: TriageCompletedDetail | null): Promise<void> {
    const { store, publisher } = this.#deps;
    if (refusal && !(await store.getTriageReport(refusal.lineageId, refusal.requestId))) {
      await store.putTriageReport(refusal);
      await publisher.triageCompleted(refusal);
    }
  }

  /**
   * Step 2: a well-formed report stored for this request, to re-emit (retries are safe), or
   * `null`; anything else under the id (garbage, another request's) is recomputed and overwritten.
   */
  async #storedReport(recall: RecallRequestedDetail): Promise<TriageCompletedDetail | null> {
    const previous = TriageCompletedDetailSchema.safeParse(
      await this.#deps.store.getTriageReport(recall.lineageId, recall.requestId),
    );
    return previous.success &&
      previous.data.requestId === recall.requestId &&
      previous.data.lineageId === recall.lineageId
      ? previous.data
      : null;
  }

  /** The verdict metric and log line of a completed triage. */
  #observe(result: TriageCompletedDetail): void {
    this.#deps.metrics.count(MetricName.TriageVerdict, {
      outcome: result.outcome,
      verification: result.verification?.verdict ?? 'NONE',
      verdict: result.report?.verdict ?? 'NONE',
    });
    this.#deps.logger.info('triage completed', {
      outcome: result.outcome,
      verification: result.verification?.verdict ?? null,
      verdict: result.report?.verdict ?? null,
      refusalCode: result.refusalCode,
      refusalReason: result.refusalReason,
    });
  }

  /** A `REFUSED` report (`INVALID_REQUEST`, `reason`) for a detail whose request and lineage ids are still usable. */
  #invalidRecallReport(detail: unknown, reason: string): TriageCompletedDetail | null {
    const raw = (typeof detail === 'object' && detail !== null ? detail : {}) as Record<string, unknown>;
    const requestId = Identifier.safeParse(raw.requestId);
    const lineageId = Identifier.safeParse(raw.lineageId);
    if (!requestId.success || !lineageId.success) return null;
    return this.#refused(
      { requestId: requestId.data, lineageId: lineageId.data, target: null },
      new Refusal(RefusalCode.INVALID_REQUEST, reason),
    );
  }

  /** Steps 3–6: the target proven, then its delta isolated; a refusal at any step is the report. */
  async #triage(recall: RecallRequestedDetail): Promise<TriageCompletedDetail> {
    const proven = await this.#prove(recall);
    if (proven instanceof Refusal) return this.#refused(recall, proven);
    const { record, proof } = proven;
    this.#deps.logger.appendKeys({ seq: record.header.monotonicSequenceNumber, residualId: record.header.residualId });
    const isolated = this.#isolate(record, recall);
    if (isolated instanceof Refusal)
      return this.#refused(recall, isolated, { residualId: record.header.residualId, proof });
    return this.#triaged(recall, proven, isolated);
  }

  /** Step 6: `isolateDelta` on the proven record, or the refusal of a manifest it cannot triage. */
  #isolate(record: SealedRecord, recall: RecallRequestedDetail): DeltaIsolationReport | Refusal {
    try {
      return isolateDelta(record.manifest, recall.currentEnv);
    } catch (error) {
      if (!(error instanceof ResealError)) throw error;
      return new Refusal(
        RefusalCode.MANIFEST_UNTRIAGEABLE,
        `delta isolation refused: ${error.message}`,
        V.VERIFIED_INTACT,
        record.header.monotonicSequenceNumber,
      );
    }
  }

  /** The `TRIAGED` report of a proven record. */
  #triaged(
    recall: RecallRequestedDetail,
    { record, proof }: Proven,
    report: DeltaIsolationReport,
  ): TriageCompletedDetail {
    return triagedDetail({ ...recall, completedAtMs: this.#deps.clock() }, record.header, report, proof);
  }

  /**
   * Steps 3–5: the target record, proven against the latest signed checkpoint (the core's
   * composition, shared/log/stored-log.ts, and the checks shared with the client:
   * `checkHeldRecord`, `checkRecallTarget`); a refusal is a value.
   */
  async #prove(recall: RecallRequestedDetail): Promise<Proven | Refusal> {
    const { lineageId } = recall;
    const key = await this.#deps.logKey();
    const trusted = recall.trustedCheckpoint
      ? openTrusted(recall.trustedCheckpoint, key, checkpointOrigin(key.name, lineageId))
      : null;
    if (trusted instanceof Refusal) return trusted;
    const latest = await proveLatestCheckpoint(this.#deps.store, lineageId, key, trusted, {
      trustedSaw: Boolean(recall.trustedCheckpoint || recall.checkpoint),
      checkTail: true,
    });
    if (latest.kind === 'NONE') return new Refusal(RefusalCode.NOT_FOUND, 'no such lineage: it has no records');
    if (latest.kind === 'FINDING') return this.#unverified(latest.verdict, latest.reason, latest.seq);
    const { checkpoint, consistency } = latest;
    if (recall.checkpoint) {
      // Step 4, a legacy `checkpoint` `{ seq, recordHash }`: that record must be in the tree.
      const held = await checkHeldRecord(this.#deps.store, lineageId, recall.checkpoint, checkpoint);
      if (held) return this.#unverified(held.verdict, held.reason, held.seq);
    }
    const seq = await this.#resolveTarget(recall, checkpoint);
    if (seq instanceof Refusal) return seq;
    const proven = await this.#proveAt(lineageId, seq, checkpoint);
    if (proven instanceof Refusal) return proven;
    const { record, inclusion } = proven;
    const wrong = checkRecallTarget(recall.target, record, checkpoint.size);
    if (wrong) return this.#unverified(wrong.verdict, wrong.reason, wrong.seq);
    return {
      record,
      proof: {
        checkpoint: checkpoint.note,
        treeHead: { treeSize: checkpoint.size, rootHash: Buffer.from(checkpoint.rootHash).toString('hex') },
        seq,
        recordHash: record.recordHash,
        inclusion,
        consistency,
      },
    };
  }

  /** The target's seq in `latest`, or the refusal: `NOT_FOUND`, or an edited marker. */
  async #resolveTarget(recall: RecallRequestedDetail, latest: Checkpoint): Promise<number | Refusal> {
    const { target } = recall;
    let seq: number | null;
    if ('seq' in target) seq = target.seq;
    else if ('residualId' in target) {
      const location = await this.#deps.store.findByResidualId(recall.lineageId, target.residualId);
      seq = location && location.lineageId === recall.lineageId ? location.seq : null;
      if (seq !== null && !isSeq(seq)) {
        // No record can sit there (a seq is a safe integer ≥ 0): the marker is edited, and the
        // answer says so rather than carrying a seq no answer may hold (it would never be read).
        return this.#unverified(
          V.LINEAGE_BROKEN,
          `the residual-id marker of ${target.residualId} names no valid seq (${String(seq).slice(0, 40)})`,
          null,
        );
      }
    } else seq = latest.size - 1;
    if (seq === null) return new Refusal(RefusalCode.NOT_FOUND, 'no such record in this lineage');
    if (seq >= latest.size) {
      return new Refusal(
        RefusalCode.NOT_FOUND,
        `no record at seq ${seq}: the lineage's head covers ${latest.size} records (if it was just appended, recall again)`,
        null,
        seq,
      );
    }
    return seq;
  }

  /** Record `seq`, proven in `latest`, or the refusal when it is missing or does not prove. */
  async #proveAt(
    lineageId: string,
    seq: number,
    latest: Checkpoint,
  ): Promise<{ readonly record: SealedRecord; readonly inclusion: RecordProof } | Refusal> {
    const proven = await proveStoredRecord(this.#deps.store, lineageId, seq, latest);
    if (proven.kind === 'MISSING') {
      return this.#unverified(
        V.LINEAGE_BROKEN,
        `record ${seq} is covered by the lineage's head but missing from the table`,
        seq,
      );
    }
    if (proven.kind === 'FINDING') return this.#unverified(proven.verdict, proven.reason, seq);
    return proven;
  }

  #unverified(verdict: VerificationVerdict, reason: string, seq: number | null): Refusal {
    return new Refusal(RefusalCode.VERIFICATION_FAILED, reason, verdict, seq);
  }

  #refused(
    recall: { requestId: string; lineageId: string; target: RecallRequestedDetail['target'] | null },
    refusal: Refusal,
    extra: { residualId?: string; proof?: RecallProof } = {},
  ): TriageCompletedDetail {
    const target = recall.target;
    const targetResidualId = target && 'residualId' in target ? target.residualId : null;
    const named = refusal.seq ?? (target && 'seq' in target ? target.seq : null);
    // Only a seq an answer may carry: anything else would make the answer fail its own schema.
    const seq = named !== null && isSeq(named) ? named : null;
    const reason =
      refusal.code === RefusalCode.VERIFICATION_FAILED
        ? `record not verified (${refusal.verdict}${seq === null ? '' : ` at seq ${seq}`}: ${refusal.reason}); triage refused`
        : refusal.reason;
    return {
      formatVersion: FORMAT_VERSION,
      requestId: recall.requestId,
      lineageId: recall.lineageId,
      seq,
      residualId: extra.residualId ?? targetResidualId,
      outcome: TriageOutcome.REFUSED,
      verification: refusal.verdict
        ? {
            verdict: refusal.verdict,
            firstFailure:
              refusal.verdict === V.VERIFIED_INTACT ? null : { seq, verdict: refusal.verdict, reason: refusal.reason },
          }
        : null,
      report: null,
      proof: extra.proof ?? null,
      // Well-formed and within the schema's bound: a lone surrogate from a hostile key, or one split
      // by the cut, would make the answer fail its own schema.
      refusalReason: clipText(escapeLoneSurrogates(reason), 4000),
      refusalCode: refusal.code,
      completedAtMs: this.#deps.clock(),
    };
  }
}

/** The caller's trusted checkpoint, verified; one that does not verify is a bad request (the refusal). */
function openTrusted(note: string, key: NoteVerifierKey, origin: string): VerifiedCheckpoint | Refusal {
  try {
    return openCheckpoint(note, key, origin);
  } catch (error) {
    if (!(error instanceof ResealError)) throw error;
    return new Refusal(RefusalCode.INVALID_REQUEST, `trustedCheckpoint does not verify: ${error.message}`);
  }
}

/** Whether `value` can be a record's seq: a safe integer ≥ 0 (the tree's leaf indices). */
function isSeq(value: number): boolean {
  return Number.isSafeInteger(value) && value >= 0;
}
