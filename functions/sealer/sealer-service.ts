import { writeSignatureProblem } from '../../shared/authorship/write-signature';
import { parseStrictJson } from '../../shared/canonical/strict-json';
import { StrictJsonError, StrictJsonFailure } from '../../shared/canonical/strict-json-error';
import { InvalidInputError } from '../../shared/errors';
import { DEFAULT_MAX_RECEIPT_AGE_SECONDS } from '../../shared/guard/policy';
import { sealerKeyName } from '../../shared/log/log-names';
import { RejectionReason } from '../../shared/pipeline/rejection-reason';
import type { EventPublisher } from '../../shared/ports/event-publisher';
import type { IntegrationNotifier } from '../../shared/ports/integration-notifier';
import type { LineageStore } from '../../shared/ports/lineage-store';
import type { MacAnchor } from '../../shared/ports/mac-anchor';
import type { NoteSigner } from '../../shared/ports/note-signer';
import { Identifier } from '../../shared/schemas/identifier';
import type { RecordMac, RecordToMac } from '../../shared/seal/mac-records';
import { logInfrastructureFailure } from '../common/log-infrastructure-failure';
import type { PipelineMetrics } from '../common/pipeline-metrics';
import { RefusalRecorder } from '../common/refusal-recorder';
import type { ServiceLogger } from '../common/service-logger';
import { APPEND_RETRY_BASE_MS, MAX_APPEND_ATTEMPTS } from './append-backoff';
import { type MacBatcher, recordMacBatcher } from './mac-batcher';
import { type NamedIds, type Pending, type SealMessage, type SealOutcome, SealOutcomes } from './seal-outcomes';
import { checkSealRequest, resolveSealRequestPolicy } from './seal-request-check';
import { parseSealRequest } from './seal-request-parse';
import { MAX_RUN_BODY_BYTES, MAX_RUN_RECORDS, RunSealer } from './seal-run';
import { SealedEventBatch, type Unannounced } from './sealed-event-batch';
import { SealedRunNoticeBatch } from './sealed-run-notice-batch';
import { type IndexFloors, SealerIndex, type SealerIndexDeps } from './sealer-index';
import { SealerLog, type SealerNoticeKey } from './sealer-log';

/** Dependencies of {@link SealerService}, injected. */
export interface SealerDeps {
  readonly store: LineageStore;
  readonly publisher: EventPublisher;
  /** MACs record headers (KMS `HMAC_256`, the records' anchor). */
  readonly anchor: MacAnchor;
  /**
   * The log key: its key name is the log name, its public key reads heads' signed checkpoints
   * and the deployment checkpoint; it signs a run's lineage checkpoint only with
   * {@link signLineageCheckpoints} (by default the sealer makes no `Sign` with it). A run's head is
   * authenticated by its head-key MAC ({@link noticeKey}) or its head-state MAC with `anchor`
   * (docs/verifiable-log.md, "Appending").
   */
  readonly signer: NoteSigner;
  /**
   * The sealer key (key name `<logName>/sealer`, {@link sealerKeyName}): signs the sealer's
   * refusals and nothing else (docs/verifiable-log.md, "Keys", "Signed outcomes"), so the log
   * key's `kms:Sign` need not be the sealer's.
   */
  readonly refusalSigner: NoteSigner;
  /**
   * Whether the sealer also signs each run's lineage checkpoint with `signer` (one `Sign` per
   * run), for readers from before they took a lineage's tree head from the index
   * (docs/deployment-log.md, "What changes for the sealer", step 3). Off: the head-state MAC
   * alone, no `Sign` per run. @default false
   */
  readonly signLineageCheckpoints?: boolean;
  readonly metrics: PipelineMetrics;
  readonly logger: ServiceLogger;
  readonly clock: () => number;
  /** Override of {@link MAX_APPEND_ATTEMPTS}. */
  readonly maxAppendAttempts?: number;
  /** Override of `MAX_UNINTEGRATED_SEARCH` (seal-run.ts). */
  readonly maxUnintegratedSearch?: number;
  /**
   * Tells the integrator of each sealed run, one notice per run, an invocation's notices sent
   * together once its runs are done (docs/deployment-log.md, "Sealed-run notices"); absent: none.
   */
  readonly notifier?: IntegrationNotifier | null;
  /**
   * The notice key: its data key gives each notice its `auth` (docs/deployment-log.md, "Sealed-run
   * notices": only an authenticated notice vouches for its head) and MACs each head the sealer
   * stores (its head-key MAC, in process), and it opens another container's heads' data keys
   * (`Decrypt`) to authenticate them (docs/verifiable-log.md, "Appending"). Absent: notices go
   * without `auth`, triggers only, and heads get a KMS head-state MAC; a data key refused does the
   * same for the runs that ask while it is.
   */
  readonly noticeKey?: SealerNoticeKey | null;
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
  /**
   * The deployment index every run is checked against before it extends its lineage
   * (docs/sealing.md, "The index floor"); absent: no check (no integrator).
   */
  readonly index?: SealerIndexDeps | null;
}

