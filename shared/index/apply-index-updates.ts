import { InvalidInputError } from '../errors';
import type { IndexNode, IndexNodeStore } from '../ports/index-node-store';
import { hashKey } from './hash-key';
import { entryDigest } from './index-entry';
import { emptyIndexHash, INDEX_HASH_BYTES, indexLeafHash, indexNodeHash, isEmptyIndexHash } from './index-hash';
import { indexKeyPath, keyPathBit } from './index-key';
import { IndexNodeReader } from './index-node-reader';
import { admitUpdate, type IndexUpdate, type IndexUpdateFinding, updateEntry } from './index-update';
import { tileIndexNodes } from './tile-index-nodes';

/** What {@link applyIndexUpdates} did. */
export interface IndexUpdateResult {
  /** The new index root (the old one when nothing changed), 32 bytes. */
  readonly root: Uint8Array;
  /** The refused updates, in the order they were given; every other update was applied. */
  readonly findings: readonly IndexUpdateFinding[];
  /** Keys whose entry was added or changed. */
  readonly changedKeys: number;
  /** New nodes made: a leaf per changed key and the interior nodes above (none when nothing changed). */
  readonly nodesWritten: number;
  /** Tiles written, in one `putTiles` call (none when nothing changed; docs/verifiable-index.md, "Tiles"). */
  readonly tilesWritten: number;
}

/** One leaf to place: its key path, hash, and node; `held` for a leaf the index holds already (moved, not new). */
interface Placed {
  readonly path: Uint8Array;
  /** The path as a latin1 string: sorts as the bytes do, faster than comparing buffers. */
  readonly order: string;
  readonly hash: Uint8Array;
  readonly node: IndexNode;
  readonly held: boolean;
}

/** An update with what it hashes to, sorted by key path. */
interface Pending {
  readonly index: number;
  readonly order: string;
  readonly update: IndexUpdate;
  readonly path: Uint8Array;
}

const same = (a: Uint8Array, b: Uint8Array) => Buffer.compare(a, b) === 0;

/**
 * Folds a batch of updates into the index at once (docs/verifiable-index.md, "Updates"): one new
 * root for every lineage and residual id of an integration. Walks down from `root` only into the
 * subtrees an update lands in, checks each update against the entry the index holds
 * ({@link admitUpdate}: a refused update becomes a finding and is left out, the rest apply), and
 * writes only the nodes that changed: a new leaf per changed key and a new interior node per
 * changed position above it, in tiles of the store's `tileLevels` (docs/verifiable-index.md,
 * "Tiles"), in one `putTiles` call. Every node read is checked against its hash.
 *
 * @param root - the current root (`emptyIndexHash()` for an empty index), 32 bytes
 * @param updates - at most one per key, typed (validate outside input with `parseIndexUpdates`)
 * @throws {InvalidInputError} when two updates name one key, or the root is not 32 bytes
 * @throws {IndexNodeMissingError} when a node on the way is missing or edited
 * @throws what the store throws
 */
