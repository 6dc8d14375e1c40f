import { createHash } from 'node:crypto';
import { FORMAT_VERSION } from '../../shared/canonical/digest';
import { parseStrictJson } from '../../shared/canonical/strict-json';
import {
  DuplicateResidualError,
  escapeLoneSurrogates,
  LineageInconsistentError,
  LogStateError,
  ResealError,
  StaleEpochError,
  StaleHeadError,
  StrictJsonError,
  StrictJsonFailure,
} from '../../shared/errors';
import { DEFAULT_MAX_RECEIPT_AGE_SECONDS } from '../../shared/guard/policy';
import { extendLog } from '../../shared/log/log-extension';
import { checkpointOrigin } from '../../shared/log/log-names';
import { authenticateLogState, type LogState, type StoredLogHead } from '../../shared/log/log-state';
import { type NoteVerifierKey, noteVerifierKey } from '../../shared/log/note-key';
import { requestDigest } from '../../shared/log/outcome-statement';
import { nodeSourceOf, proveRecord, verifyRecordProof } from '../../shared/log/record-proof';
import { openCheckpoint, signCheckpoint } from '../../shared/log/signed-checkpoint';
import { RejectionReason, RejectionStage, type SealRequest } from '../../shared/pipeline/messages';
import type { EventPublisher } from '../../shared/ports/event-publisher';
import {
  ConflictReason as Conflict,
  type ConflictReason,
  type LineageStore,
  type RejectionRecord,
} from '../../shared/ports/lineage-store';
import type { MacAnchor } from '../../shared/ports/mac-anchor';
import type { NoteSigner } from '../../shared/ports/note-signer';
import { Identifier } from '../../shared/schemas/primitives';
import type { ChainTip } from '../../shared/seal/chain-tip';
import { sealValidated } from '../../shared/seal/residual-sealer';
import type { ValidatedSealInput } from '../../shared/seal/seal-input';
import {
  type LineageHead,
  lineageHeadOf,
  type SealedRecord,
  SealedRecordSchema,
} from '../../shared/seal/sealed-record';
import { differingWriteContent } from '../../shared/seal/write-content';
import { MetricName, type PipelineMetrics, type ServiceLogger } from '../common/observability';
import { RefusalRecorder, storableLists } from '../common/refusal-recorder';
import { checkSealRequest, resolveSealRequestPolicy, type SealRequestRefusal } from './seal-request-check';
import { parseSealRequest } from './seal-request-parse';
import { SignedHeads } from './signed-heads';

/** Appends tried per run of messages when the head keeps moving (lost races), before conflicts are recorded. */
export const MAX_APPEND_ATTEMPTS = 5;

/** First lost-race backoff ceiling, ms: retry `n` waits a random time in [0, min(cap, base × 2^(n−1))) ("full jitter"). */
export const APPEND_RETRY_BASE_MS = 20;
/** Largest lost-race backoff ceiling, ms (five attempts wait at most 20 + 40 + 80 + 160 ms). */
export const APPEND_RETRY_CAP_MS = 500;

/** Most records appended in one transaction: a `TransactWriteItems` holds at most 100 actions (two per record plus the head). */
export const MAX_RUN_RECORDS = 40;
/** Most body bytes of one run, UTF-8: a `TransactWriteItems` carries at most 4 MB. */
export const MAX_RUN_BODY_BYTES = 3_000_000;

/** One `seal-requests` message, as the sealer needs it. */
export interface SealMessage {
  readonly messageId: string;
  readonly body: string;
  /** SQS `SentTimestamp`, ms. */
  readonly sentAtMs: number;
}

/** What happened to a seal request. Every one ends in exactly one of these. */
export type SealOutcome =
  | { readonly kind: 'SEALED'; readonly head: LineageHead; readonly attempts: number; readonly checkpoint: string }
  | { readonly kind: 'DUPLICATE'; readonly head: LineageHead | null }
  | { readonly kind: 'CONFLICT'; readonly reason: ConflictReason }
  | { readonly kind: 'REJECTED'; readonly reason: RejectionReason };