/**
 * What the message groups of one sealer invocation share (docs/pipeline.md, "Concurrency"): one
 * read of the deployment head, made when the first run asks for its index floor, and one
 * `GenerateMac` for the records of its runs (their head states are MAC'd in process). From
 * {@link SealerService.beginInvocation}.
 */
export interface SealerInvocation {
  /** The invocation's index floors; `null` without an index. */
  readonly index: IndexFloors | null;
  /**
   * The invocation's record MAC batch (docs/sealing.md, "The record and its seal"): one
   * `GenerateMac` for the records of every run, before they are stored; each group joins it while
   * it is handled. Absent: each run's records get a MAC of their own.
   */
  readonly records?: MacBatcher<readonly RecordToMac[], readonly RecordMac[]>;
  /**
   * The invocation's sealed-run notices, sent by {@link SealerService.endInvocation} once its runs
   * are done (docs/deployment-log.md, "Sealed-run notices"); absent: no notifier, no notice.
   */
  readonly notices?: SealedRunNoticeBatch;
  /**
   * The invocation's `ResidualSealed` announcements, put by {@link SealerService.endInvocation} in
   * one event (more only past EventBridge's 256 KiB entry) once its runs are done (docs/pipeline.md,
   * "Message shapes"); absent: nothing announced.
   */
  readonly events?: SealedEventBatch;
}

/** Outcome of preparing one message: settled (refused), or a write to seal. */
type Prepared = { readonly outcome: SealOutcome } | { readonly pending: Pending };

/**
 * Per-batch logic of the sealer Lambda (docs/sealing.md plus the verifiable log, docs/verifiable-log.md
 * "Appending"). Messages of one FIFO group are handled in order; consecutive writes to one
 * lineage form a run that is sealed and appended together:
 *
 * 1. Each message is parsed and re-checked (`checkSealRequest`: the guard re-run at
 *    `acceptedAtMs`; the writer's signature, docs/authorship.md); a refusal is a signed rejection
 *    record + `ResidualRejected` (unsigned for the writer-key refusals).
 * 1′. Admission (docs/authorship.md, `WRITER_NOT_ADMITTED`, unsigned): each write's key against the
 *    lineage write policy of the authenticated tip, before any epoch check (in `RunSealer`).
 * 2. The run's lineage state (head item: signed checkpoint, frontier, head header) is
 *    authenticated with the log's public key before anything is appended: a state that does not
 *    verify is never extended, so a record planted in the table cannot be chained and signed by
 *    the next honest seal. Each message then gets a `LINEAGE_INCONSISTENT` conflict.
 * 2′. With `index` configured (docs/sealing.md, "The index floor"): the state is checked against
 *    the lineage's entry in the deployment index, read once per run over the invocation's one
 *    deployment-head read ({@link SealerService.beginInvocation}); a state behind it refuses
 *    the run (`LINEAGE_BEHIND_INDEX`, or `INDEX_UNVERIFIABLE` when the index cannot be read,
 *    both unsigned), and a residual id the index maps is answered from its indexed record.
 * 3. Each write is sealed on the authenticated tip, its MAC shared with every record of the
 *    invocation (one `GenerateMac` per invocation, {@link SealerInvocation.records}, taken before
 *    the records are stored); a residual id already
 *    sealed in the lineage (its marker) or earlier in the run is a redelivery (same content: the
 *    stored record's `ResidualSealed` is re-emitted) or a reuse (`RESIDUAL_ID_REUSED`).
 * 4. The new tree is computed (RFC 9162), records and nodes written, and only then its head state
 *    MAC'd under the notice data key, in process (no KMS call; without a data key one
 *    `GenerateMac`; a signed checkpoint only with {@link SealerDeps.signLineageCheckpoints}), and
 *    markers and head written under their conditions (docs/sealing.md, "The write"). A lost race
 *    waits (exponential backoff, full jitter), re-reads and re-seals, up to
 *    {@link MAX_APPEND_ATTEMPTS}; then `LOST_RACE` conflicts.
 * 5. One `ResidualSealed` event per invocation, carrying each run it sealed or re-announced (its
 *    head, tree head and residuals); one notice per run to the integrator when a notifier is
 *    configured; both sent by {@link SealerService.endInvocation} once the invocation's groups are
 *    done (docs/pipeline.md, "Message shapes"; docs/deployment-log.md, "Sealed-run notices").
 *
 * Rejects only on infrastructure failures (KMS, DynamoDB, EventBridge), after logging the
 * failure, so the group's messages are retried in order and finally dead-lettered; a
 * `ResidualSealed` event the bus refuses fails the groups it announces the same way, from
 * {@link SealerService.endInvocation}.
 *
 * One concept per file: step 1 here (seal-request-parse.ts, seal-request-check.ts); steps 2–5
 * per run in `RunSealer` (seal-run.ts, lost-race waits in append-backoff.ts) over the log's
 * authentication, extension and proofs in `SealerLog` (sealer-log.ts); every outcome recorded
 * and announced by `SealOutcomes` (seal-outcomes.ts).
 */