export async function applyIndexUpdates(
  store: IndexNodeStore,
  root: Uint8Array,
  updates: readonly IndexUpdate[],
): Promise<IndexUpdateResult> {
  if (!(root instanceof Uint8Array) || root.byteLength !== INDEX_HASH_BYTES) {
    throw new InvalidInputError('index root', [{ path: '', message: 'expected 32 bytes' }]);
  }
  const pending: Pending[] = updates.map((update, index) => {
    const path = indexKeyPath(updateEntry(update));
    return { index, update, path, order: latin1(path) };
  });
  pending.sort(byOrder);
  for (let i = 1; i < pending.length; i += 1) {
    const [a, b] = [pending[i - 1] as Pending, pending[i] as Pending];
    if (a.order === b.order) {
      const [first, second] = [Math.min(a.index, b.index), Math.max(a.index, b.index)];
      throw new InvalidInputError('index updates', [
        {
          path: `${second}`,
          message: `updates ${first} and ${second} name the same key; one update per key per batch`,
        },
      ]);
    }
  }
  const reader = new IndexNodeReader(store);
  /** New nodes, and held leaves moved further down: what the tiles must spell out. */
  const fresh = new Map<string, IndexNode>();
  let nodesWritten = 0;
  const findings: { index: number; finding: IndexUpdateFinding }[] = [];
  let changedKeys = 0;

  const write = (hash: Uint8Array, node: IndexNode): Uint8Array => {
    nodesWritten += 1;
    fresh.set(hashKey(hash), node);
    return hash;
  };

  /** A new leaf for an admitted update. */
  const placed = (item: Pending): Placed => {
    changedKeys += 1;
    const entry = updateEntry(item.update);
    const hash = indexLeafHash(item.path, entryDigest(entry));
    return { path: item.path, order: item.order, hash, node: { kind: 'leaf', entry }, held: false };
  };

  /** The subtree at `depth` holding exactly `leaves[from, to)` (sorted by path, sharing the first `depth` bits). */
  const build = (leaves: readonly Placed[], depth: number, from = 0, to = leaves.length): Uint8Array => {
    if (to === from) return emptyIndexHash();
    if (to - from === 1) {
      const leaf = leaves[from] as Placed;
      if (!leaf.held) return write(leaf.hash, leaf.node);
      fresh.set(hashKey(leaf.hash), leaf.node);
      return leaf.hash;
    }
    const mid = split(leaves, depth, from, to);
    const left = build(leaves, depth + 1, from, mid);
    const right = build(leaves, depth + 1, mid, to);
    return write(indexNodeHash(left, right), { kind: 'interior', left, right });
  };

  const admitted = (item: Pending, held: Parameters<typeof admitUpdate>[0]): Placed | null => {
    const verdict = admitUpdate(held, item.update);
    if (verdict === 'UNCHANGED') return null;
    if (verdict === 'APPLY') return placed(item);
    findings.push({ index: item.index, finding: verdict });
    return null;
  };

  /** The new hash of the subtree at `depth` whose hash is `hash`, with `items` (sorted, on its path) applied. */
  const fold = async (hash: Uint8Array, depth: number, items: readonly Pending[]): Promise<Uint8Array> => {
    if (items.length === 0) return hash;
    if (isEmptyIndexHash(hash)) {
      return build(
        items.map((item) => admitted(item, null)).filter((p): p is Placed => p !== null),
        depth,
      );
    }
    const node = await reader.read(hash);
    if (node.kind === 'interior') {
      const mid = split(items, depth, 0, items.length);
      const [left, right] = await Promise.all([
        fold(node.left, depth + 1, items.slice(0, mid)),
        fold(node.right, depth + 1, items.slice(mid)),
      ]);
      if (same(left, node.left) && same(right, node.right)) return hash;
      return write(indexNodeHash(left, right), { kind: 'interior', left, right });
    }
    // A leaf shortcut: the held leaf and the new ones share this subtree from here down.
    const held: Placed = {
      path: node.keyPath,
      order: latin1(node.keyPath),
      hash,
      node: { kind: 'leaf', entry: node.entry },
      held: true,
    };
    const leaves: Placed[] = [];
    let keepHeld = true;
    for (const item of items) {
      if (same(item.path, node.keyPath)) {
        const next = admitted(item, node.entry);
        if (next !== null) {
          leaves.push(next);
          keepHeld = false;
        }
      } else {
        const next = admitted(item, null);
        if (next !== null) leaves.push(next);
      }
    }
    if (keepHeld) leaves.push(held);
    leaves.sort(byOrder);
    return leaves.length === 1 && leaves[0] === held ? hash : build(leaves, depth);
  };

  const newRoot = await fold(Uint8Array.from(root), 0, pending);
  const tiles = nodesWritten > 0 ? tileIndexNodes(newRoot, fresh, reader, store.tileLevels) : [];
  if (tiles.length > 0) await store.putTiles(tiles);
  return {
    root: newRoot,
    findings: findings.sort((a, b) => a.index - b.index).map(({ finding }) => finding),
    changedKeys,
    nodesWritten,
    tilesWritten: tiles.length,
  };
}

/** Bytes as a latin1 string, one character per byte: compares as the bytes do. */
const latin1 = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');

const byOrder = (a: { readonly order: string }, b: { readonly order: string }) =>
  a.order < b.order ? -1 : a.order > b.order ? 1 : 0;

/** The first position in `sorted[from, to)` (by path) whose bit at `depth` is 1. */
function split(sorted: readonly { readonly path: Uint8Array }[], depth: number, from: number, to: number): number {
  let lo = from;
  let hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keyPathBit((sorted[mid] as { path: Uint8Array }).path, depth) === 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
