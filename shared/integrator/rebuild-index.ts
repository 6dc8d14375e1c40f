import { IndexNodeMissingError } from '../errors';
import { applyIndexUpdates } from '../index/apply-index-updates';
import type { IndexEntry, LineageIndexValue } from '../index/index-entry';
import { emptyIndexHash, isEmptyIndexHash } from '../index/index-hash';
import { IndexNodeReader } from '../index/index-node-reader';
import type { IndexUpdate } from '../index/index-update';
import { MemoryIndexNodeStore } from '../index/memory-index-node-store';
import { proveIndexKey } from '../index/prove-index-key';
import { MemoryMerkleTree } from '../log/memory-tree';
import type { IndexNodeStore } from '../ports/index-node-store';

/** One record of an authenticated lineage, as the rebuild needs it (seq = its position). */
export interface RebuildRecord {
  readonly residualId: string;
  /** The record hash recomputed from its header, 64 lowercase hex. */
  readonly recordHash: string;
  /** The header's generation epoch. */
  readonly generationEpoch: number;
  /** The header's `policyDigest`, or `null` for a format-1 record. */
  readonly policyDigest: string | null;
}

/**
 * A lineage as the rebuild reads it: every record from seq 0 to its authenticated head, each
 * checked against its header, whose RFC 9162 root the caller checked against the head's signed
 * root (docs/deployment-log.md, "Index rebuild").
 */
export interface RebuildLineage {
  readonly lineageId: string;
  readonly records: readonly RebuildRecord[];
}

/** What {@link rebuildIndex} did. */
export type IndexRebuildResult =
  /** Nothing is missing under the committed root: nothing written. */
  | { readonly kind: 'INTACT' }
  /** The entries re-derived hash to the committed root; the tiles the store lacked were written. */
  | {
      readonly kind: 'REBUILT';
      /** Tiles written: those the store lacked or held in another form (docs/verifiable-index.md, "Tiles"). */
      readonly tilesWritten: number;
      /** The size of each lineage's entry in the committed index (0: not in it). */
      readonly sizes: ReadonlyMap<string, number>;
    }
  /** No re-derivation hashes to the committed root (or too many were possible): nothing written. */
  | { readonly kind: 'MISMATCH'; readonly reason: string; readonly rebuiltRoot: Uint8Array | null };

/** Re-derivations tried at most before the rebuild gives up (a product over the lineages whose indexed size is unknown). */
export const MAX_REBUILD_TRIES = 256;

/**
 * Re-derives the verifiable index under `committedRoot` from the lineages themselves and restores
 * the nodes the store lost (docs/deployment-log.md, "Index rebuild"). The index holds, for each
 * lineage, its head at some size `T` and every residual id at its first sealing below `T`; `T`
 * is read from the index where the lineage's path is intact, and otherwise bounded by the residual
 * ids that are (an id present at its first sealing `k` means `T > k`, absent means `T ≤ k`). Each
 * candidate set of sizes is folded into an empty index; only a set whose root is `committedRoot`
 * is kept, and only the tiles of that index (in the store's `tileLevels`) the store does not hold
 * byte for byte are written, in one `putTiles` call: a node stored in another form (one node per
 * item, as before tiles) is written again as tiles. Every tile written hashes to its address and
 * hangs under the committed root.
 *
 * @param lineages - every lineage the index may hold (an omitted one makes the root differ)
 * @throws what the store throws
 */
export async function rebuildIndex(
  store: IndexNodeStore,
  committedRoot: Uint8Array,
  lineages: readonly RebuildLineage[],
  maxTries = MAX_REBUILD_TRIES,
): Promise<IndexRebuildResult> {
  const choices: { lineage: RebuildLineage; sizes: number[] }[] = [];
  let missing = false;
  for (const lineage of lineages) {
    const read = await indexedSizes(store, committedRoot, lineage);
    missing ||= read.missing;
    choices.push({ lineage, sizes: read.sizes });
  }
  if (!missing && (await isIntact(store, committedRoot))) return { kind: 'INTACT' };
  const tries = choices.reduce((n, c) => n * c.sizes.length, 1);
  if (tries === 0) {
    return { kind: 'MISMATCH', reason: 'a lineage has no size consistent with the index', rebuiltRoot: null };
  }
  if (tries > maxTries) {
    return {
      kind: 'MISMATCH',
      reason: `${tries} combinations of lineage sizes fit what the index still shows; at most ${maxTries} are tried`,
      rebuiltRoot: null,
    };
  }
  let firstRoot: Uint8Array | null = null;
  for (let n = 0; n < tries; n += 1) {
    let rest = n;
    const sizes = new Map<string, number>();
    for (const { lineage, sizes: options } of choices) {
      sizes.set(lineage.lineageId, options[rest % options.length] as number);
      rest = Math.floor(rest / options.length);
    }
    const rebuilt = new MemoryIndexNodeStore({ tileLevels: store.tileLevels });
    const updates = choices.flatMap(({ lineage }) => entriesAt(lineage, sizes.get(lineage.lineageId) ?? 0));
    const { root } = await applyIndexUpdates(rebuilt, emptyIndexHash(), updates);
    firstRoot ??= root;
    if (Buffer.compare(root, committedRoot) !== 0) continue;
    const tiles = [...rebuilt.entries()];
    const held = await store.getTiles(tiles.map((t) => t.root));
    const lacking = tiles.filter(({ tile }, i) => {
      const stored = held[i];
      return stored === undefined || Buffer.compare(stored, tile) !== 0;
    });
    if (lacking.length > 0) await store.putTiles(lacking);
    return { kind: 'REBUILT', tilesWritten: lacking.length, sizes };
  }
  return {
    kind: 'MISMATCH',
    reason:
      tries === 1
        ? 'the lineages as the table holds them do not hash to the committed index root'
        : `none of ${tries} combinations of lineage sizes hashes to the committed index root`,
    rebuiltRoot: firstRoot,
  };
}

