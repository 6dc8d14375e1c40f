import type { HexDigest } from '../../shared/canonical/digest';
import { LogStateError, ResealError } from '../../shared/errors';
import type { LineageIndexValue } from '../../shared/index/index-entry';
import { checkpointOrigin } from '../../shared/log/checkpoint-origin';
import { type HeadKeyMac, headKeyMac } from '../../shared/log/head-key-mac';
import { type HeadState, type HeadStateMac, macHeadState } from '../../shared/log/head-state-mac';
import { extendLog, type LogEntry, type LogExtension } from '../../shared/log/log-extension';
import { authenticateHeadState, headStateOf, type LogState, type StoredLogHead } from '../../shared/log/log-state';
import { nodeSourceOf } from '../../shared/log/node-source';
import { type NoteVerifierKey, noteVerifierKey } from '../../shared/log/note-key';
import { proveRecord, verifyRecordProof } from '../../shared/log/record-proof';
import {
  checkRecordsPastHead,
  MAX_ROLL_FORWARD_RECORDS,
  residualIdsSealedPastHead,
} from '../../shared/log/records-past-head';
import { signCheckpoint } from '../../shared/log/sign-checkpoint';
import { proveTreeConsistency } from '../../shared/log/tree-consistency';
import type { LineageStore } from '../../shared/ports/lineage-store';
import type { MacAnchor } from '../../shared/ports/mac-anchor';
import type { NoteSigner } from '../../shared/ports/note-signer';
import type { NoticeKeyIssuer, NoticeKeyOpener } from '../../shared/ports/notice-key';
import { isIntact } from '../../shared/seal/is-intact';
import { type LineageHead, lineageHeadOf } from '../../shared/seal/lineage-head';
import { checkRecordIntegrity } from '../../shared/seal/record-integrity';
import type { SealedRecord } from '../../shared/seal/sealed-record';
import type { ServiceLogger } from '../common/service-logger';
import { SealedHeads } from './sealed-heads';

/**
 * The state the sealer extends (docs/sealing.md, "The roll-forward"): authenticated, with any run of
 * records past the head item rolled forward.
 */
export interface AuthenticatedLineage {
  readonly state: LogState;
  /** The head item the state is stored at now (the next head move's condition); `null`: none yet. */
  readonly head: LineageHead | null;
  /** The records rolled forward past the head item read (the head was moved to them), oldest first; normally none. */
  readonly rolledForward: readonly SealedRecord[];
}

/** Why the stored lineage is not extended ({@link SealerLog.authenticatedState}). */
export interface LineageRefusal {
  readonly reason: string;
  /** Residual ids sealed by records past the head whose MAC verified: their writes are retried, never refused. */
  readonly sealedResidualIds: ReadonlySet<string>;
}

/**
 * The records stored past a head item as it was read ({@link SealerLog.rawsPastHead}): from its
 * seq + 1 (0 with no head item), at most {@link MAX_ROLL_FORWARD_RECORDS} + 1 of them, unverified.
 */
export interface RawsPastHead {
  /** The first seq read: the head item's seq + 1, or 0 without one. */
  readonly fromSeq: number;
  readonly raws: readonly unknown[];
}

/** Records read per `readChain` by {@link SealerLog.recordsSince}: the newest page first. */
export const RECORDS_PAGE = 100;

/**
 * The log key as the sealer holds it: its name (the log name) and public key (KMS
 * `GetPublicKey`), to read heads that still carry a signed lineage checkpoint and the deployment
 * checkpoint. The sealer never signs with it (docs/verifiable-log.md, "Appending").
 */
export type LogPublicKey = Pick<NoteSigner, 'keyName' | 'publicKey'>;

/**
 * The notice key as the sealer holds it: data keys to MAC heads (and notices) with, and the
 * `Decrypt` of another container's, to authenticate the heads it stored. Adapter: `KmsNoticeKey`.
 */
export type SealerNoticeKey = NoticeKeyIssuer & NoticeKeyOpener;

/**
 * The sealer's side of the verifiable log (docs/verifiable-log.md, "Appending"): the stored log
 * state authenticated (its head-key MAC under a notice data key, its head-state MAC with the
 * records' HMAC key, an older head's signed checkpoint, or the lineage's entry in the deployment
 * index) before it is extended, the tree extended and, once its records are stored, its head state
 * MAC'd (in process under the notice data key; without one, one `GenerateMac`; no `Sign`), and
 * what an earlier record or a redelivery needs proven. Remembers the heads it sealed while warm (`SealedHeads`), so a state
 * rolled back behind them is refused.
 */
