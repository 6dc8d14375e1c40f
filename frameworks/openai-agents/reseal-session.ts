import { randomUUID } from 'node:crypto';
import type { AgentInputItem, Session } from '@openai/agents-core';
import type { CheckpointStore } from '../../client/checkpoint-store';
import { type ConnectOptions, connectToStack } from '../../client/connect';
import { LogVerificationError } from '../../client/errors';
import { FileCheckpointStore } from '../../client/file-checkpoint-store';
import { lineageLogView } from '../../client/lineage-log-view';
import { LogReader } from '../../client/log-reader';
import { publishWaitSince } from '../../client/publish-wait-since';
import type { LineageReader, ResealClient } from '../../client/reseal-client';
import { soleWriterLineageId } from '../../client/sole-writer-policy';
import { writeRequest } from '../../client/write-request';
import { writerKeyFile } from '../../client/writer-key-file';
import type { JsonValue } from '../../shared/canonical/canonical-json';
import { InvalidInputError, LineageNotFoundError } from '../../shared/errors';
import { FreshnessState } from '../../shared/integrator/record-freshness';
import { verifyLineageBySignedTree } from '../../shared/log/signed-tree-walk';
import type { WriterSigner } from '../../shared/ports/writer-signer';
import type { RecordRef } from '../../shared/schemas/record-ref';
import { type SealedRecord, SealedRecordSchema } from '../../shared/seal/sealed-record';
import { VerificationVerdict } from '../../shared/seal/verification-verdict';
import {
  foldSessionHistory,
  type LiveSessionItem,
  SessionOp,
  sessionAddPayload,
  sessionRemovalPayload,
} from '../../shared/session/session-history';
import type { BuildManifestInput } from '../../shared/triage/build-manifest-input';
import { SessionWriteRefusedError, SessionWriteUnprovenError } from './errors';

/** Where the checkpoint store is kept unless told (the CLI's and the Python client's default file). */
export const DEFAULT_CHECKPOINT_FILE = '.reseal/checkpoints.json';

/** The manifest of a session write when none is given: no environment keys, no claims. */
const EMPTY_MANIFEST: BuildManifestInput = { env: {}, structuralKeys: [], claimDependencyMap: {} };

/**
 * The Reseal session an adapter is bound to (docs/frameworks.md, "OpenAI Agents SDK
 * (TypeScript)"): the lineage, this generation's session id and epoch, and what each write seals.
 */
export interface ResealSessionBinding {
  readonly lineageId: string;
  /** The active Reseal session (each write's `sessionId` and `boundary.activeSessionId`). */
  readonly sessionId: string;
  /** This generation's epoch, the fencing token: a write after a newer generation wrote is refused. */
  readonly generationEpoch: number;
  /** The session this one took over from, and its epoch (absent on a cold start). */
  readonly predecessor?: { readonly sessionId: string; readonly epoch: number };
  /** When this session took over, ms since the Unix epoch. */
  readonly boundaryAtMs: number;
  /**
   * The environment each write is sealed against (docs/triage.md, "The four recorded
   * elements"), taken again for every write: e.g. from `snapshotProviders(config).take()`.
   * Default: an empty environment.
   */
  readonly manifest: () => BuildManifestInput | Promise<BuildManifestInput>;
  /** Longest wait for a write's proven outcome, ms (default 60,000). */
  readonly timeoutMs?: number;
}

/** Options of {@link ResealSession.connect}: where the stack is, who writes, and the binding. */
export interface ResealSessionConnectOptions {
  /**
   * The stack: its CloudFormation name, or every option of `connectToStack` (default
   * `ResealStack`, its region, credentials and endpoint from the environment, `AWS_ENDPOINT_URL`
   * for an emulator).
   */
  readonly stack?: string | Omit<ConnectOptions, 'writer' | 'checkpointStore'>;
  /** The writer key's PKCS #8 PEM file, made when missing (`writerKeyFile`); or `writer`. */
  readonly writerKeyFile?: string;
  readonly writer?: WriterSigner;
  /** The lineage; default `soleWriterLineageId(label, writer)`, so `label` alone names it. */
  readonly lineageId?: string;
  readonly label?: string;
  /** The active Reseal session id (default `session-<uuid>`). */
  readonly sessionId?: string;
  /** This generation's epoch (default 1). A resumed session takes a larger one than its predecessor's. */
  readonly generationEpoch?: number;
  readonly predecessor?: { readonly sessionId: string; readonly epoch: number };
  /** When this session took over, ms since the Unix epoch (default: now). */
  readonly boundaryAtMs?: number;
  /** The environment each write is sealed against (default: empty). */
  readonly manifest?: BuildManifestInput | (() => BuildManifestInput | Promise<BuildManifestInput>);
  /** Where verified checkpoints are kept (default the file `.reseal/checkpoints.json`). */
  readonly checkpointStore?: CheckpointStore;
  /** Longest wait for a write's proven outcome, ms (default 60,000). */
  readonly timeoutMs?: number;
}

