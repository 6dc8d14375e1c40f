import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { KMSClient } from '@aws-sdk/client-kms';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBLineageStore } from '../adapters/dynamodb-lineage-store';
import { KMSMacAnchor } from '../adapters/kms-mac-anchor';
import { KMSNoteVerifierKey } from '../adapters/kms-note-signer';
import { canonicalJson } from '../shared/canonical/canonical-json';
import { FORMAT_VERSION } from '../shared/canonical/digest';
import {
  InvalidInputError,
  LineageNotFoundError,
  LogStateError,
  ResealError,
  SignerUnavailableError,
} from '../shared/errors';
import { checkpointOrigin, guardKeyName } from '../shared/log/log-names';
import { authenticateLogState } from '../shared/log/log-state';
import type { NoteVerifierKey } from '../shared/log/note-key';
import { checkRecallAnswer, type RecallCheck } from '../shared/log/recall-check';
import type { Receipt } from '../shared/log/receipt';
import {
  DetailType,
  EVENT_SOURCE,
  type RecallRequestedDetail,
  RecallRequestedDetailSchema,
  RefusalCode,
  type TriageCompletedDetail,
  TriageCompletedDetailSchema,
} from '../shared/pipeline/messages';
import type { ConflictRecord, LineageStore, RejectionRecord } from '../shared/ports/lineage-store';
import type { MacAnchor } from '../shared/ports/mac-anchor';
import { parseInput } from '../shared/schemas/parse';
import type { ChainCheckpoint, ChainVerification } from '../shared/seal/chain-verification';
import type { LineageHead, SealedRecord } from '../shared/seal/sealed-record';
import { VerificationVerdict } from '../shared/seal/verification-verdict';
import { type ResidualWriteRequest, ResidualWriteRequestSchema } from '../shared/write/write-request';
import type { CheckpointStore } from './checkpoint-store';
import { LogVerificationError, PublishError, TimeoutError } from './errors';
import type { LineageExport } from './lineage-export';
import { type LatestCheckpoint, LogReader } from './log-reader';
import { DEFAULT_PAGE_SIZE, type LineageProgress, verifyLineagePages } from './paged-verification';
import type { ResealStackOutputs } from './stack-outputs';
import { verifyRecords } from './verify-records';
import { type WaitForOutcomeOptions, type WriteOutcome, WriteOutcomes } from './write-outcomes';

/** The reads the client makes on the lineage table (the `LineageStore` port, read side). */
export type LineageReader = Pick<
  LineageStore,
  | 'head'
  | 'lastRecordSeq'
  | 'readChain'
  | 'getTriageReport'
  | 'readRecord'
  | 'findByResidualId'
  | 'listConflicts'
  | 'listRejections'
  | 'logHead'
  | 'readNodes'
>;

/** Optional collaborators of {@link ResealClient}; each defaults to an AWS SDK client from the environment. */
export interface ResealClientDeps {
  readonly sqs?: Pick<SQSClient, 'send'>;
  readonly eventBridge?: Pick<EventBridgeClient, 'send'>;
  /** Reads of the lineage table; default `DynamoDBLineageStore` over `dynamodb`. */
  readonly store?: LineageReader;
  readonly dynamodb?: Pick<DynamoDBClient, 'send'>;
  /** Anchor that checks MACs; default `KMSMacAnchor` over `kms` with the stack's key ARN. */
  readonly anchor?: MacAnchor;
  readonly kms?: Pick<KMSClient, 'send'>;
  /**
   * The log's verifier key, pinned (e.g. parsed with `parseVerifierKey` from a trusted copy);
   * default: read once with KMS `GetPublicKey` of the stack's `LogKeyArn`.
   */
  readonly logKey?: NoteVerifierKey;
  /** The guard's verifier key, pinned; default: KMS `GetPublicKey` of `GuardKeyArn`. */
  readonly guardKey?: NoteVerifierKey;
  /**
   * Where the last verified checkpoint per lineage is kept (e.g. a `FileCheckpointStore`); every
   * read is checked consistent with it. Without one, a rollback of the table cannot be seen.
   */
  readonly checkpointStore?: CheckpointStore;
  /** Clock, ms since the Unix epoch (default `Date.now`). */
  readonly nowMs?: () => number;
  /** Waits `ms` milliseconds (default `setTimeout`). */
  readonly sleep?: (ms: number) => Promise<void>;
}