/** The index entries of `lineage` at size `size` (none at 0): its head, and each residual id at its first sealing. */
function entriesAt(lineage: RebuildLineage, size: number): IndexUpdate[] {
  if (size === 0) return [];
  const tree = new MemoryMerkleTree();
  const updates: IndexUpdate[] = [];
  const seen = new Set<string>();
  for (const [seq, record] of lineage.records.slice(0, size).entries()) {
    tree.append(Buffer.from(record.recordHash, 'hex'));
    if (seen.has(record.residualId)) continue;
    seen.add(record.residualId);
    updates.push({
      kind: 'residual',
      lineageId: lineage.lineageId,
      residualId: record.residualId,
      value: { seq, recordHash: record.recordHash },
    });
  }
  const head = lineage.records[size - 1] as RebuildRecord;
  const value: LineageIndexValue = {
    treeSize: size,
    rootHash: Buffer.from(tree.root(size)).toString('hex'),
    headRecordHash: head.recordHash,
    generationEpoch: head.generationEpoch,
    writerPolicyDigest: head.policyDigest,
  };
  return [{ kind: 'lineage', lineageId: lineage.lineageId, value, consistentFrom: null }, ...updates];
}

/**
 * The sizes the lineage's entry may have under `root`: the one the index shows where its path is
 * intact, else those between the residual ids the index still shows.
 */
async function indexedSizes(
  store: IndexNodeStore,
  root: Uint8Array,
  lineage: RebuildLineage,
): Promise<{ sizes: number[]; missing: boolean }> {
  const { lineageId, records } = lineage;
  const read = async (key: Parameters<typeof proveIndexKey>[2]): Promise<IndexEntry | null | 'MISSING'> => {
    try {
      const proven = await proveIndexKey(store, root, key);
      return proven.kind === 'presence' ? proven.entry : null;
    } catch (error) {
      if (error instanceof IndexNodeMissingError) return 'MISSING';
      throw error;
    }
  };
  const entry = await read({ kind: 'lineage', lineageId });
  if (entry === null) return { sizes: [0], missing: false };
  if (entry !== 'MISSING') {
    const size = (entry.value as LineageIndexValue).treeSize;
    return { sizes: size <= records.length ? [size] : [], missing: false };
  }
  let low = 0;
  let high = records.length;
  const seen = new Set<string>();
  for (const [seq, record] of records.entries()) {
    if (seen.has(record.residualId)) continue;
    seen.add(record.residualId);
    const residual = await read({ kind: 'residual', lineageId, residualId: record.residualId });
    if (residual === 'MISSING') continue;
    if (residual === null) high = Math.min(high, seq);
    else low = Math.max(low, seq + 1);
  }
  const sizes: number[] = [];
  for (let size = Math.max(low, 1); size <= high; size += 1) sizes.push(size);
  if (low === 0) sizes.unshift(0);
  return { sizes, missing: true };
}

/** Whether every node under `root` is stored and hashes to its address (a walk of the whole index). */
async function isIntact(store: IndexNodeStore, root: Uint8Array): Promise<boolean> {
  const reader = new IndexNodeReader(store);
  let level = isEmptyIndexHash(root) ? [] : [root];
  try {
    while (level.length > 0) {
      const next: Uint8Array[] = [];
      for (const hash of level) {
        const node = await reader.read(hash);
        if (node.kind === 'interior') {
          for (const child of [node.left, node.right]) if (!isEmptyIndexHash(child)) next.push(child);
        }
      }
      level = next;
    }
    return true;
  } catch (error) {
    if (error instanceof IndexNodeMissingError) return false;
    throw error;
  }
}