/** A proven session history: the live items and the last record of the lineage (what a `clear` supersedes). */
export interface ProvenSessionHistory {
  readonly items: readonly LiveSessionItem[];
  /** The lineage's last record, proven as the signed checkpoint's last leaf; `null` before the first. */
  readonly last: RecordRef | null;
}

/**
 * An OpenAI Agents SDK `Session` kept in a Reseal lineage (docs/frameworks.md, "OpenAI Agents
 * SDK (TypeScript)"): every item is sealed as a residual of the bound lineage; every read walks
 * the whole lineage and proves each record a leaf of the newest signed checkpoint, consistent
 * with the kept one, so a tampered or rolled-back history throws and is never returned; a write
 * counts only on a proven outcome, and a refused one (a stale generation, a guard refusal) throws
 * {@link SessionWriteRefusedError}; `popItem` and `clearSession` seal tombstones: history is
 * never erased.
 *
 * @example
 * const session = await ResealSession.connect({ label: 'support-bot', writerKeyFile: '.reseal/agent.pem' });
 * await run(agent, 'Hello', { session });
 */
export class ResealSession implements Session {
  readonly #client: ResealClient;
  readonly #store: LineageReader;
  readonly #log: LogReader;
  readonly #binding: ResealSessionBinding;

  /**
   * @param client - a client with a writer key (it signs every write) and a checkpoint store
   * @param store - the lineage table's reads (`connectToStack`'s `store`)
   * @param checkpointStore - the client's checkpoint store (the same one), or `null`: then a
   *   rollback of the table cannot be seen
   */
  constructor(
    client: ResealClient,
    store: LineageReader,
    checkpointStore: CheckpointStore | null,
    binding: ResealSessionBinding,
  ) {
    this.#client = client;
    this.#store = store;
    this.#log = new LogReader(store, () => client.logKey(), checkpointStore);
    this.#binding = binding;
  }

  /**
   * Connects to a deployed stack and binds a session, in one line.
   *
   * @throws {InvalidInputError} when neither a writer key nor a lineage is named, or the epoch is not a non-negative integer
   * @throws {StackOutputsError} when the stack or one of its outputs cannot be found
   * @example
   * const session = await ResealSession.connect({ label: 'agent-7', writerKeyFile: '.reseal/agent-7.pem' });
   */
  static async connect(options: ResealSessionConnectOptions): Promise<ResealSession> {
    const issues = [];
    if (!options.writer && !options.writerKeyFile) {
      issues.push({ path: 'writerKeyFile', message: 'a writer key is required: every session write is signed' });
    }
    if (!options.lineageId && !options.label) {
      issues.push({ path: 'label', message: 'name the lineage: a label (with the writer key) or a lineageId' });
    }
    const epoch = options.generationEpoch ?? 1;
    if (!Number.isSafeInteger(epoch) || epoch < 0) {
      issues.push({ path: 'generationEpoch', message: 'must be a non-negative integer' });
    }
    if (issues.length > 0) throw new InvalidInputError('ResealSession.connect options', issues);
    const writer = options.writer ?? (await writerKeyFile(options.writerKeyFile as string));
    const checkpointStore = options.checkpointStore ?? new FileCheckpointStore(DEFAULT_CHECKPOINT_FILE);
    const stack = typeof options.stack === 'string' ? { stackName: options.stack } : (options.stack ?? {});
    // As the CLI and the MCP server do: an endpoint from the environment is every client's (queue URLs name the emulator's host).
    const endpoint = stack.endpoint ?? process.env.AWS_ENDPOINT_URL;
    const { client, store } = await connectToStack({
      ...stack,
      ...(endpoint ? { endpoint } : {}),
      writer,
      checkpointStore,
    });
    const manifest = options.manifest ?? EMPTY_MANIFEST;
    return new ResealSession(client, store, checkpointStore, {
      lineageId: options.lineageId ?? soleWriterLineageId(options.label as string, writer),
      sessionId: options.sessionId ?? `session-${randomUUID()}`,
      generationEpoch: epoch,
      ...(options.predecessor ? { predecessor: options.predecessor } : {}),
      boundaryAtMs: options.boundaryAtMs ?? Date.now(),
      manifest: typeof manifest === 'function' ? manifest : () => manifest,
      ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
    });
  }

  /** The bound Reseal session. */
  get binding(): ResealSessionBinding {
    return this.#binding;
  }