export class SealerService {
  readonly #deps: SealerDeps;
  readonly #outcomes: SealOutcomes;
  readonly #runs: RunSealer;
  readonly #index: SealerIndex | null;

  /**
   * @throws {InvalidInputError} when `maxReceiptAgeSeconds` or `maxRequestAgeSeconds` is malformed,
   *   or `refusalSigner` is not named `<logName>/sealer`
   */
  constructor(deps: SealerDeps) {
    this.#deps = deps;
    const logName = deps.signer.keyName;
    if (deps.refusalSigner.keyName !== sealerKeyName(logName)) {
      throw new InvalidInputError('refusalSigner', [
        { path: 'keyName', message: `names ${deps.refusalSigner.keyName}, not ${sealerKeyName(logName)}` },
      ]);
    }
    const refusals = new RefusalRecorder({ ...deps, signer: deps.refusalSigner, logName });
    this.#outcomes = new SealOutcomes({ ...deps, refusals });
    this.#index = deps.index ? new SealerIndex(deps.index, deps) : null;
    this.#runs = new RunSealer(
      deps,
      new SealerLog(
        deps.signer,
        deps.store,
        deps.anchor,
        deps.signLineageCheckpoints === true ? deps.signer : null,
        deps.noticeKey ?? null,
        deps.logger,
      ),
      this.#outcomes,
    );
    resolveSealRequestPolicy(this.#policyAt(0));
  }

  /**
   * A new invocation's shared reads: every group handed to {@link SealerService.handleGroup} with
   * it is decided on one read of the deployment head (docs/pipeline.md, "Concurrency"). End it with
   * {@link SealerService.endInvocation} once its groups are done.
   */
  beginInvocation(): SealerInvocation {
    const { notifier, noticeKey, logger, anchor, publisher } = this.#deps;
    return {
      index: this.#index?.invocation() ?? null,
      records: recordMacBatcher(anchor),
      ...(notifier ? { notices: new SealedRunNoticeBatch(notifier, logger, noticeKey ?? null) } : {}),
      events: new SealedEventBatch(publisher, logger),
    };
  }

  /**
   * Puts the invocation's `ResidualSealed` event (one `PutEvents` entry carrying every run, split
   * only past 256 KiB) and sends its sealed-run notices (one `SendMessageBatch` per ten over SQS),
   * once its groups are done, failed ones included (their sealed runs are announced). Never
   * rejects: a notice not sent is logged, its lineage integrated at its next notice; an event
   * not put is logged, and the message ids of the groups it announces come back, to be reported
   * failed and redelivered (the redelivery re-announces their records).
   */
  async endInvocation(invocation: SealerInvocation): Promise<Unannounced> {
    const [unannounced] = await Promise.all([
      invocation.events?.send() ?? { messageIds: new Set<string>(), error: null },
      invocation.notices?.send(),
    ]);
    return unannounced;
  }

  /** One message on its own (a group of one, an invocation of its own). */
  async handle(message: SealMessage): Promise<SealOutcome> {
    const [outcome] = await this.handleGroup([message]);
    if (!outcome) throw new Error('no outcome');
    return outcome;
  }

  /**
   * The messages of one FIFO message group, in order.
   * @param invocation - the invocation's shared reads ({@link SealerService.beginInvocation}),
   *   which the caller ends; default: an invocation of this group alone, ended here (its event
   *   and notices sent before this resolves or rejects)
   * @returns one outcome per message, in the same order
   * @throws on an infrastructure failure (logged first), or, on an invocation of its own, when its
   *   `ResidualSealed` event was not put: the caller reports the whole group failed
   */
  async handleGroup(messages: readonly SealMessage[], invocation?: SealerInvocation): Promise<SealOutcome[]> {
    if (invocation !== undefined) return this.#handleLogged(messages, invocation);
    const own = this.beginInvocation();
    let outcomes: SealOutcome[];
    try {
      outcomes = await this.#handleLogged(messages, own);
    } catch (error) {
      await this.endInvocation(own);
      throw error;
    }
    // Its own event refused (logged by the batch): the group fails, as on a shared invocation.
    const unannounced = await this.endInvocation(own);
    if (unannounced.messageIds.size > 0) throw unannounced.error;
    return outcomes;
  }

