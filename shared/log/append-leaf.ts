import { InvalidInputError } from '../errors';
import { half } from './half';
import { isOdd } from './is-odd';
import { HASH_BYTES, isMerkleHash, nodeHash } from './merkle-hash';
import type { TreeNode } from './node-ref';
import { popCount } from './pop-count';
import { requireCount } from './require-count';
import { requireHashes } from './require-hashes';

/**
 * The frontier of the RFC 9162 §2.1 tree (the compact range of [0, size)), grown one leaf at a
 * time. Throws {@link InvalidInputError} on invalid arguments.
 */

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