/** Dependencies of {@link SealerService}, injected. */
export interface SealerDeps {
  readonly store: LineageStore;
  readonly publisher: EventPublisher;
  /** MACs record headers (KMS `HMAC_256`, the records' anchor). */
  readonly anchor: MacAnchor;
  /** Signs checkpoints and the sealer's refusals (KMS Ed25519 log key); its key name is the log name. */
  readonly signer: NoteSigner;
  readonly metrics: PipelineMetrics;
  readonly logger: ServiceLogger;
  readonly clock: () => number;
  /** Override of {@link MAX_APPEND_ATTEMPTS}. */
  readonly maxAppendAttempts?: number;
  /**
   * Waits between lost-race attempts (backoff with full jitter, {@link APPEND_RETRY_BASE_MS}), so
   * concurrent writers to one lineage spread out instead of colliding again. @default `setTimeout`
   */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Uniform in [0, 1), for the jitter. @default `Math.random` */
  readonly random?: () => number;
  /**
   * The guard's receipt age limit, seconds (`MAX_RECEIPT_AGE_SECONDS`, the guard's value): the
   * sealer re-runs the guard with it. @default {@link DEFAULT_MAX_RECEIPT_AGE_SECONDS}
   */
  readonly maxReceiptAgeSeconds?: number;
  /** Oldest `acceptedAtMs` accepted, seconds: the `seal-requests` retention. @default 4 days */
  readonly maxRequestAgeSeconds?: number;
}

/** A message that passed every check and waits in a run to be sealed. */
interface Pending {
  readonly index: number;
  readonly message: SealMessage;
  readonly request: SealRequest;
  /** The write's seal input, validated and digested with the request. */
  readonly seal: ValidatedSealInput;
}

/** The heads a conflict record names: read before sealing, seen by the failed append, and the header tried. */
interface ConflictHeads {
  readonly expectedHead: LineageHead | null;
  readonly observedHead: LineageHead | null;
  readonly attemptedHeader?: unknown;
}

/** Outcome of preparing one message: settled (refused), or a write to seal. */
type Prepared = { readonly outcome: SealOutcome } | { readonly pending: Pending };

/**
 * Per-batch logic of the sealer Lambda (seed 003 plus the verifiable log, docs/verifiable-log.md
 * "Appending"). Messages of one FIFO group are handled in order; consecutive writes to one
 * lineage form a run that is sealed and appended together:
 *
 * 1. Each message is parsed and re-checked (`checkSealRequest`: the guard re-run at
 *    `acceptedAtMs`); a refusal is a signed rejection record + `ResidualRejected`.
 * 2. The run's lineage state (head item: signed checkpoint, frontier, head header) is
 *    authenticated with the log's public key before anything is appended: a state that does not
 *    verify is never extended, so a record planted in the table cannot be chained and signed by
 *    the next honest seal. Each message then gets a `LINEAGE_INCONSISTENT` conflict.
 * 3. Each write is sealed (one `GenerateMac`) on the authenticated tip; a residual id already
 *    sealed in the lineage (its marker) or earlier in the run is a redelivery (same content: the
 *    stored record's `ResidualSealed` is re-emitted) or a reuse (`RESIDUAL_ID_REUSED`).
 * 4. The new tree is computed (RFC 9162), its checkpoint signed once (one `Sign` per run), and
 *    records, nodes, markers and head written in one conditional transaction. A lost race
 *    waits (exponential backoff, full jitter), re-reads and re-seals, up to
 *    {@link MAX_APPEND_ATTEMPTS}; then `LOST_RACE` conflicts.
 * 5. `ResidualSealed` per record, carrying the signed checkpoint.
 *
 * Rejects only on infrastructure failures (KMS, DynamoDB, EventBridge), after logging the
 * failure, so the group's messages are retried in order and finally dead-lettered.
 */
export class SealerService {
  readonly #deps: SealerDeps;
  #verifierKey: NoteVerifierKey | null = null;
  readonly #signed = new SignedHeads();

  readonly #refusals: RefusalRecorder;

