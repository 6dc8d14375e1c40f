import { hashesEqual, isEmptyRoot, isMerkleHash, nodeHash } from './merkle-hashing';
import { ceilPowerOfTwo, half, isCount, isOdd } from './tree-arithmetic';

/**
 * Verification of RFC 9162 proofs: inclusion (§2.1.3.2) and consistency (§2.1.4.2). Verifiers
 * never throw and answer `false` instead, also for sizes that are not safe non-negative integers
 * and hashes that are not 32 bytes.
 */

/** Arguments of {@link verifyInclusion}. */
export interface InclusionCheck {
  readonly leafIndex: number;
  readonly treeSize: number;
  /** The leaf's `leafHash`, not the leaf itself. */
  readonly leafHash: Uint8Array;
  readonly proof: readonly Uint8Array[];
  readonly rootHash: Uint8Array;
}

/** Arguments of {@link verifyConsistency}. */
export interface ConsistencyCheck {
  readonly size1: number;
  readonly size2: number;
  readonly root1: Uint8Array;
  readonly root2: Uint8Array;
  readonly proof: readonly Uint8Array[];
}

/** The roots {@link climb} reached: `root` from every path element, `leftRoot` from the left ones only. */
interface ClimbResult {
  readonly root: Uint8Array;
  readonly leftRoot: Uint8Array;
}

/**
 * The loop both RFC 9162 verifiers share (§2.1.3.2 for inclusion, §2.1.4.2 for consistency):
 * from `seed` at node `firstNode` of a level whose last node is `lastNode`, hash in each `path`
 * element as a left sibling (when the node is odd or the last one, then skipping the levels where
 * it is a left child) or as a right sibling. `leftRoot` takes only the left siblings (the old root
 * of a consistency proof); it is hashed only when `withLeftRoot`, else it stays `seed`.
 *
 * @returns `null` when the path is too long (the last node reaches 0 early) or too short
 *   (it is not 0 after)
 */
function climb(
  firstNode: number,
  lastNode: number,
  seed: Uint8Array,
  path: readonly Uint8Array[],
  withLeftRoot: boolean,
): ClimbResult | null {
  let fn = firstNode;
  let sn = lastNode;
  let root = seed;
  let leftRoot = seed;
  for (const p of path) {
    if (sn === 0) return null;
    if (isOdd(fn) || fn === sn) {
      root = nodeHash(p, root);
      if (withLeftRoot) leftRoot = nodeHash(p, leftRoot);
      while (!isOdd(fn) && fn !== 0) {
        fn = half(fn);
        sn = half(sn);
      }
    } else {
      root = nodeHash(root, p);
    }
    fn = half(fn);
    sn = half(sn);
  }
  return sn === 0 ? { root, leftRoot } : null;
}

/**
 * Whether `proof` proves that `leafHash` is leaf `leafIndex` of the tree of `treeSize` leaves
 * with root `rootHash`: the algorithm of RFC 9162 §2.1.3.2, which also refuses proofs that are
 * too long or too short for the position.
 *
 * Never throws on bad proofs: false, also for an index not below the size, a size or index that
 * is not a safe non-negative integer, or a hash that is not 32 bytes.
 */
export function verifyInclusion(args: InclusionCheck): boolean {
  if (typeof args !== 'object' || args === null) return false;
  const { leafIndex, treeSize, leafHash: hash, proof, rootHash } = args;
  if (!isCount(leafIndex) || !isCount(treeSize) || leafIndex >= treeSize) return false;
  if (!isMerkleHash(hash) || !isMerkleHash(rootHash) || !Array.isArray(proof) || !proof.every(isMerkleHash)) {
    return false;
  }
  const reached = climb(leafIndex, treeSize - 1, hash, proof, false);
  return reached !== null && hashesEqual(reached.root, rootHash);
}

/**
 * Whether `proof` proves that the tree of `size1` leaves with root `root1` is a prefix of the tree
 * of `size2` leaves with root `root2`: RFC 9162 §2.1.4.2 for 0 < size1 < size2 (a non-empty
 * proof). The cases the RFC leaves out:
 * - size1 === size2: only the empty proof, and root1 must equal root2;
 * - size1 === 0: only the empty proof, and root1 must be `EMPTY_ROOT` (the one root a tree
 *   of no leaves has); every tree extends the empty one.
 *
 * Never throws on bad proofs: false, also for size1 > size2, sizes that are not safe
 * non-negative integers, or hashes that are not 32 bytes.
 */
export function verifyConsistency(args: ConsistencyCheck): boolean {
  if (typeof args !== 'object' || args === null) return false;
  const { size1, size2, root1, root2, proof } = args;
  if (!isCount(size1) || !isCount(size2) || size1 > size2) return false;
  if (!isMerkleHash(root1) || !isMerkleHash(root2) || !Array.isArray(proof) || !proof.every(isMerkleHash)) {
    return false;
  }
  if (size1 === 0) return proof.length === 0 && isEmptyRoot(root1) && (size2 > 0 || isEmptyRoot(root2));
  if (size1 === size2) return proof.length === 0 && hashesEqual(root1, root2);
  if (proof.length === 0) return false;
  const path = ceilPowerOfTwo(size1) === size1 ? [root1, ...proof] : proof;
  let fn = size1 - 1;
  let sn = size2 - 1;
  while (isOdd(fn)) {
    fn = half(fn);
    sn = half(sn);
  }
  const reached = climb(fn, sn, path[0] as Uint8Array, path.slice(1), true);
  return reached !== null && hashesEqual(reached.leftRoot, root1) && hashesEqual(reached.root, root2);
}