export class SealerLog {
  readonly #logKey: LogPublicKey;
  readonly #store: LineageStore;
  readonly #anchor: MacAnchor;
  readonly #checkpointSigner: NoteSigner | null;
  readonly #noticeKey: SealerNoticeKey | null;
  readonly #logger: Pick<ServiceLogger, 'warn'> | null;
  /** Whether the last data key asked for was refused (logged once, until one is had again). */
  #noDataKey = false;
  readonly #sealed = new SealedHeads();
  #verifierKey: NoteVerifierKey | null = null;

  /**
   * @param checkpointSigner - transitional: also signs each run's lineage checkpoint for readers
   *   that still take a lineage's tree head from it (docs/deployment-log.md, "What changes for the
   *   sealer"); `null`: the head's MAC alone, no `Sign`
   * @param noticeKey - the notice key: heads are MAC'd under its data key and authenticated by
   *   opening their blob; `null`: every head gets a KMS head-state MAC (`GenerateMac`), and a
   *   head-key MAC vouches for nothing here
   * @param logger - tells of a data key refused (once, until one is had again)
   */
  constructor(
    logKey: LogPublicKey,
    store: LineageStore,
    anchor: MacAnchor,
    checkpointSigner: NoteSigner | null,
    noticeKey: SealerNoticeKey | null = null,
    logger: Pick<ServiceLogger, 'warn'> | null = null,
  ) {
    this.#logKey = logKey;
    this.#store = store;
    this.#anchor = anchor;
    this.#checkpointSigner = checkpointSigner;
    this.#noticeKey = noticeKey;
    this.#logger = logger;
  }

  /**
   * The lineage state the sealer may extend (docs/sealing.md, "The roll-forward"): the head item
   * authenticated ({@link authenticateHeadState}: head-key MAC, head-state MAC, signed checkpoint, or `indexed`
   * when the head is exactly the indexed one), then the records stored past it (one `readChain`
   * of at most {@link MAX_ROLL_FORWARD_RECORDS} + 1 records, normally empty) rolled forward when
   * they are one run the sealer made ({@link checkRecordsPastHead}, and each record's stored tree
   * nodes the ones {@link extendLog} computes): the head is moved to them first (its MAC, the head put under the head-as-read condition, their markers), and the state is
   * theirs. Records with no head item roll forward from genesis only when the index does not hold
   * the lineage. A head behind the indexed head is returned as it is (the index refuses it). The
   * state must not be behind what this sealer stored while warm. Else why not (each write then gets
   * a `LINEAGE_INCONSISTENT` conflict, unless a record past the head seals it: a state nothing
   * vouches for is never extended).
   *
   * @param pastHead - the records past `stored`, read right after it ({@link SealerLog.rawsPastHead}):
   *   used when they start where the authenticated state ends; else (absent, or a read that
   *   failed) they are read here, after the authentication
   * @throws {StaleHeadError} the head moved while rolling forward (re-read)
   * @throws a retryable error when a MAC cannot be checked or made (the message group is retried)
   */
  async authenticatedState(
    lineageId: string,
    stored: StoredLogHead | null,
    indexed: LineageIndexValue | null,
    pastHead: RawsPastHead | null = null,
  ): Promise<AuthenticatedLineage | LineageRefusal> {
    let state: LogState;
    try {
      ({ state } = await authenticateHeadState(stored, {
        lineageId,
        origin: this.origin(lineageId),
        key: await this.verifierKey(),
        anchor: this.#anchor,
        opener: this.#noticeKey,
        indexed,
      }));
    } catch (error) {
      if (!(error instanceof LogStateError)) throw error;
      return {
        reason: error.message,
        sealedResidualIds: await this.#sealedPastClaimedHead(lineageId, stored, pastHead),
      };
    }
    const head = stored?.head ?? null;
    const rolled = await this.#rollForward(lineageId, state, head, indexed, pastHead);
    if ('reason' in rolled) return rolled;
    const rolledBack = this.#sealed.rolledBack(rolled.state);
    if (rolledBack !== null) return { reason: rolledBack, sealedResidualIds: new Set() };
    return rolled;
  }