/** A recall to request: {@link RecallRequestedDetail} with `requestId` optional (generated when absent). */
export type RecallRequest = Omit<RecallRequestedDetail, 'requestId'> & { readonly requestId?: string };

/** A stored refusal with whether its statement, signed by the function that decided it, checks. */
export interface Signed {
  readonly signatureVerified: boolean;
}

/** A recall answered and checked by the client ({@link ResealClient.recall}): the stored report and the client's own verdict. */
export interface VerifiedRecall extends RecallCheck {
  readonly requestId: string;
  /** Triage's answer as stored: diagnostic only, never acted on as is. */
  readonly report: TriageCompletedDetail;
}

/** Options of {@link ResealClient.waitForTriageReport}. */
export interface WaitOptions {
  /** Give up after this many milliseconds (default 60,000). */
  readonly timeoutMs?: number;
  /** Poll the table this often, in milliseconds (default 500). */
  readonly pollIntervalMs?: number;
}

/** What ties an outcome to one publish ({@link ResealClient.publishWrite} returns what it needs). */
export interface PublishedWrite {
  /** The SQS `MessageId` of the publish. */
  readonly messageId: string;
  /** The client's clock when the write was sent, ms since the Unix epoch. */
  readonly publishedAtMs: number;
}

/** Options of {@link ResealClient.verifyLineage}. */
export interface VerifyLineageOptions {
  /** A head the caller trusts (e.g. from a `ResidualSealed` event): detects truncation and rewrites. */
  readonly checkpoint?: ChainCheckpoint;
  /** Called after each page of records is verified. */
  readonly onProgress?: (progress: LineageProgress) => void;
  /** Records per page (default 500). */
  readonly pageSize?: number;
}

/**
 * The agent-side client of a deployed Reseal stack: publishes residual writes to SQS, requests
 * recalls on EventBridge, waits for triage reports, and reads, exports and verifies lineages.
 *
 * Every answer it returns for action is checked with public keys alone (docs/verifiable-log.md):
 * outcomes and recalls are proven against signed checkpoints kept in `checkpointStore`.
 *
 * @example
 * const outputs = await resolveStackOutputs('ResealStack', new CloudFormationClient({}));
 * const client = new ResealClient(outputs, { checkpointStore: new FileCheckpointStore('.reseal/checkpoints.json') });
 * const published = await client.publishWrite(request);
 * const outcome = await client.waitForOutcome(request.lineageId, request.residualId, { request });
 * const recall = await client.recall({ lineageId, target: { latest: true }, currentEnv });
 * if (recall.verdict === 'VERIFIED_INTACT') keep(recall.delta?.retainedClaims);
 */
export class ResealClient {
  readonly outputs: ResealStackOutputs;
  readonly #sqs: Pick<SQSClient, 'send'>;
  readonly #eventBridge: Pick<EventBridgeClient, 'send'>;
  readonly #store: LineageReader;
  readonly #anchor: MacAnchor;
  readonly #log: LogReader;
  readonly #outcomes: WriteOutcomes;
  readonly #nowMs: () => number;
  readonly #sleep: (ms: number) => Promise<void>;