  /** The SDK's session id: the lineage id (a resumed generation continues the same conversation). */
  async getSessionId(): Promise<string> {
    return this.#binding.lineageId;
  }

  /**
   * The live items, oldest first; with `limit`, the latest `limit` of them. Proven first
   * ({@link ResealSession.history}).
   *
   * @throws {LogVerificationError} when the history does not verify (tampered, rolled back, forked)
   * @throws {SessionHistoryError} when an authentic session record does not fold
   */
  async getItems(limit?: number): Promise<AgentInputItem[]> {
    if (limit !== undefined && (!Number.isSafeInteger(limit) || limit < 0)) {
      throw new InvalidInputError('getItems limit', [{ path: 'limit', message: 'must be a non-negative integer' }]);
    }
    const { items } = await this.history();
    const kept = limit === undefined ? items : limit === 0 ? [] : items.slice(-limit);
    return kept.map(({ item }) => item as unknown as AgentInputItem);
  }

  /**
   * Seals each item as a residual of the lineage, one after another (each waits for its proven
   * outcome, so the items keep their order).
   *
   * @throws {InvalidInputError} naming the first item JSON cannot carry (nothing of the batch is written then)
   * @throws {SessionWriteRefusedError} when a write is refused (the items before it stay sealed)
   * @throws {LogVerificationError} when a write is sealed but the deployment log contradicts it
   * @throws {UnverifiedOutcomeError} when the table contradicts a write's seal (a marked record that
   *   does not verify, or a refusal the sealer signed beside its unproven seal: docs/pipeline.md)
   * @throws {SessionWriteUnprovenError} when a write is sealed but not yet proven at `timeoutMs`
   * @throws {TimeoutError} when no outcome appears within `timeoutMs`
   */
  async addItems(items: AgentInputItem[]): Promise<void> {
    const payloads = items.map((item) => sessionAddPayload(item));
    for (const payload of payloads) await this.#seal(payload as unknown as JsonValue, null);
  }

  /**
   * Removes the latest live item by sealing a tombstone that supersedes its record, and returns it
   * (`undefined` when the history has none). The item's record stays in the lineage.
   *
   * @throws {LogVerificationError} when the history does not verify
   * @throws {SessionWriteRefusedError} when the tombstone is refused
   */
  async popItem(): Promise<AgentInputItem | undefined> {
    const latest = (await this.history()).items.at(-1);
    if (latest === undefined) return undefined;
    await this.#seal(sessionRemovalPayload(SessionOp.POP) as unknown as JsonValue, latest.ref);
    return latest.item as unknown as AgentInputItem;
  }

  /**
   * Empties the history by sealing a `clear` record that supersedes the lineage's last record;
   * nothing when no item is live. Every earlier record stays in the lineage.
   *
   * @throws {LogVerificationError} when the history does not verify
   * @throws {SessionWriteRefusedError} when the record is refused
   */
  async clearSession(): Promise<void> {
    const { items, last } = await this.history();
    if (items.length === 0 || last === null) return;
    await this.#seal(sessionRemovalPayload(SessionOp.CLEAR) as unknown as JsonValue, last);
  }