  #handleLogged(messages: readonly SealMessage[], invocation: SealerInvocation): Promise<SealOutcome[]> {
    return logInfrastructureFailure(
      this.#deps.logger,
      'sealing failed on an infrastructure error; the message group will be retried',
      () => this.#handleGroup(messages, invocation),
    );
  }

  /**
   * Step 1 per message (refusals settle at once); steps 2–5 per run of writes to one lineage. The
   * group is a member of the invocation's record MAC batch until it ends, however it ends: the
   * batch never waits for a group that threw or was refused.
   */
  async #handleGroup(messages: readonly SealMessage[], invocation: SealerInvocation): Promise<SealOutcome[]> {
    const records = invocation.records?.join() ?? null;
    try {
      const outcomes: SealOutcome[] = new Array(messages.length);
      const messageIds = messages.map((m) => m.messageId);
      const run = new Run();
      const sealRun = async () => {
        for (const [index, outcome] of await this.#runs.seal(
          run.take(),
          invocation.index,
          records,
          invocation.notices ?? null,
        )) {
          outcomes[index] = outcome;
          // Announced once the invocation's groups are done; a refused event fails this group.
          if (outcome.kind === 'SEALED' || outcome.kind === 'DUPLICATE') invocation.events?.add(outcome, messageIds);
        }
      };
      for (const [index, message] of messages.entries()) {
        const prepared = await this.#prepare(index, message);
        if ('outcome' in prepared) {
          outcomes[index] = prepared.outcome;
          continue;
        }
        if (!run.admits(prepared.pending)) await sealRun();
        run.add(prepared.pending);
      }
      if (!run.empty) await sealRun();
      return outcomes;
    } finally {
      records?.leave();
    }
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
      return { outcome: await this.#outcomes.reject(message, null, reason, detail) };
    }
    const parsed = parseSealRequest(json);
    if ('detail' in parsed) {
      // Filed under the lineage the body names, when it names a valid one, so its writer finds it.
      return {
        outcome: await this.#outcomes.reject(
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
        outcome: await this.#outcomes.reject(message, request, reason, detail, {
          rejectedVariables,
          requestViolations,
        }),
      };
    }
    // The writer's signature, checked again here: a seal request is the guard's word, not the writer's.
    const signatureProblem = writeSignatureProblem(request.request, request.acceptedAtMs, seal);
    if (signatureProblem) {
      return {
        outcome: await this.#outcomes.reject(
          message,
          request,
          RejectionReason.WRITER_SIGNATURE_INVALID,
          signatureProblem,
        ),
      };
    }
    return { pending: { index, message, request, seal } };
  }
}

/**
 * Consecutive writes to one lineage, sealed and appended together: at most {@link MAX_RUN_RECORDS}
 * records and {@link MAX_RUN_BODY_BYTES} of bodies (one append: docs/sealing.md, "The write").
 */
class Run {
  #items: Pending[] = [];
  #bytes = 0;

  get empty(): boolean {
    return this.#items.length === 0;
  }

  /** Whether `pending` may join this run (an empty run admits anything). */
  admits(pending: Pending): boolean {
    const current = this.#items[0]?.request.request.lineageId;
    return (
      current === undefined ||
      (current === pending.request.request.lineageId &&
        this.#items.length < MAX_RUN_RECORDS &&
        this.#bytes + Buffer.byteLength(pending.message.body, 'utf8') <= MAX_RUN_BODY_BYTES)
    );
  }

  add(pending: Pending): void {
    this.#items.push(pending);
    this.#bytes += Buffer.byteLength(pending.message.body, 'utf8');
  }

  /** The run's writes, leaving it empty. */
  take(): Pending[] {
    const items = this.#items;
    this.#items = [];
    this.#bytes = 0;
    return items;
  }
}

/** The lineage and residual ids a body that is not a valid SealRequest names, when they are valid identifiers. */
function idsNamedBy(json: unknown): NamedIds {
  const request = (json as { request?: Record<string, unknown> } | null)?.request;
  const pick = (value: unknown) => (Identifier.safeParse(value).success ? (value as string) : null);
  return { lineageId: pick(request?.lineageId), residualId: pick(request?.residualId) };
}