  constructor(outputs: ResealStackOutputs, deps: ResealClientDeps = {}) {
    this.outputs = outputs;
    this.#sqs = deps.sqs ?? new SQSClient({});
    this.#eventBridge = deps.eventBridge ?? new EventBridgeClient({});
    this.#store = deps.store ?? new DynamoDBLineageStore(deps.dynamodb ?? new DynamoDBClient({}), outputs.tableName);
    const kms = deps.kms ?? new KMSClient({});
    this.#anchor = deps.anchor ?? new KMSMacAnchor(kms, outputs.macKeyArn);
    this.#nowMs = deps.nowMs ?? Date.now;
    this.#sleep = deps.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    const pinned = (key: NoteVerifierKey | undefined, keyId: string, name: string) => {
      if (key) return async () => key;
      const fromKms = new KMSNoteVerifierKey(kms, keyId, name);
      return () => fromKms.get();
    };
    this.#log = new LogReader(
      this.#store,
      pinned(deps.logKey, outputs.logKeyArn, outputs.logName),
      deps.checkpointStore ?? null,
    );
    this.#outcomes = new WriteOutcomes({
      store: this.#store,
      log: this.#log,
      guardKey: pinned(deps.guardKey, outputs.guardKeyArn, guardKeyName(outputs.logName)),
      logName: outputs.logName,
      nowMs: this.#nowMs,
      sleep: this.#sleep,
    });
  }

  /**
   * Sends a residual write to the `residual-writes` queue (the guard Lambda consumes it).
   * The request is validated with the core schema first, so a malformed write never leaves the
   * agent; the body is its RFC 8785 canonical JSON.
   *
   * @returns the SQS `MessageId` and the client's clock before sending (`publishedAtMs`): pass
   *   the request and {@link publishWaitSince} of it to {@link ResealClient.waitForOutcome}
   * @throws {InvalidInputError} naming each bad field
   * @throws {PublishError} when SQS returns no message id
   */
  async publishWrite(request: ResidualWriteRequest): Promise<PublishedWrite> {
    const parsed = parseInput(ResidualWriteRequestSchema, request, 'residual write request');
    const publishedAtMs = this.#nowMs();
    const out = await this.#sqs.send(
      new SendMessageCommand({ QueueUrl: this.outputs.residualWritesQueueUrl, MessageBody: canonicalJson(parsed) }),
    );
    if (!out.MessageId) throw new PublishError('SQS SendMessage returned no MessageId', null);
    return { messageId: out.MessageId, publishedAtMs };
  }

  /**
   * Puts a `RecallRequested` event (source `reseal`) on the stack's bus; the triage Lambda
   * answers with a report stored under `TRIAGE#<lineageId>` / `<requestId>`.
   *
   * @returns the request id (the one given, or a generated `recall-<uuid>`)
   * @throws {InvalidInputError} naming each bad field of the detail
   * @throws {PublishError} when EventBridge refuses the entry
   */
  async requestRecall(detail: RecallRequest): Promise<string> {
    const parsed = parseInput(
      RecallRequestedDetailSchema,
      { ...detail, requestId: detail.requestId ?? `recall-${randomUUID()}` },
      'recall request',
    );
    const out = await this.#eventBridge.send(
      new PutEventsCommand({
        Entries: [
          {
            Source: EVENT_SOURCE,
            DetailType: DetailType.RecallRequested,
            EventBusName: this.outputs.eventBusName,
            Detail: canonicalJson(parsed),
          },
        ],
      }),
    );
    const entry = out.Entries?.[0];
    if ((out.FailedEntryCount ?? 0) > 0 || !entry?.EventId) {
      throw new PublishError(
        `EventBridge refused RecallRequested ${parsed.requestId}: ${entry?.ErrorMessage ?? 'no event id'}`,
        entry?.ErrorCode ?? null,
      );
    }
    return parsed.requestId;
  }

  /**
   * Polls the table until the triage report of a recall appears.
   *
   * @throws {TimeoutError} naming the report when it does not appear within `timeoutMs`
   */
  async waitForTriageReport(
    lineageId: string,
    requestId: string,
    options: WaitOptions = {},
  ): Promise<TriageCompletedDetail> {
    const timeoutMs = options.timeoutMs ?? 60_000;
    const pollIntervalMs = options.pollIntervalMs ?? 500;
    const deadline = this.#nowMs() + timeoutMs;
    for (;;) {
      // Only a well-formed answer for this very request is returned; anything else stored under the
      // id (a forgery, garbage) is waited past: triage overwrites it when it answers.
      const stored = TriageCompletedDetailSchema.safeParse(await this.#store.getTriageReport(lineageId, requestId));
      if (stored.success && stored.data.requestId === requestId && stored.data.lineageId === lineageId)
        return stored.data;
      const left = deadline - this.#nowMs();
      if (left <= 0) throw new TimeoutError(`triage report of recall ${requestId} (lineage ${lineageId})`, timeoutMs);
      await this.#sleep(Math.min(pollIntervalMs, left));
    }
  }

  // --- outcomes and recalls, proven with public keys alone (docs/verifiable-log.md) ---
  /**
   * Polls the table until the write `residualId` on `lineageId` has a proven outcome: its record
   * proven by inclusion in a signed checkpoint consistent with the kept one (and binding
   * `options.request`'s content), or a refusal signed by the function that decided it and naming
   * this write. Unsigned or forged items are ignored. A newer verified checkpoint is kept.
   *
   * @throws {TimeoutError} naming the write when nothing proven appears within `timeoutMs` (default 60,000)
   * @throws {UnverifiedOutcomeError} when the marker names a record that cannot be proven
   * @throws {InvalidInputError} when `options.request` names another lineage or residual id
   * @example
   * const published = await client.publishWrite(request);
   * const outcome = await client.waitForOutcome(request.lineageId, request.residualId, {
   *   request,
   *   sinceMs: publishWaitSince(published),
   *   timeoutMs: 30_000,
   * });
   * if (outcome.kind === 'SEALED') console.log(outcome.head.seq, outcome.checkpoint);
   */
  async waitForOutcome(
    lineageId: string,
    residualId: string,
    options: WaitForOutcomeOptions = {},
  ): Promise<WriteOutcome> {
    const { request } = options;
    if (request && (request.lineageId !== lineageId || request.residualId !== residualId)) {
      throw new InvalidInputError('waitForOutcome request', [
        {
          path: 'request',
          message: `names residual ${request.residualId} of lineage ${request.lineageId}, not ${residualId} of ${lineageId}`,
        },
      ]);
    }
    return this.#outcomes.waitFor(lineageId, residualId, options);
  }

  /**
   * Requests a recall, waits for triage's answer and checks it with public keys alone
   * (`checkRecallAnswer`): the record proven in the latest signed checkpoint, consistent with the
   * kept one (sent as `trustedCheckpoint`), and the delta recomputed from the proven record and
   * `currentEnv`. A proven newer checkpoint is kept. The stored answer is never acted on as is.
   *
   * @throws {TimeoutError} when no answer appears within `timeoutMs` (default 60,000)
   * @throws {LogVerificationError} when the kept checkpoint does not verify
   */
  async recall(request: RecallRequest, options: WaitOptions = {}): Promise<VerifiedRecall> {
    const { lineageId } = request;
    // The larger of the kept checkpoint and the caller's own binds the answer (each must verify):
    // a caller's older checkpoint can never stand in for a newer one this client kept.
    const kept = await this.#log.trusted(lineageId);
    const given = request.trustedCheckpoint ? await this.#openGiven(lineageId, request.trustedCheckpoint) : null;
    const trusted = kept && (!given || kept.size >= given.size) ? kept : given;
    const requestId = await this.requestRecall({
      ...request,
      ...(trusted ? { trustedCheckpoint: trusted.note } : {}),
    });
    const report = await this.waitForTriageReport(lineageId, requestId, options);
    const seq = report.proof?.seq;
    const record = seq === undefined ? null : await this.#store.readRecord(lineageId, seq);
    let check = checkRecallAnswer({
      report,
      record,
      key: await this.#log.key(),
      lineageId,
      requestId,
      target: request.target,
      currentEnv: request.currentEnv,
      trusted,
    });
    if (check.verdict === VerificationVerdict.VERIFIED_INTACT && check.checkpoint && request.checkpoint) {
      check = await this.#checkLegacyCheckpoint(lineageId, request.checkpoint, check);
    }
    if (check.verdict === null && check.refusal) check = await this.#checkRefusal(request, check);
    if (check.verdict === VerificationVerdict.VERIFIED_INTACT && check.checkpoint) {
      await this.#log.keep(lineageId, check.checkpoint, trusted);
    }
    return { requestId, report, ...check };
  }

  /** The caller's `trustedCheckpoint`, verified; one that does not verify is bad input. */
  async #openGiven(lineageId: string, note: string) {
    try {
      return await this.#log.open(lineageId, note);
    } catch (error) {
      if (error instanceof SignerUnavailableError || !(error instanceof ResealError)) throw error;
      throw new InvalidInputError('recall request', [
        { path: 'trustedCheckpoint', message: `does not verify with the log key: ${error.message}` },
      ]);
    }
  }

  /**
   * A refusal triage could not prove, checked where the client can (docs/verifiable-log.md,
   * "Recall"): the request was validated here, so `INVALID_REQUEST` is not triage's answer; a
   * `NOT_FOUND` for a record the signed checkpoint covers (or whose marker leads to a proven record)
   * is not either. Both become `UNVERIFIED_TAMPER_RISK`. A `NOT_FOUND` the log cannot contradict
   * stands, as triage's claim.
   */
  async #checkRefusal(request: RecallRequest, check: RecallCheck): Promise<RecallCheck> {
    const forged = (reason: string): RecallCheck => ({
      ...check,
      verdict: VerificationVerdict.UNVERIFIED_TAMPER_RISK,
      reason,
    });
    if (check.refusal?.code === RefusalCode.INVALID_REQUEST) {
      return forged("the stored answer calls the request invalid, but it validates: not triage's answer");
    }
    if (check.refusal?.code !== RefusalCode.NOT_FOUND) return check;
    const { lineageId, target } = request;
    let latest: LatestCheckpoint | null;
    try {
      latest = await this.#log.latest(lineageId);
    } catch (error) {
      if (error instanceof LogVerificationError) return { ...check, verdict: error.verdict, reason: error.reason };
      throw error;
    }
    if (latest === null) return check;
    const size = latest.checkpoint.size;
    if (('seq' in target && target.seq < size) || ('latest' in target && size > 0)) {
      return forged(
        `the stored answer says the record does not exist, but the signed checkpoint covers ${size} records`,
      );
    }
    if ('residualId' in target) {
      const location = await this.#store.findByResidualId(lineageId, target.residualId);
      if (location && location.seq < size) {
        const proven = await this.#log.proveIn(lineageId, location.seq, latest).catch(() => null);
        if (proven?.record.header.residualId === target.residualId) {
          return forged(
            `the stored answer says residual ${target.residualId} does not exist, but it is proven at seq ${location.seq}`,
          );
        }
      }
    }
    return check;
  }

  /**
   * A `{ seq, recordHash }` checkpoint the caller trusts (from a `ResidualSealed` event): the
   * record at `seq` must be in the proven checkpoint with that hash, checked here, not taken from
   * triage's word.
   */
  async #checkLegacyCheckpoint(lineageId: string, legacy: ChainCheckpoint, check: RecallCheck): Promise<RecallCheck> {
    const latest = check.checkpoint as NonNullable<RecallCheck['checkpoint']>;
    const fail = (verdict: VerificationVerdict, reason: string): RecallCheck => ({
      ...check,
      verdict,
      reason,
      record: null,
      delta: null,
    });
    if (legacy.seq >= latest.size) {
      return fail(
        VerificationVerdict.TRUNCATION_DETECTED,
        `truncated: the signed checkpoint covers ${latest.size} records but a trusted checkpoint saw seq ${legacy.seq}`,
      );
    }
    try {
      const proven = await this.#log.proveIn(lineageId, legacy.seq, { checkpoint: latest, trusted: null });
      if (proven.record.recordHash !== legacy.recordHash) {
        return fail(VerificationVerdict.LINEAGE_BROKEN, `fork: seq ${legacy.seq} differs from the trusted checkpoint`);
      }
      return check;
    } catch (error) {
      if (error instanceof LogVerificationError) return fail(error.verdict, error.reason);
      throw error;
    }
  }

  /**
   * The latest signed checkpoint of a lineage, verified and consistent with the kept one (which
   * it then replaces), or `null` for an unknown lineage.
   * @throws {LogVerificationError} on a rollback, a fork, or a checkpoint that does not verify
   */
  async latestCheckpoint(lineageId: string): Promise<LatestCheckpoint | null> {
    const latest = await this.#log.latest(lineageId);
    if (latest) await this.#log.keep(lineageId, latest.checkpoint, latest.trusted);
    return latest;
  }

  /**
   * Ties a walked lineage (`verifyLineage`) to the signed log: the latest checkpoint verified and
   * consistent with the kept one (then kept), covering exactly the walked records, with the walk's
   * last record proven as its last leaf. Since every record hash commits to its parent, that binds
   * the whole walked chain to the signed tree. An intact walk over a log that does not verify, or
   * that covers more or fewer records, is not intact.
   *
   * @returns the verification (its verdict and first failure updated when the log disagrees) and
   *   what the log showed, or `log: null` for a lineage without a signed checkpoint to compare
   */
  async checkWalkAgainstLog(
    lineageId: string,
    verification: ChainVerification,
  ): Promise<{ verification: ChainVerification; log: { size: number; truncationChecked: boolean } | null }> {
    if (verification.verdict !== VerificationVerdict.VERIFIED_INTACT) return { verification, log: null };
    const failed = (verdict: VerificationVerdict, reason: string, seq: number | null = null) => ({
      verification: { ...verification, verdict, firstFailure: { seq, verdict, reason: `log: ${reason}` } },
      log: null,
    });
    let latest: LatestCheckpoint | null;
    try {
      latest = await this.latestCheckpoint(lineageId);
    } catch (error) {
      if (error instanceof LogVerificationError) return failed(error.verdict, error.reason);
      throw error;
    }
    if (latest === null) return { verification, log: null };
    const head = verification.head;
    const size = latest.checkpoint.size;
    if (!head || head.seq + 1 !== size) {
      return failed(
        VerificationVerdict.LINEAGE_BROKEN,
        `the walk ends ${head ? `at seq ${head.seq}` : 'before seq 0'} but the signed checkpoint covers ${size} records`,
      );
    }
    try {
      const proven = await this.#log.proveIn(lineageId, head.seq, latest);
      if (proven.record.recordHash !== head.recordHash) {
        return failed(
          VerificationVerdict.HASH_MISMATCH,
          `seq ${head.seq} is not the signed tree's last leaf`,
          head.seq,
        );
      }
    } catch (error) {
      if (error instanceof LogVerificationError) return failed(error.verdict, error.reason, head.seq);
      throw error;
    }
    // The head item's log state (frontier, header) as the sealer will authenticate it before the
    // next append: a state that does not authenticate refuses every write until it is repaired.
    try {
      const key = await this.#log.key();
      authenticateLogState(await this.#store.logHead(lineageId), {
        lineageId,
        origin: checkpointOrigin(key.name, lineageId),
        key,
      });
    } catch (error) {
      if (error instanceof LogStateError) return failed(VerificationVerdict.LINEAGE_BROKEN, error.message, head.seq);
      throw error;
    }
    return { verification, log: { size, truncationChecked: latest.trusted !== null } };
  }

  /**
   * A portable receipt for record `seq` (record, inclusion proof, signed checkpoint), which
   * `verifyReceipt` checks offline with the log's public key.
   * @throws {LogVerificationError} when the record cannot be proven
   */
  async receipt(lineageId: string, seq: number): Promise<Receipt> {
    return this.#log.receipt(lineageId, seq);
  }

  /** The log's verifier key (pinned, or read once from KMS); print it with `formatVerifierKey` to pin it elsewhere. */
  async logKey(): Promise<NoteVerifierKey> {
    return this.#log.key();
  }

  /**
   * The rejection and conflict records filed under a lineage, oldest first (from the table,
   * diagnostic: they are not part of the sealed chain), each marked `signatureVerified` when its
   * signed statement checks; an unmarked one may be a forgery. Rejections of bodies too broken to
   * name their lineage are not among them.
   */
  async readRefusals(
    lineageId: string,
  ): Promise<{ rejections: (RejectionRecord & Signed)[]; conflicts: (ConflictRecord & Signed)[] }> {
    const [rejections, conflicts] = await Promise.all([
      this.#store.listRejections(lineageId),
      this.#store.listConflicts(lineageId),
    ]);
    return {
      rejections: await Promise.all(
        rejections.map(async (record) => ({
          ...record,
          signatureVerified: await this.#outcomes.isSigned({ kind: 'rejection', record }),
        })),
      ),
      conflicts: await Promise.all(
        conflicts.map(async (record) => ({
          ...record,
          signatureVerified: await this.#outcomes.isSigned({ kind: 'conflict', record }),
        })),
      ),
    };
  }
  // --- end waitForOutcome ---

  /** The lineage's head item as stored (not a trusted checkpoint), or `null` before its first record. */
  async readHead(lineageId: string): Promise<LineageHead | null> {
    return this.#store.head(lineageId);
  }

  /**
   * Reads a whole lineage, page by page, into a {@link LineageExport}: every stored record up to
   * the last one (or up to the head's seq when that is later), whatever the head claims. Records
   * are exported as stored, unverified (a tampered table exports tampered records): verify the
   * export with `reseal verify --export`, or {@link ResealClient.verifyExport}.
   *
   * @throws {LineageNotFoundError} when the lineage has neither records nor a head
   */
  async exportLineage(
    lineageId: string,
    options: { pageSize?: number; onProgress?: (progress: LineageProgress) => void } = {},
  ): Promise<LineageExport> {
    const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
    const exportedAtMs = this.#nowMs();
    // The last record key before the head (see verifyLineagePages): the head is only a claim.
    const lastStoredSeq = await this.#store.lastRecordSeq(lineageId);
    const head = await this.#store.head(lineageId);
    if (head === null && lastStoredSeq === null) throw new LineageNotFoundError(lineageId);
    const lastSeq = Math.max(head?.seq ?? -1, lastStoredSeq ?? -1);
    const records: unknown[] = [];
    const total = lastSeq + 1;
    for (let from = 0; from <= lastSeq; from += pageSize) {
      records.push(...(await this.#store.readChain(lineageId, from, Math.min(from + pageSize - 1, lastSeq))));
      options.onProgress?.({ done: Math.min(records.length, total), total });
    }
    return { formatVersion: FORMAT_VERSION, lineageId, exportedAtMs, head, records: records as SealedRecord[] };
  }

  /**
   * Verifies a stored lineage (seed 003): every hash and link offline, every MAC through the
   * anchor (KMS `VerifyMac`), the tail against `checkpoint`, and the stored head item against the
   * records (it is a claim: records past it, another hash at its seq or no head at all →
   * `LINEAGE_BROKEN`; records ending before it → `TRUNCATION_DETECTED`). A MAC that cannot be
   * checked gives `UNVERIFIED_TAMPER_RISK` (fail closed); a definite finding wins over it.
   *
   * @throws {LineageNotFoundError} when the lineage has neither records nor a head (and no checkpoint is given)
   */
  async verifyLineage(lineageId: string, options: VerifyLineageOptions = {}): Promise<ChainVerification> {
    return verifyLineagePages(this.#store, {
      lineageId,
      anchor: this.#anchor,
      ...(options.checkpoint ? { checkpoint: options.checkpoint } : {}),
      ...(options.pageSize ? { pageSize: options.pageSize } : {}),
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    });
  }

  /**
   * Verifies a {@link LineageExport} read by {@link ResealClient.exportLineage} with this client's
   * anchor: its records, and its `head` (read from the same table) checked against them as
   * {@link ResealClient.verifyLineage} does.
   */
  async verifyExport(
    exported: Pick<LineageExport, 'lineageId' | 'head' | 'records'>,
    options: { checkpoint?: ChainCheckpoint } = {},
  ): Promise<ChainVerification> {
    return verifyRecords(exported.records, {
      lineageId: exported.lineageId,
      anchor: this.#anchor,
      storedHead: exported.head,
      ...(options.checkpoint ? { checkpoint: options.checkpoint } : {}),
    });
  }

  /**
   * Verifies records already read with this client's anchor (no head check: see
   * {@link ResealClient.verifyExport} for a whole exported lineage).
   */
  async verifyRecords(
    lineageId: string,
    records: unknown[],
    options: { checkpoint?: ChainCheckpoint } = {},
  ): Promise<ChainVerification> {
    return verifyRecords(records, {
      lineageId,
      anchor: this.#anchor,
      ...(options.checkpoint ? { checkpoint: options.checkpoint } : {}),
    });
  }
}
