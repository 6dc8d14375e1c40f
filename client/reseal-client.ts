import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { KMSClient } from '@aws-sdk/client-kms';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBLineageStore } from '../adapters/dynamodb-lineage-store';
import { KMSMacAnchor } from '../adapters/kms-mac-anchor';
import { canonicalJson } from '../shared/canonical/canonical-json';
import { FORMAT_VERSION } from '../shared/canonical/digest';
import { InvalidInputError } from '../shared/errors';
import { DEFAULT_MAX_CLOCK_SKEW_SECONDS } from '../shared/guard/policy';
import { type ResidualWriteRequest, ResidualWriteRequestSchema } from '../shared/guard/write-request';
import {
  type ConflictRecord,
  LineageNotFoundError,
  type LineageStore,
  type RejectionRecord,
} from '../shared/ports/lineage-store';
import type { MacAnchor } from '../shared/ports/mac-anchor';
import {
  DetailType,
  EVENT_SOURCE,
  type RecallRequestedDetail,
  RecallRequestedDetailSchema,
  type TriageCompletedDetail,
} from '../shared/schemas/messages';
import { parseInput } from '../shared/schemas/parse';
import type { ChainCheckpoint, ChainVerification } from '../shared/seal/chain-verification';
import { type LineageHead, lineageHeadOf, type SealedRecord } from '../shared/seal/sealed-record';
import { VerificationVerdict } from '../shared/seal/verification-verdict';
import { differingWriteContent } from '../shared/seal/write-content';
import { PublishError, TimeoutError, UnverifiedOutcomeError } from './errors';
import type { LineageExport } from './lineage-export';
import { DEFAULT_PAGE_SIZE, type LineageProgress, verifyLineagePages } from './paged-verification';
import type { ResealStackOutputs } from './stack-outputs';
import { verifyRecords } from './verify-records';

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
  /** Clock, ms since the Unix epoch (default `Date.now`). */
  readonly nowMs?: () => number;
  /** Waits `ms` milliseconds (default `setTimeout`). */
  readonly sleep?: (ms: number) => Promise<void>;
}

/** A recall to request: {@link RecallRequestedDetail} with `requestId` optional (generated when absent). */
export type RecallRequest = Omit<RecallRequestedDetail, 'requestId'> & { readonly requestId?: string };

/**
 * What became of a published write ({@link ResealClient.waitForOutcome}):
 * - `SEALED`: its record is in the lineage and verified; `head` is that record's head
 *   (`seq`, `recordHash`, …), the checkpoint to keep, as a `ResidualSealed` event carries it;
 * - `REJECTED`: the guard or the sealer refused it (`rejection.reason`, rejected variables, …);
 * - `CONFLICT`: it could not be appended (`STALE_EPOCH` fencing, or `LOST_RACE`).
 */
export type WriteOutcome =
  | { readonly kind: 'SEALED'; readonly head: LineageHead }
  | { readonly kind: 'REJECTED'; readonly rejection: RejectionRecord }
  | { readonly kind: 'CONFLICT'; readonly conflict: ConflictRecord };

/** Options of {@link ResealClient.waitForTriageReport} and {@link ResealClient.waitForOutcome}. */
export interface WaitOptions {
  /** Give up after this many milliseconds (default 60,000). */
  readonly timeoutMs?: number;
  /** Poll the table this often, in milliseconds (default 500). */
  readonly pollIntervalMs?: number;
}

/**
 * The guard's clock skew allowance, ms: a refusal's `atMs` (the SQS `SentTimestamp`) may read up
 * to this much before the client's clock at publish time. {@link publishWaitSince} subtracts it.
 */
export const PUBLISH_CLOCK_SKEW_MS = DEFAULT_MAX_CLOCK_SKEW_SECONDS * 1000;

/** What ties an outcome to one publish ({@link ResealClient.publishWrite} returns what it needs). */
export interface PublishedWrite {
  /** The SQS `MessageId` of the publish. */
  readonly messageId: string;
  /** The client's clock when the write was sent, ms since the Unix epoch. */
  readonly publishedAtMs: number;
}