  /** The records past `state` rolled forward and the head moved to them ({@link SealerLog.authenticatedState}). */
  async #rollForward(
    lineageId: string,
    state: LogState,
    head: LineageHead | null,
    indexed: LineageIndexValue | null,
    pastHead: RawsPastHead | null,
  ): Promise<AuthenticatedLineage | LineageRefusal> {
    const unchanged = { state, head, rolledForward: [] };
    // Behind the index: refused there as today (a crash never puts a head behind the index), but
    // for records with no head item at all in a lineage the index holds: the head item was deleted.
    if (indexed !== null && state.size < indexed.treeSize && head !== null) return unchanged;
    const raws =
      pastHead?.fromSeq === state.size
        ? pastHead.raws
        : await this.#store.readChain(lineageId, state.size, state.size + MAX_ROLL_FORWARD_RECORDS);
    if (raws.length === 0) return unchanged;
    if (head === null && indexed !== null) {
      return {
        reason: `records are stored but no head item, and the deployment index holds the lineage (${indexed.treeSize} records): the head item was deleted`,
        sealedResidualIds: new Set(),
      };
    }
    const checked = await checkRecordsPastHead(state, raws, this.#anchor);
    if ('reason' in checked) return { ...checked, reason: `records past the head item: ${checked.reason}` };
    const { extension, headMac, checkpoint } = await this.extend(lineageId, state, checked.records);
    const storedNodes = await this.#storedNodes(lineageId, extension.entries);
    for (const [i, { record, nodes }] of extension.entries.entries()) {
      if (nodes.some((hash, level) => storedNodes[i]?.[level] !== hash)) {
        const seq = record.header.monotonicSequenceNumber;
        return {
          reason: `records past the head item: the tree nodes stored with the record at seq ${seq} are not the ones it completes`,
          sealedResidualIds: new Set(checked.records.map((r) => r.header.residualId)),
        };
      }
    }
    const rolledState = { ...extension.state, checkpoint };
    const rolledBack = this.#sealed.rolledBack(rolledState);
    if (rolledBack !== null) return { reason: rolledBack, sealedResidualIds: new Set() };
    await this.#store.moveHead({
      lineageId,
      entries: extension.entries,
      expectedHead: head,
      headMac,
      checkpoint,
      frontier: extension.storedFrontier,
      policy: extension.state.policy,
    });
    this.remember(rolledState);
    const last = checked.records.at(-1) as SealedRecord;
    return { state: rolledState, head: lineageHeadOf(last), rolledForward: checked.records };
  }

  /**
   * Residual ids sealed by the records stored past a head item that does not authenticate (from
   * its claimed seq on, one run at most), each intact with its MAC verified: a write the sealer
   * stored there before the head item was edited is retried, never refused ({@link residualIdsSealedPastHead}).
   */
  async #sealedPastClaimedHead(
    lineageId: string,
    stored: StoredLogHead | null,
    pastHead: RawsPastHead | null,
  ): Promise<ReadonlySet<string>> {
    const seq = stored?.head.seq;
    if (seq === undefined || !Number.isSafeInteger(seq) || seq < -1) return new Set();
    const raws =
      pastHead?.fromSeq === seq + 1
        ? pastHead.raws
        : await this.#store.readChain(lineageId, seq + 1, seq + 1 + MAX_ROLL_FORWARD_RECORDS);
    return residualIdsSealedPastHead(lineageId, raws, this.#anchor);
  }

  /**
   * The records stored past the head item `stored` as read (the roll-forward's one `readChain`),
   * for a run to read right after its head, beside its index floor, rather than after both: they
   * depend on the head read alone, and are still read after it. `null` for a head item whose seq
   * is no seq (it does not authenticate), and when the read fails: {@link SealerLog.authenticatedState}
   * then reads them itself, so reading them early adds no failure the run did not have. A run whose
   * head is behind the index needs none of them (it is refused): that path reads them for nothing.
   *
   * @param options.eventual - read an eventually consistent copy (half the read units) and keep it
   *   as it is, a missed record included: only for a run's tentative attempt (seal-run.ts), which
   *   goes on only when the copy shows none, and whose first record put, conditional on its seq
   *   being new, fails on any record the copy missed (then the run re-reads strongly)
   */
  async rawsPastHead(
    lineageId: string,
    stored: StoredLogHead | null,
    { eventual = false }: { readonly eventual?: boolean } = {},
  ): Promise<RawsPastHead | null> {
    const seq = stored ? stored.head.seq : -1;
    if (!Number.isSafeInteger(seq) || seq < -1) return null;
    const fromSeq = seq + 1;
    const toSeq = fromSeq + MAX_ROLL_FORWARD_RECORDS;
    try {
      return {
        fromSeq,
        raws: await this.#store.readChain(lineageId, fromSeq, toSeq, eventual ? { eventual, recheck: false } : {}),
      };
    } catch {
      return null;
    }
  }

  /** The tree nodes stored with each entry's record (hex by level; one `readNodes`). */
  async #storedNodes(lineageId: string, entries: readonly LogEntry[]): Promise<(HexDigest | null)[][]> {
    const refs = entries.map(({ record, nodes }) => {
      const seq = record.header.monotonicSequenceNumber;
      return nodes.map((_, level) => ({ level, index: (seq + 1) / 2 ** level - 1 }));
    });
    const hashes = await this.#store.readNodes(lineageId, refs.flat());
    let at = 0;
    return refs.map((levels) => levels.map(() => hashes[at++] ?? null));
  }

  /**
   * The tree after `records` (RFC 9162), and what vouches for its head state ({@link SealerLog.vouch}).
   * Only for records already stored (the roll-forward): a run's own records are extended
   * ({@link SealerLog.extension}), put, and only then vouched for.
   */
  async extend(
    lineageId: string,
    state: LogState,
    records: readonly SealedRecord[],
  ): Promise<{ extension: LogExtension; headMac: HeadStateMac | HeadKeyMac; checkpoint: string | null }> {
    const extension = this.extension(lineageId, state, records);
    return { extension, ...(await this.vouch(extension)) };
  }

  /** The tree after `records` (RFC 9162), not yet vouched for: pure. */
  extension(lineageId: string, state: LogState, records: readonly SealedRecord[]): LogExtension {
    return extendLog(state, records, this.origin(lineageId));
  }

  /**
   * The MAC of `extension`'s head state: under the notice data key, in process (no KMS call per
   * invocation), or, when no data key can be had (`dataKey()` rejects: logged once), one KMS
   * `GenerateMac` of its own, which the write is never refused for; with a checkpoint signer
   * (transitional), its lineage checkpoint signed too (one `Sign`), else `null`. Called only once
   * the extension's records are stored (docs/verifiable-log.md, "Appending"): a state whose records
   * did not land is never MAC'd nor signed, so no head MAC names one.
   * @throws what the anchor or the signer throws (the run is retried)
   */
  async vouch(extension: LogExtension): Promise<{ headMac: HeadStateMac | HeadKeyMac; checkpoint: string | null }> {
    const head = headStateOf(extension.state);
    if (head === null) throw new Error('vouch: an extended log has a head');
    const [headMac, checkpoint] = await Promise.all([
      this.#macHead(head),
      this.#checkpointSigner ? signCheckpoint(extension.checkpoint, this.#checkpointSigner) : null,
    ]);
    return { headMac, checkpoint };
  }

  /** The head's MAC under the current data key, else by KMS ({@link SealerLog.vouch}). */
  async #macHead(head: HeadState): Promise<HeadStateMac | HeadKeyMac> {
    if (this.#noticeKey !== null) {
      try {
        const { plaintext, blob } = await this.#noticeKey.dataKey();
        const mac = { mac: headKeyMac(head, plaintext), keyBlob: blob };
        this.#noDataKey = false;
        return mac;
      } catch (error) {
        if (!this.#noDataKey) {
          this.#logger?.warn('no notice data key: heads get a KMS head-state MAC until one is had', { error });
        }
        this.#noDataKey = true;
      }
    }
    return macHeadState(head, this.#anchor);
  }

  /** Remembers a state this sealer sealed and stored. */
  remember(state: LogState): void {
    this.#sealed.remember(state);
  }

  /** The record hash at `seq`: from this run, or proven by inclusion in the authenticated state; `null` if unprovable. */
  async recordHashAt(
    lineageId: string,
    seq: number,
    state: LogState,
    sealed: readonly { record: Pick<SealedRecord, 'header' | 'recordHash'> }[],
  ): Promise<string | null> {
    if (seq >= state.size) {
      return sealed.find((s) => s.record.header.monotonicSequenceNumber === seq)?.record.recordHash ?? null;
    }
    return (await this.provenRecordAt(lineageId, seq, state))?.recordHash ?? null;
  }

  /**
   * The stored record at `seq`, proven by inclusion in the authenticated state (its own hashes,
   * its lineage and seq, its leaf under the authenticated root); `null` when `seq` is not a seq of that
   * state or the record does not prove (missing, edited, forged, a node missing). What the table
   * says is at `seq` counts only then: a residual-id marker names a record, it proves none.
   *
   * @throws a retryable error (the store unavailable): the message is retried
   */
  async provenRecordAt(lineageId: string, seq: number, state: LogState): Promise<SealedRecord | null> {
    if (!Number.isSafeInteger(seq) || seq < 0 || seq >= state.size) return null;
    const store = this.#store;
    try {
      const proof = await proveRecord(
        seq,
        state.size,
        nodeSourceOf((refs) => store.readNodes(lineageId, refs)),
      );
      const checkpoint = { origin: this.origin(lineageId), size: state.size, rootHash: state.rootHash };
      const proven = verifyRecordProof(await store.readRecord(lineageId, seq), proof, checkpoint, lineageId);
      return proven.verdict === 'VERIFIED_INTACT' ? proven.record : null;
    } catch (error) {
      // Unprovable for good (a node or record missing or forged); a retryable error is rethrown.
      if (error instanceof ResealError && !error.retryable) return null;
      throw error;
    }
  }

  /**
   * The stored records sealed at or after `sinceMs` among `fromSeq ≤ seq < state.size`, newest
   * first, read in pages of {@link RECORDS_PAGE} (one `readChain` each) from the tip down, each
   * authenticated by the hash chain back from the authenticated tip: its own hashes recompute, its
   * `recordHash` is the next record's `parentRecordHash` (the tip's for the last), its lineage and
   * seq are its place. So a record a table writer edited, deleted or put in is never taken for a
   * sealed one, and its `sealedAtMs` (under the record hash) is the sealer's own. The search ends
   * at `fromSeq`, at the first record sealed before `sinceMs` (records are sealed in seq order),
   * or, incomplete, before reading more than `limit` records (docs/sealing.md, "The index floor",
   * residual ids past the indexed head).
   *
   * @returns the records found, newest first, with whether the search reached its end (`fromSeq`
   *   or a record before `sinceMs`) within `limit`; or why they do not authenticate
   * @throws a retryable error (the store unavailable): the message is retried
   */
  async recordsSince(
    lineageId: string,
    search: { readonly fromSeq: number; readonly sinceMs: number; readonly limit: number },
    state: LogState,
  ): Promise<{ readonly records: SealedRecord[]; readonly complete: boolean } | string> {
    const records: SealedRecord[] = [];
    if (!state.tip || search.fromSeq >= state.size) return { records, complete: true };
    let expected: string = state.tip.recordHash;
    for (let hi = state.size - 1; hi >= search.fromSeq; hi -= RECORDS_PAGE) {
      const lo = Math.max(search.fromSeq, hi - RECORDS_PAGE + 1);
      if (records.length + (hi - lo + 1) > search.limit) return { records, complete: false };
      // Eventually consistent first: every seq of the page is below the authenticated tip, so it is
      // stored (records are put once, before the head that names them), and each record read is
      // taken only through the hash chain from that tip; a copy missing a seq is read again strongly.
      const raws = await this.#store.readChain(lineageId, lo, hi, { eventual: true });
      for (let seq = hi, i = raws.length - 1; seq >= lo; seq--, i--) {
        const checked = i >= 0 ? checkRecordIntegrity(raws[i]) : null;
        if (checked === null || !isIntact(checked)) {
          return `the record at seq ${seq} is ${checked === null ? 'missing' : `not intact (${checked.reason})`}`;
        }
        const { record } = checked;
        if (
          record.recordHash !== expected ||
          record.header.monotonicSequenceNumber !== seq ||
          record.header.lineageId !== lineageId
        ) {
          return `the record stored at seq ${seq} is not the one the authenticated head chains back to`;
        }
        if (record.sealedAtMs < search.sinceMs) return { records, complete: true };
        records.push(record);
        expected = record.header.parentRecordHash;
      }
    }
    return { records, complete: true };
  }

  /**
   * The RFC 9162 consistency proof (hex) from the lineage's first `size` records to `state`, built
   * from the stored tree nodes (one read); empty when a node is missing, so the check that uses it
   * fails (docs/sealing.md, "The index floor").
   * @throws a retryable error (the store unavailable): the message is retried
   */
  async consistencyFrom(lineageId: string, size: number, state: LogState): Promise<readonly string[]> {
    const store = this.#store;
    try {
      const nodes = nodeSourceOf((refs) => store.readNodes(lineageId, refs));
      return (await proveTreeConsistency(size, state.size, nodes)).proof;
    } catch (error) {
      if (error instanceof ResealError && !error.retryable) return [];
      throw error;
    }
  }

  /** The log's origin line for a lineage (the log key's name is the log name). */
  origin(lineageId: string): string {
    return checkpointOrigin(this.#logKey.keyName, lineageId);
  }

  /**
   * The log's verifier key, from the log key's public key (fetched once per cold start; a run
   * starts the fetch beside its head read).
   * @throws {SignerUnavailableError} when KMS refuses (the message group is retried)
   */
  async verifierKey(): Promise<NoteVerifierKey> {
    this.#verifierKey ??= noteVerifierKey(this.#logKey.keyName, await this.#logKey.publicKey());
    return this.#verifierKey;
  }
}