  /** @throws {InvalidInputError} when `maxReceiptAgeSeconds` or `maxRequestAgeSeconds` is malformed */
  constructor(deps: SealerDeps) {
    this.#deps = deps;
    this.#refusals = new RefusalRecorder({ ...deps, logName: deps.signer.keyName });
    resolveSealRequestPolicy(this.#policyAt(0));
  }

  /** One message on its own (a group of one). */
  async handle(message: SealMessage): Promise<SealOutcome> {
    const [outcome] = await this.handleGroup([message]);
    if (!outcome) throw new Error('no outcome');
    return outcome;
  }

  /**
   * The messages of one FIFO message group, in order.
   * @returns one outcome per message, in the same order
   * @throws on an infrastructure failure (logged first): the caller reports the whole group failed
   */
  async handleGroup(messages: readonly SealMessage[]): Promise<SealOutcome[]> {
    try {
      return await this.#handleGroup(messages);
    } catch (error) {
      this.#deps.logger.error('sealing failed on an infrastructure error; the message group will be retried', {
        error: error instanceof Error ? { name: error.name, message: error.message } : String(error),
        cause: error instanceof Error && error.cause instanceof Error ? error.cause.message : undefined,
      });
      throw error;
    }
  }

  async #handleGroup(messages: readonly SealMessage[]): Promise<SealOutcome[]> {
    const outcomes: SealOutcome[] = new Array(messages.length);
    let run: Pending[] = [];
    let runBytes = 0;
    const flush = async () => {
      if (run.length === 0) return;
      const sealed = await this.#sealRun(run);
      for (const [index, outcome] of sealed) outcomes[index] = outcome;
      run = [];
      runBytes = 0;
    };
    for (const [index, message] of messages.entries()) {
      const prepared = await this.#prepare(index, message);
      if ('outcome' in prepared) {
        outcomes[index] = prepared.outcome;
        continue;
      }
      const { pending } = prepared;
      const bytes = Buffer.byteLength(message.body, 'utf8');
      const lineageId = pending.request.request.lineageId;
      const current = run[0]?.request.request.lineageId;
      if (
        current !== undefined &&
        (current !== lineageId || run.length >= MAX_RUN_RECORDS || runBytes + bytes > MAX_RUN_BODY_BYTES)
      ) {
        await flush();
      }
      run.push(pending);
      runBytes += bytes;
    }
    await flush();
    return outcomes;
  }

  #policyAt(nowMs: number) {
    const { maxReceiptAgeSeconds, maxRequestAgeSeconds } = this.#deps;
    return {
      nowMs,
      maxReceiptAgeSeconds: maxReceiptAgeSeconds ?? DEFAULT_MAX_RECEIPT_AGE_SECONDS,
      ...(maxRequestAgeSeconds === undefined ? {} : { maxRequestAgeSeconds }),
    };
  }

  /** Step 1: parse and re-check one message. */
  async #prepare(index: number, message: SealMessage): Promise<Prepared> {
    let json: unknown;
    try {
      json = parseStrictJson(message.body, 'seal request');
    } catch (error) {
      if (!(error instanceof StrictJsonError)) throw error;
      // A repeated member name (or excessive nesting) is valid JSON the wire format refuses.
      const reason =
        error.failure === StrictJsonFailure.SYNTAX ? RejectionReason.MALFORMED_JSON : RejectionReason.SCHEMA_VIOLATION;
      const detail = error.issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ');
      return { outcome: await this.#reject(message, null, reason, detail) };
    }
    const parsed = parseSealRequest(json);
    if ('detail' in parsed) {
      // Filed under the lineage the body names, when it names a valid one, so its writer finds it.
      return {
        outcome: await this.#reject(
          message,
          null,
          RejectionReason.SCHEMA_VIOLATION,
          parsed.detail,
          undefined,
          idsNamedBy(json),
        ),
      };
    }
    const { request, seal } = parsed;
    const refusal = checkSealRequest(request, { ...this.#policyAt(this.#deps.clock()), sentAtMs: message.sentAtMs });
    if (refusal) {
      const { reason, detail, rejectedVariables, requestViolations } = refusal;
      return {
        outcome: await this.#reject(message, request, reason, detail, { rejectedVariables, requestViolations }),
      };
    }
    return { pending: { index, message, request, seal } };
  }

  /** Steps 2–5 for a run of writes to one lineage; returns each message's outcome by index. */
  async #sealRun(run: readonly Pending[]): Promise<Map<number, SealOutcome>> {
    const lineageId = (run[0] as Pending).request.request.lineageId;
    const outcomes = new Map<number, SealOutcome>();
    let remaining = [...run];
    const attempts = this.#deps.maxAppendAttempts ?? MAX_APPEND_ATTEMPTS;
    let lastRace: StaleHeadError | StaleEpochError | DuplicateResidualError | null = null;
    let expectedHead: LineageHead | null = null;
    // The header each write was last sealed with, for the conflict record of a write that never lands.
    const attempted = new Map<number, unknown>();
    for (let attempt = 1; attempt <= attempts && remaining.length > 0; attempt++) {
      const stored = await this.#deps.store.logHead(lineageId);
      expectedHead = stored?.head ?? null;
      const state = await this.#authenticatedState(lineageId, stored);
      if (typeof state === 'string') {
        const heads = { expectedHead, observedHead: null };
        await this.#conflictAll(remaining, outcomes, Conflict.LINEAGE_INCONSISTENT, state, () => heads);
        return outcomes;
      }
      const { sealed, settled } = await this.#sealOnTip(remaining, state, expectedHead);
      for (const { item, record } of sealed) attempted.set(item.index, record.header);
      for (const [index, outcome] of settled) outcomes.set(index, outcome);
      remaining = remaining.filter((item) => !settled.has(item.index));
      if (sealed.length === 0) return outcomes;

      const extension = extendLog(
        state,
        sealed.map((s) => s.record),
        this.#origin(lineageId),
      );
      const checkpoint = await signCheckpoint(extension.checkpoint, this.#deps.signer);
      try {
        await this.#deps.store.appendEntries({
          lineageId,
          entries: extension.entries,
          expectedHead,
          checkpoint,
          frontier: extension.storedFrontier,
        });
      } catch (error) {
        if (
          error instanceof StaleHeadError ||
          error instanceof StaleEpochError ||
          error instanceof DuplicateResidualError
        ) {
          // Another writer appended first (or sealed one of these ids): re-read, re-seal what is left.
          lastRace = error;
          this.#deps.metrics.count(MetricName.SealRetry);
          this.#deps.logger.warn('lost the append race; re-reading the lineage', { attempt, reason: error.name });
          if (attempt < attempts) await this.#backoff(attempt);
          continue;
        }
        if (error instanceof LineageInconsistentError) {
          await this.#conflictAll(remaining, outcomes, Conflict.LINEAGE_INCONSISTENT, error.message, (item) => ({
            expectedHead,
            observedHead: expectedHead,
            attemptedHeader: sealed.find((s) => s.item === item)?.record.header ?? null,
          }));
          return outcomes;
        }
        throw error;
      }
      this.#signed.remember(extension.state);
      for (const { item, record } of sealed) {
        outcomes.set(item.index, await this.#sealed(record, checkpoint, attempt));
      }
      remaining = remaining.filter((item) => !outcomes.has(item.index));
      // Redeliveries of a record sealed in this same run are answered once it is stored.
      for (const item of remaining) outcomes.set(item.index, await this.#duplicateOfRun(item, sealed, checkpoint));
      return outcomes;
    }
    for (const item of remaining) {
      const reason = lastRace instanceof StaleEpochError ? Conflict.STALE_EPOCH : Conflict.LOST_RACE;
      outcomes.set(
        item.index,
        await this.#conflict(item, reason, `head moved on each of ${attempts} attempts`, {
          expectedHead,
          observedHead: lastRace instanceof StaleHeadError ? lastRace.observedHead : null,
          attemptedHeader: attempted.get(item.index) ?? null,
        }),
      );
    }
    return outcomes;
  }

  /** Waits before lost-race attempt `attempt + 1`: full jitter on an exponential ceiling. */
  async #backoff(attempt: number): Promise<void> {
    const ceiling = Math.min(APPEND_RETRY_CAP_MS, APPEND_RETRY_BASE_MS * 2 ** (attempt - 1));
    const ms = Math.floor((this.#deps.random ?? Math.random)() * ceiling);
    await (this.#deps.sleep ?? ((delay) => new Promise<void>((resolve) => setTimeout(resolve, delay))))(ms);
  }

  /**
   * Step 2: the run's lineage state authenticated with the log's public key, and not behind what
   * this sealer signed while warm; else why not (each write then gets a `LINEAGE_INCONSISTENT`
   * conflict: a state that does not authenticate is never extended).
   */
  async #authenticatedState(lineageId: string, stored: StoredLogHead | null): Promise<LogState | string> {
    let state: LogState;
    try {
      state = authenticateLogState(stored, { lineageId, origin: this.#origin(lineageId), key: await this.#key() });
    } catch (error) {
      if (!(error instanceof LogStateError)) throw error;
      return error.message;
    }
    return this.#signed.rolledBack(state) ?? state;
  }

  /** Records the same conflict for each of `items` (heads per item), into `outcomes`. */
  async #conflictAll(
    items: readonly Pending[],
    outcomes: Map<number, SealOutcome>,
    reason: ConflictReason,
    detail: string,
    headsOf: (item: Pending) => ConflictHeads,
  ): Promise<void> {
    for (const item of items) outcomes.set(item.index, await this.#conflict(item, reason, detail, headsOf(item)));
  }

  /**
   * Step 3: seals each pending write on the authenticated tip, in order. Settles duplicates,
   * reuses, fenced-out epochs and writes the core refuses; returns the records to append.
   */
  async #sealOnTip(
    items: readonly Pending[],
    state: LogState,
    expectedHead: LineageHead | null,
  ): Promise<{ sealed: { item: Pending; record: SealedRecord }[]; settled: Map<number, SealOutcome> }> {
    const { store, anchor, clock, logger } = this.#deps;
    const sealed: { item: Pending; record: SealedRecord }[] = [];
    const settled = new Map<number, SealOutcome>();
    let tip: ChainTip | null = state.tip;
    for (const item of items) {
      const { lineageId, residualId } = item.request.request;
      logger.appendKeys({ lineageId, residualId, messageId: item.message.messageId });
      if (sealed.some((s) => s.record.header.residualId === residualId)) continue; // answered after the append
      const existing = await store.findByResidualId(lineageId, residualId);
      if (existing) {
        settled.set(item.index, await this.#duplicate(item, existing.seq));
        continue;
      }
      const supersedes = item.request.request.supersedes;
      if (supersedes && tip && supersedes.seq < tip.seq) {
        // An earlier record than the tip (sealRecord checks the tip itself): the hash must be the one
        // the signed tree holds at that seq, or the record would break the chain for good.
        const held = await this.#recordHashAt(lineageId, supersedes.seq, state, sealed);
        if (held !== supersedes.recordHash) {
          settled.set(
            item.index,
            await this.#reject(
              item.message,
              item.request,
              RejectionReason.SEAL_REFUSED,
              `supersedes seq ${supersedes.seq} with a record hash that is not ${held === null ? 'a record the log can prove' : "that record's"}`,
            ),
          );
          continue;
        }
      }
      try {
        const record = await sealValidated(item.seal, tip, anchor, clock());
        sealed.push({ item, record });
        tip = {
          lineageId,
          seq: record.header.monotonicSequenceNumber,
          recordHash: record.recordHash,
          generationEpoch: record.header.generationEpoch,
        };
      } catch (error) {
        if (error instanceof StaleEpochError) {
          settled.set(
            item.index,
            await this.#conflict(item, Conflict.STALE_EPOCH, error.message, { expectedHead, observedHead: null }),
          );
          continue;
        }
        if (error instanceof ResealError && !error.retryable) {
          // The core refused the input (header too large, bad supersedes): permanent. A retryable
          // error (the MAC key unavailable) is rethrown, so the group is delivered again.
          settled.set(
            item.index,
            await this.#reject(item.message, item.request, RejectionReason.SEAL_REFUSED, error.message),
          );
          continue;
        }
        throw error;
      }
    }
    return { sealed, settled };
  }

  /** The record hash at `seq`: from this run, or proven by inclusion in the authenticated state; `null` if unprovable. */
  async #recordHashAt(
    lineageId: string,
    seq: number,
    state: LogState,
    sealed: readonly { record: SealedRecord }[],
  ): Promise<string | null> {
    if (seq >= state.size) {
      return sealed.find((s) => s.record.header.monotonicSequenceNumber === seq)?.record.recordHash ?? null;
    }
    const { store } = this.#deps;
    try {
      const proof = await proveRecord(
        seq,
        state.size,
        nodeSourceOf((refs) => store.readNodes(lineageId, refs)),
      );
      const checkpoint = { origin: this.#origin(lineageId), size: state.size, rootHash: state.rootHash };
      const proven = verifyRecordProof(await store.readRecord(lineageId, seq), proof, checkpoint, lineageId);
      return proven.verdict === 'VERIFIED_INTACT' ? proven.record.recordHash : null;
    } catch (error) {
      // Unprovable for good (a node or record missing or forged); a retryable error is rethrown.
      if (error instanceof ResealError && !error.retryable) return null;
      throw error;
    }
  }

  async #sealed(record: SealedRecord, checkpoint: string, attempts: number): Promise<SealOutcome> {
    const head = lineageHeadOf(record);
    await this.#deps.publisher.residualSealed({
      formatVersion: FORMAT_VERSION,
      residualId: record.header.residualId,
      sealedAtMs: record.sealedAtMs,
      ...head,
      checkpoint,
    });
    this.#deps.metrics.count(MetricName.RecordSealed);
    this.#deps.logger.info('record sealed', { seq: head.seq, recordHash: head.recordHash, attempts });
    return { kind: 'SEALED', head, attempts, checkpoint };
  }

  /** A message whose residual id was sealed earlier in the same run. */
  async #duplicateOfRun(
    item: Pending,
    sealed: readonly { record: SealedRecord }[],
    checkpoint: string,
  ): Promise<SealOutcome> {
    const { residualId } = item.request.request;
    const record = sealed.find((s) => s.record.header.residualId === residualId)?.record;
    if (!record) throw new Error(`residual ${residualId} is neither sealed nor settled`);
    return this.#answerDuplicate(item, record, checkpoint);
  }

  /**
   * The residual id is sealed in this lineage already. Same content: a redelivery; re-emit the
   * stored record's head so a lost event is not lost for good. Other content: the id was reused
   * for another write, which is rejected (`RESIDUAL_ID_REUSED`) instead of vanishing. A marker
   * whose record is missing or unreadable: a `LINEAGE_INCONSISTENT` conflict record.
   */
  async #duplicate(item: Pending, seq: number): Promise<SealOutcome> {
    const { lineageId, residualId } = item.request.request;
    const stored = SealedRecordSchema.safeParse(await this.#deps.store.readRecord(lineageId, seq));
    if (!stored.success) {
      // The marker names a record that is missing or unreadable: the write is neither sealed
      // (nothing to compare its content with) nor dropped silently; it is left as a conflict.
      return this.#conflict(
        item,
        Conflict.LINEAGE_INCONSISTENT,
        `residual id ${residualId} is marked as sealed in lineage ${lineageId} at seq ${seq}, but that record is missing or unreadable`,
        { expectedHead: null, observedHead: null },
      );
    }
    return this.#answerDuplicate(item, stored.data, await this.#latestCheckpoint(lineageId, seq));
  }

  async #answerDuplicate(item: Pending, record: SealedRecord, checkpoint: string | null): Promise<SealOutcome> {
    const { lineageId, residualId } = item.request.request;
    const differing = differingWriteContent(item.request.request, record.header);
    if (differing.length > 0) {
      return this.#reject(
        item.message,
        item.request,
        RejectionReason.RESIDUAL_ID_REUSED,
        `residual id ${residualId} is already sealed in lineage ${lineageId} at seq ${record.header.monotonicSequenceNumber} with other content (${differing.join(', ')} differ)`,
      );
    }
    this.#deps.metrics.count(MetricName.SealDuplicate);
    const head = lineageHeadOf(record);
    await this.#deps.publisher.residualSealed({
      formatVersion: FORMAT_VERSION,
      residualId,
      sealedAtMs: record.sealedAtMs,
      ...head,
      checkpoint,
    });
    this.#deps.logger.info('residual already sealed (redelivery); no second record', { seq: head.seq });
    return { kind: 'DUPLICATE', head };
  }

  /** The stored checkpoint when it verifies and covers `seq`, for a redelivery's event; else `null`. */
  async #latestCheckpoint(lineageId: string, seq: number): Promise<string | null> {
    const stored = await this.#deps.store.logHead(lineageId);
    if (!stored?.checkpoint) return null;
    try {
      const checkpoint = openCheckpoint(stored.checkpoint, await this.#key(), this.#origin(lineageId));
      return checkpoint.size > seq ? stored.checkpoint : null;
    } catch (error) {
      if (error instanceof ResealError) return null;
      throw error;
    }
  }

  async #conflict(item: Pending, reason: ConflictReason, detail: string, heads: ConflictHeads): Promise<SealOutcome> {
    const { message, request } = item;
    const { lineageId, residualId } = request.request;
    await this.#refusals.conflict(
      {
        lineageId,
        residualId,
        reason,
        detail: escapeLoneSurrogates(detail.slice(0, 4096)),
        attemptedHeader: heads.attemptedHeader ?? null,
        expectedHead: heads.expectedHead,
        observedHead: heads.observedHead,
        atMs: message.sentAtMs,
        messageId: message.messageId,
        requestDigest: requestDigest(request.request),
        statement: null,
      },
      this.#rejectionOf(message, request, reason, detail),
    );
    this.#deps.logger.warn('write not appended; conflict recorded', { reason, detail });
    return { kind: 'CONFLICT', reason };
  }

  async #reject(
    message: SealMessage,
    request: SealRequest | null,
    reason: RejectionReason,
    detail: string,
    lists?: Pick<SealRequestRefusal, 'rejectedVariables' | 'requestViolations'>,
    ids: { lineageId: string | null; residualId: string | null } = { lineageId: null, residualId: null },
  ): Promise<SealOutcome> {
    await this.#refusals.reject({
      ...this.#rejectionOf(message, request, reason, detail),
      ...(request ? {} : ids),
      ...storableLists(lists ?? {}),
    });
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
      issues: [{ path: '', message: escapeLoneSurrogates(detail.slice(0, 4096)) }],
      rejectedVariables: [],
      requestViolations: [],
      atMs: message.sentAtMs,
      requestDigest: request ? requestDigest(request.request) : null,
      statement: null,
    } satisfies RejectionRecord;
  }

  #origin(lineageId: string): string {
    return checkpointOrigin(this.#deps.signer.keyName, lineageId);
  }

  /** The log's verifier key, from the signer's public key (fetched once per cold start). */
  async #key(): Promise<NoteVerifierKey> {
    this.#verifierKey ??= noteVerifierKey(this.#deps.signer.keyName, await this.#deps.signer.publicKey());
    return this.#verifierKey;
  }
}

/** The lineage and residual ids a body that is not a valid SealRequest names, when they are valid identifiers. */
function idsNamedBy(json: unknown): { lineageId: string | null; residualId: string | null } {
  const request = (json as { request?: Record<string, unknown> } | null)?.request;
  const pick = (value: unknown) => (Identifier.safeParse(value).success ? (value as string) : null);
  return { lineageId: pick(request?.lineageId), residualId: pick(request?.residualId) };
}