  /**
   * The session's history, proven (docs/verifiable-log.md, "Verifying a whole lineage"): the
   * lineage's records are read once and walked (every hash, link, seq and epoch, the stored
   * head), and the records walked must be exactly the leaves of the newest signed checkpoint,
   * which must verify with the log key and be consistent with the kept checkpoint (then kept);
   * its last record must then stand against the deployment log as a recall's would
   * (`ResealClient.lineageFreshness`: not behind the head the index holds). Only those records are folded ({@link foldSessionHistory}).
   *
   * @returns the live items and the lineage's last record; none for a lineage never written
   * @throws {LogVerificationError} when anything does not verify, or the lineage is gone while a checkpoint of it is kept
   * @throws {SessionHistoryError} when an authentic session record does not fold
   */
  async history(): Promise<ProvenSessionHistory> {
    const { lineageId } = this.#binding;
    const read: unknown[] = [];
    const reads: LineageReader = {
      head: (id) => this.#store.head(id),
      lastRecordSeq: (id) => this.#store.lastRecordSeq(id),
      readChain: async (id, fromSeq, toSeq) => {
        const page = await this.#store.readChain(id, fromSeq, toSeq);
        read.push(...page);
        return page;
      },
      logHead: (id) => this.#store.logHead(id),
      readNodes: (...args) => this.#store.readNodes(...args),
      readRecord: (...args) => this.#store.readRecord(...args),
      getTriageReport: (...args) => this.#store.getTriageReport(...args),
      findByResidualId: (...args) => this.#store.findByResidualId(...args),
      listConflicts: (...args) => this.#store.listConflicts(...args),
      listRejections: (...args) => this.#store.listRejections(...args),
    };
    let walked: Awaited<ReturnType<typeof verifyLineageBySignedTree>>;
    try {
      const log = lineageLogView(this.#log, (id) => this.#client.readLineageTreeHead(id));
      walked = await verifyLineageBySignedTree(reads, log, {
        lineageId,
        macKeyId: this.#client.outputs.macKeyArn,
      });
    } catch (error) {
      if (!(error instanceof LineageNotFoundError)) throw error;
      // Nothing stored: never written, unless this client knows it (a kept checkpoint, the index,
      // a seal kept of its own write: docs/verifiable-log.md, "Verifying a whole lineage").
      const kept = await this.#log.trusted(lineageId);
      if (kept !== null) {
        throw new LogVerificationError(
          lineageId,
          VerificationVerdict.TRUNCATION_DETECTED,
          `the lineage has no records, but the kept checkpoint covers ${kept.size}`,
        );
      }
      const found = await this.#client.wipedLineageFinding(lineageId);
      if (found) throw new LogVerificationError(lineageId, found.verdict, found.reason);
      return { items: [], last: null };
    }
    const { log } = walked;
    // The walked head placed against the deployment log (docs/deployment-log.md, "Clients"): a
    // history rolled back behind the index (NOT_NEWEST), two histories (INCONSISTENT) or a chain
    // that does not verify (REFUSED) is never returned; nor one a seal this client kept of its own
    // waited write contradicts (docs/verifiable-log.md, "Seals seen awaiting integration"). The
    // walk proved exactly the records it read (the signed tree's leaves): the head's size is theirs.
    const verification = await this.#client.checkWalkAgainstSeals(
      lineageId,
      await this.#client.lineageFreshness(lineageId, walked.verification, walked),
      read,
      read.length,
    );
    if (verification.verdict !== VerificationVerdict.VERIFIED_INTACT || log === null) {
      throw new LogVerificationError(
        lineageId,
        verification.verdict,
        verification.firstFailure?.reason ?? 'the history is not proven',
      );
    }
    // The walk proved exactly these records (their hashes are the signed tree's leaves, in order).
    const records: SealedRecord[] = read.map((raw) => SealedRecordSchema.parse(raw));
    const items = foldSessionHistory(
      records.map((record) => ({
        seq: record.header.monotonicSequenceNumber,
        recordHash: record.recordHash,
        supersedes: record.header.supersedes,
        payload: record.payload,
      })),
    );
    const tail = records.at(-1);
    return { items, last: tail ? { seq: tail.header.monotonicSequenceNumber, recordHash: tail.recordHash } : null };
  }

  /** Publishes one session record and waits until it is proven (integrated) or refused; anything but a seal throws. */
  async #seal(payload: JsonValue, supersedes: RecordRef | null): Promise<void> {
    const binding = this.#binding;
    const residualId = `item-${randomUUID()}`;
    const request = writeRequest({
      residualId,
      lineageId: binding.lineageId,
      sessionId: binding.sessionId,
      generationEpoch: binding.generationEpoch,
      payload,
      boundaryAtMs: binding.boundaryAtMs,
      ...(binding.predecessor ? { predecessor: binding.predecessor } : {}),
      manifest: await binding.manifest(),
      ...(supersedes ? { supersedes } : {}),
    });
    const published = await this.#client.publishWrite(request);
    const outcome = await this.#client.waitForOutcome(binding.lineageId, residualId, {
      request: published.request,
      sinceMs: publishWaitSince(published),
      // Reads are proven through the deployment log (`history`), so a write returns once it is
      // proven there too, not while it is only sealed, awaiting integration.
      untilProven: true,
      ...(binding.timeoutMs ? { timeoutMs: binding.timeoutMs } : {}),
    });
    if (outcome.kind !== 'SEALED') throw new SessionWriteRefusedError(binding.lineageId, residualId, outcome);
    // A write counts only once proven (docs/frameworks.md): a seal the deployment log contradicts
    // (a rolled-back or forked log, a refused chain) is a tampered history, and one only awaiting
    // integration at the deadline is the sealer's word alone.
    const state = outcome.freshness?.state ?? null;
    if (state === FreshnessState.PROVEN) return;
    if (
      state === FreshnessState.NOT_NEWEST ||
      state === FreshnessState.INCONSISTENT ||
      state === FreshnessState.REFUSED
    ) {
      throw new LogVerificationError(
        binding.lineageId,
        VerificationVerdict.UNVERIFIED_TAMPER_RISK,
        `write ${residualId} was sealed, but the deployment log says ${state}: ${outcome.freshness?.reason}`,
      );
    }
    throw new SessionWriteUnprovenError(binding.lineageId, residualId, outcome);
  }
}