/** The `sinceMs` of {@link WaitForOutcomeOptions} for a publish: its time less {@link PUBLISH_CLOCK_SKEW_MS}. */
export function publishWaitSince(published: Pick<PublishedWrite, 'publishedAtMs'>): number {
  return published.publishedAtMs - PUBLISH_CLOCK_SKEW_MS;
}

/** Options of {@link ResealClient.waitForOutcome}: which publish the outcome must belong to. */
export interface WaitForOutcomeOptions extends WaitOptions {
  /**
   * The request that was published: a record sealed under its residual id counts only when its
   * header binds this request's content ({@link differingWriteContent}); another write's seal
   * under the same id is not this one's outcome (its refusal, `RESIDUAL_ID_REUSED`, is awaited).
   * Without it, any verified record under the id counts (another write's content included).
   */
  readonly request?: ResidualWriteRequest;
  /**
   * Refusals (rejections, conflicts) recorded before this time (`atMs`, ms since the Unix epoch)
   * belong to earlier attempts and are ignored: use {@link publishWaitSince} of the publish.
   * Without it, every refusal of the id counts.
   */
  readonly sinceMs?: number;
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
 * @example
 * const outputs = await resolveStackOutputs('ResealStack', new CloudFormationClient({}));
 * const client = new ResealClient(outputs);
 * await client.publishWrite(writeRequest({ ... }));
 * const requestId = await client.requestRecall({ lineageId, target: { latest: true }, currentEnv });
 * const report = await client.waitForTriageReport(lineageId, requestId, { timeoutMs: 30_000 });
 */
export class ResealClient {
  readonly outputs: ResealStackOutputs;
  readonly #sqs: Pick<SQSClient, 'send'>;
  readonly #eventBridge: Pick<EventBridgeClient, 'send'>;
  readonly #store: LineageReader;
  readonly #anchor: MacAnchor;
  readonly #nowMs: () => number;
  readonly #sleep: (ms: number) => Promise<void>;

  constructor(outputs: ResealStackOutputs, deps: ResealClientDeps = {}) {
    this.outputs = outputs;
    this.#sqs = deps.sqs ?? new SQSClient({});
    this.#eventBridge = deps.eventBridge ?? new EventBridgeClient({});
    this.#store = deps.store ?? new DynamoDBLineageStore(deps.dynamodb ?? new DynamoDBClient({}), outputs.tableName);
    this.#anchor = deps.anchor ?? new KMSMacAnchor(deps.kms ?? new KMSClient({}), outputs.macKeyArn);
    this.#nowMs = deps.nowMs ?? Date.now;
    this.#sleep = deps.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
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
      const report = await this.#store.getTriageReport(lineageId, requestId);
      if (report) return report;
      const left = deadline - this.#nowMs();
      if (left <= 0) throw new TimeoutError(`triage report of recall ${requestId} (lineage ${lineageId})`, timeoutMs);
      await this.#sleep(Math.min(pollIntervalMs, left));
    }
  }

