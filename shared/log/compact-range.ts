import { InvalidInputError } from '../errors';
import { ceilPowerOfTwo } from './ceil-power-of-two';
import { emptyRoot } from './empty-root';
import { half } from './half';
import { isOdd } from './is-odd';
import { HASH_BYTES, isMerkleHash, nodeHash } from './merkle-hash';
import type { NodeRef, TreeNode } from './node-ref';
import { popCount } from './pop-count';
import { requireCount } from './require-count';
import { requireHashes } from './require-hashes';

/**
 * Compact ranges of the RFC 9162 §2.1 tree: a leaf range [start, end) as the few perfect
 * subtrees whose hashes determine its MTH (RFC 9162 §2.1.1), and the frontier (the compact range
 * of [0, size)) that grows one leaf at a time. Builders throw {@link InvalidInputError} on
 * invalid arguments.
 */

/**
 * Decomposition of the leaf range [start, end) as it occurs in MTH (start aligned) into maximal
 * aligned perfect subtrees, left to right: one per one-bit of `end - start`, largest first. The
 * MTH of the range is then {@link rangeRoot} of their hashes, so proofs can be answered from
 * stored perfect subtrees alone.
 *
 * @returns `[]` for an empty range
 * @throws {InvalidInputError} unless 0 ≤ start ≤ end ≤ 2^53 − 1 and `start` is a multiple of the
 *   smallest power of two ≥ `end - start` (the ranges MTH recursion produces)
 */
export function subtreeRefs(start: number, end: number): NodeRef[] {
  requireCount('Merkle range', 'start', start);
  requireCount('Merkle range', 'end', end);
  if (start > end)
    throw new InvalidInputError('Merkle range', [{ path: 'end', message: `end ${end} < start ${start}` }]);
  const size = end - start;
  if (size === 0) return [];
  const align = ceilPowerOfTwo(size);
  if (start % align !== 0) {
    throw new InvalidInputError('Merkle range', [
      { path: 'start', message: `start ${start} of a range of ${size} leaves is not a multiple of ${align}` },
    ]);
  }
  let level = 0;
  let width = 1;
  while (width * 2 <= size) {
    width *= 2;
    level += 1;
  }
  const refs: NodeRef[] = [];
  let position = start;
  for (let remaining = size; remaining > 0; width /= 2, level -= 1) {
    if (width <= remaining) {
      refs.push({ level, index: position / width });
      position += width;
      remaining -= width;
    }
  }
  return refs;
}

/**
 * MTH of a range from the hashes of its {@link subtreeRefs}, left to right: folded from the right,
 * `H(h0, H(h1, … H(h_{n-2}, h_{n-1})))`, which is how RFC 9162 §2.1.1 splits an unbalanced range.
 *
 * @returns `EMPTY_ROOT` (a copy) for `[]`
 * @throws {InvalidInputError} when an element is not 32 bytes
 */
export function rangeRoot(hashes: readonly Uint8Array[]): Uint8Array {
  requireHashes('Merkle range hashes', hashes);
  const last = hashes.at(-1);
  if (last === undefined) return emptyRoot();
  let root = last;
  for (let i = hashes.length - 2; i >= 0; i -= 1) root = nodeHash(hashes[i] as Uint8Array, root);
  return root === last ? last.slice() : root;
}

/** Result of {@link appendLeaf}. */
export interface AppendResult {
  /** Frontier of the tree with one more leaf. */
  frontier: Uint8Array[];
  /** Nodes that became complete: the leaf (level 0, index = old size), then each merged parent upward. */
  completed: TreeNode[];
}

/**
 * Appends one leaf hash to a tree given by its compact range ("frontier"): the hashes of
 * `subtreeRefs(0, size)`, left to right, one per one-bit of `size`. Returns the new frontier and
 * every node that became complete, so a store can persist them: O(log n) per append, amortized 2
 * nodes. The nodes ever completed are exactly the perfect subtrees that proofs need, so a store
 * that persists them can answer every `proveInclusion` and `proveConsistency`.
 *
 * @throws {InvalidInputError} when `size` is not a safe integer below 2^53 − 1, the frontier does
 *   not have one 32-byte hash per one-bit of `size`, or `leafHash` is not 32 bytes
 */
export function appendLeaf(frontier: readonly Uint8Array[], size: number, leafHash: Uint8Array): AppendResult {
  requireCount('Merkle append', 'size', size);
  if (size >= Number.MAX_SAFE_INTEGER) {
    throw new InvalidInputError('Merkle append', [{ path: 'size', message: 'the tree holds 2^53 − 1 leaves already' }]);
  }
  if (!isMerkleHash(leafHash)) {
    throw new InvalidInputError('Merkle append', [{ path: 'leafHash', message: `expected ${HASH_BYTES} bytes` }]);
  }
  requireHashes('Merkle frontier', frontier);
  if (frontier.length !== popCount(size)) {
    throw new InvalidInputError('Merkle frontier', [
      { path: '', message: `a tree of ${size} leaves has ${popCount(size)} frontier hashes, got ${frontier.length}` },
    ]);
  }
  const next = frontier.slice();
  let hash: Uint8Array = Uint8Array.from(leafHash);
  let level = 0;
  let index = size;
  const completed: TreeNode[] = [{ level, index, hash }];
  for (let rest = size; isOdd(rest); rest = half(rest)) {
    hash = nodeHash(next.pop() as Uint8Array, hash);
    level += 1;
    index = half(index);
    completed.push({ level, index, hash });
  }
  next.push(hash);
  return { frontier: next, completed };
}

/** Root of the tree whose frontier this is, `rangeRoot(frontier)`: `EMPTY_ROOT` (a copy) for `[]`. */
export function frontierRoot(frontier: readonly Uint8Array[]): Uint8Array {
  return rangeRoot(frontier);
}
