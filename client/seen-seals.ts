import type { Checkpoint } from '../shared/log/checkpoint';
import { checkpointOrigin } from '../shared/log/checkpoint-origin';
import { addSeenSeal, pruneSeenSeals, type SeenSeal, seenSealContradiction } from '../shared/log/seen-seal';
import type { SealedRecord } from '../shared/seal/sealed-record';
import type { CheckpointStore } from './checkpoint-store';
import { LogVerificationError } from './errors';
import type { LatestCheckpoint, LogReader } from './log-reader';

/**
 * The seals of this client's own writes (waited for with the request it published) it saw
 * awaiting integration, kept in its checkpoint store per lineage (docs/verifiable-log.md, "Seals
 * seen awaiting integration"). The index does not vouch for them yet, so a table writer could
 * rewind the head over them and delete them and their markers, leaving a table consistent with
 * every kept checkpoint; what this client saw of its own writes still refuses that state. A store without `loadSeenSeals` / `updateSeenSeals` (or none) remembers
 * nothing: every method is then a no-op.
 */
export class SeenSeals {
  readonly #store: CheckpointStore | null;
  readonly #logName: () => Promise<string>;
  readonly #nowMs: () => number;

  /**
   * @param store - the client's checkpoint store, or `null`
   * @param logName - the stack's log name (entries are keyed by the lineage's checkpoint origin)
   * @param nowMs - clock, ms since the Unix epoch (when a seal was seen)
   */
  constructor(store: CheckpointStore | null, logName: () => Promise<string>, nowMs: () => number) {
    this.#store = store;
    this.#logName = logName;
    this.#nowMs = nowMs;
  }

  /**
   * Remembers `record`, proven by inclusion in `tree` (the head item's, not vouched for by the
   * index yet). Only for the seal of a write this client published and waited for (its content
   * bound by `record`): a record read on a recall is the table's word, which a table writer can
   * forge, and remembered it would refuse the honest table later.
   */
  async remember(record: SealedRecord, tree: Checkpoint): Promise<void> {
    const store = this.#store;
    if (!store?.updateSeenSeals) return;
    const seen: SeenSeal = {
      lineageId: record.header.lineageId,
      residualId: record.header.residualId,
      seq: record.header.monotonicSequenceNumber,
      recordHash: record.recordHash,
      treeSize: tree.size,
      rootHash: Buffer.from(tree.rootHash).toString('hex'),
      seenAtMs: this.#nowMs(),
    };
    await store.updateSeenSeals(await this.#key(seen.lineageId), (current) => addSeenSeal(current, seen));
  }

  /**
   * Forgets the seals of `lineageId` below `indexedSize`, the lineage's size in the index under the
   * deployment checkpoint just kept: from then on that checkpoint catches their rollback, and the
   * index settles what those seqs hold. Call it after {@link contradiction} in the same read: a
   * contradiction at a seq the index covers is reported that once, then forgotten with the seal.
   */
  async prune(lineageId: string, indexedSize: number): Promise<void> {
    const store = this.#store;
    if (!store?.updateSeenSeals || !store.loadSeenSeals) return;
    const key = await this.#key(lineageId);
    if ((await store.loadSeenSeals(key)).every((seen) => seen.seq >= indexedSize)) return;
    await store.updateSeenSeals(key, (current) => pruneSeenSeals(current, indexedSize));
  }

  /**
   * Forgets every seal of `residualId` in `lineageId`: the index now proves that residual id
   * (`PROVEN`), and the index is the authority on where it is sealed (docs/verifiable-log.md,
   * "Seals seen awaiting integration"). A seal of it at another seq was not its seal (a table
   * writer planted a copy of the request past the index), so it settles nothing but refuses the
   * honest table; the proven one needs no memory either.
   */
  async forget(lineageId: string, residualId: string): Promise<void> {
    const store = this.#store;
    if (!store?.updateSeenSeals || !store.loadSeenSeals) return;
    const key = await this.#key(lineageId);
    if (!(await store.loadSeenSeals(key)).some((seen) => seen.residualId === residualId)) return;
    await store.updateSeenSeals(key, (current) => current.filter((seen) => seen.residualId !== residualId));
  }

  /** The seals kept for `lineageId`, by seq (none without a store that keeps them). */
  async load(lineageId: string): Promise<readonly SeenSeal[]> {
    const store = this.#store;
    if (!store?.loadSeenSeals) return [];
    return store.loadSeenSeals(await this.#key(lineageId));
  }

  /**
   * The first seal seen that the lineage's state as read now no longer holds (`seenSealContradiction`):
   * its residual id absent, a tree smaller than its seq, or another record at its seq (each seal
   * below the tree's size is proven in `latest`, one inclusion proof per seal); `null` when every
   * seal seen is still there, or none is remembered.
   *
   * @param latest - the head item's tree as read now (`null`: no head and no records)
   * @param absentResidualId - a residual id the reader is about to answer absent
   * @throws what the log reader throws other than {@link LogVerificationError}
   */
  async contradiction(
    log: Pick<LogReader, 'proveIn'>,
    lineageId: string,
    latest: LatestCheckpoint | null,
    absentResidualId?: string,
  ): Promise<{ readonly seen: SeenSeal; readonly reason: string } | null> {
    const store = this.#store;
    if (!store?.loadSeenSeals) return null;
    const entries = await store.loadSeenSeals(await this.#key(lineageId));
    if (entries.length === 0) return null;
    const treeSize = latest?.checkpoint.size ?? 0;
    const recordHashes = new Map<number, string>();
    for (const seen of entries) {
      if (latest === null || seen.seq >= treeSize || recordHashes.has(seen.seq)) continue;
      try {
        recordHashes.set(seen.seq, (await log.proveIn(lineageId, seen.seq, latest)).record.recordHash);
      } catch (error) {
        if (!(error instanceof LogVerificationError)) throw error;
        recordHashes.set(seen.seq, '(a record that does not verify)');
      }
    }
    return seenSealContradiction(entries, {
      treeSize,
      recordHashes,
      ...(absentResidualId === undefined ? {} : { absentResidualId }),
    });
  }

  /**
   * The first of `seals` a whole-lineage walk no longer holds, held against what the walk itself
   * read and nothing read again (docs/verifiable-log.md, "Verifying a whole lineage": the head item
   * is read once): the lineage's tree is the head item's as the walk read it (`headSize`; `null`:
   * no head item, then the records walked), no larger than the records walked (`walkedSize`), and
   * a seal below it must be the walked record at its seq (`recordHashes`, hex; a seq the walk read
   * no record at holds none of it).
   */
  contradictionInWalk(
    seals: readonly SeenSeal[],
    walked: {
      readonly headSize: number | null;
      readonly walkedSize: number;
      readonly recordHashes: ReadonlyMap<number, string>;
    },
  ): { readonly seen: SeenSeal; readonly reason: string } | null {
    if (seals.length === 0) return null;
    const treeSize = walked.headSize === null ? walked.walkedSize : Math.min(walked.headSize, walked.walkedSize);
    const recordHashes = new Map<number, string>();
    for (const seen of seals) {
      if (seen.seq < treeSize)
        recordHashes.set(seen.seq, walked.recordHashes.get(seen.seq) ?? '(no record the walk read)');
    }
    return seenSealContradiction(seals, { treeSize, recordHashes });
  }

  async #key(lineageId: string): Promise<string> {
    return checkpointOrigin(await this.#logName(), lineageId);
  }
}
