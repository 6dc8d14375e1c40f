import { ceilPowerOfTwo } from './ceil-power-of-two';
import { climbProofPath } from './climb-proof-path';
import { isEmptyRoot } from './empty-root';
import { half } from './half';
import { hashesEqual } from './hashes-equal';
import { isCount } from './is-count';
import { isOdd } from './is-odd';
import { isMerkleHash } from './merkle-hash';

/** Arguments of {@link verifyConsistency}. */
export interface ConsistencyCheck {
  readonly size1: number;
  readonly size2: number;
  readonly root1: Uint8Array;
  readonly root2: Uint8Array;
  readonly proof: readonly Uint8Array[];
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
  const reached = climbProofPath(fn, sn, path[0] as Uint8Array, path.slice(1), true);
  return reached !== null && hashesEqual(reached.leftRoot, root1) && hashesEqual(reached.root, root2);
}