  // --- waitForOutcome: what became of a published write, read from the table ---
  /**
   * Polls the table until the write `residualId` on `lineageId` has an outcome: its record sealed
   * in this lineage (found through its residual-id marker, then read and verified: hashes and the
   * MAC through the anchor, that it is `residualId`'s record, and, given `options.request`, that
   * its header binds that request's content), or a rejection or conflict record of it recorded at
   * or after `options.sinceMs` (the latest, when there are several). This write's seal wins over a
   * refusal. A verified record with other content under the same id is another write's seal: the
   * wait goes on for this write's refusal (`RESIDUAL_ID_REUSED`). The same outcomes are announced
   * as `ResidualSealed` / `ResidualRejected` events on the bus.
   *
   * @throws {TimeoutError} naming the write when nothing appears within `timeoutMs` (default 60,000)
   * @throws {UnverifiedOutcomeError} when the marker names a record that does not verify
   * @throws {InvalidInputError} when `options.request` names another lineage or residual id
   * @example
   * const published = await client.publishWrite(request);
   * const outcome = await client.waitForOutcome(request.lineageId, request.residualId, {
   *   request,
   *   sinceMs: publishWaitSince(published),
   *   timeoutMs: 30_000,
   * });
   * if (outcome.kind === 'SEALED') keep({ seq: outcome.head.seq, recordHash: outcome.head.recordHash });
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
    const timeoutMs = options.timeoutMs ?? 60_000;
    const pollIntervalMs = options.pollIntervalMs ?? 500;
    const deadline = this.#nowMs() + timeoutMs;
    // The seq of a verified record with other content under this id (read and verified once).
    const foreign = { seq: null as number | null };
    for (;;) {
      const outcome = await this.#outcomeOf(lineageId, residualId, options, foreign);
      if (outcome) return outcome;
      const left = deadline - this.#nowMs();
      if (left <= 0) {
        throw new TimeoutError(
          `the outcome of residual ${residualId} in lineage ${lineageId} (sealed record, rejection or conflict)`,
          timeoutMs,
        );
      }
      await this.#sleep(Math.min(pollIntervalMs, left));
    }
  }

  async #outcomeOf(
    lineageId: string,
    residualId: string,
    options: WaitForOutcomeOptions,
    foreign: { seq: number | null },
  ): Promise<WriteOutcome | null> {
    const location = await this.#store.findByResidualId(lineageId, residualId);
    if (location && location.lineageId === lineageId && location.seq !== foreign.seq) {
      const record = await this.#verifiedRecordAt(lineageId, residualId, location.seq);
      if (!options.request || differingWriteContent(options.request, record.header).length === 0) {
        return { kind: 'SEALED', head: lineageHeadOf(record) };
      }
      foreign.seq = location.seq; // another write's seal: this one's refusal is awaited
    }
    const since = options.sinceMs ?? Number.NEGATIVE_INFINITY;
    const [rejections, conflicts] = await Promise.all([
      this.#store.listRejections(lineageId, { residualId }),
      this.#store.listConflicts(lineageId, { residualId }),
    ]);
    const rejection = rejections.filter((r) => r.atMs >= since).at(-1);
    const conflict = conflicts.filter((c) => c.atMs >= since).at(-1);
    if (conflict && (!rejection || conflict.atMs >= rejection.atMs)) return { kind: 'CONFLICT', conflict };
    return rejection ? { kind: 'REJECTED', rejection } : null;
  }

  /** The record at `seq`, once it verifies on its own as `residualId`'s seal. */
  async #verifiedRecordAt(lineageId: string, residualId: string, seq: number): Promise<SealedRecord> {
    const raw = await this.#store.readRecord(lineageId, seq);
    const fail = (verdict: string, reason: string) =>
      new UnverifiedOutcomeError(lineageId, residualId, seq, verdict, reason);
    if (raw === null) throw fail(VerificationVerdict.TRUNCATION_DETECTED, `no record at seq ${seq}`);
    const header = (raw as { header?: { parentRecordHash?: unknown; residualId?: unknown } }).header;
    const parent = header?.parentRecordHash;
    // The record alone: its own hash, MAC and lineage; the link to its parent is taken as given.
    const trustedStart =
      seq > 0 && typeof parent === 'string' && /^[0-9a-f]{64}$/.test(parent)
        ? { afterSeq: seq - 1, afterRecordHash: parent }
        : undefined;
    const verification = await verifyRecords([raw], {
      lineageId,
      anchor: this.#anchor,
      ...(trustedStart ? { trustedStart } : {}),
    });
    if (verification.verdict !== VerificationVerdict.VERIFIED_INTACT) {
      throw fail(verification.verdict, verification.firstFailure?.reason ?? 'not verified');
    }
    const record = raw as SealedRecord;
    if (record.header.residualId !== residualId || record.header.monotonicSequenceNumber !== seq) {
      const found = `seq ${record.header.monotonicSequenceNumber} of residual ${record.header.residualId}`;
      throw fail(VerificationVerdict.LINEAGE_BROKEN, `the marker points at ${found}`);
    }
    return record;
  }
  /**
   * The rejection and conflict records filed under a lineage, oldest first (from the table,
   * diagnostic: they are not part of the sealed chain). Rejections of bodies too broken to name
   * their lineage are not among them.
   */
  async readRefusals(lineageId: string): Promise<{ rejections: RejectionRecord[]; conflicts: ConflictRecord[] }> {
    const [rejections, conflicts] = await Promise.all([
      this.#store.listRejections(lineageId),
      this.#store.listConflicts(lineageId),
    ]);
    return { rejections, conflicts };
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
