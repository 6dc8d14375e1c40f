import { climbProofPath } from './climb-proof-path';
import { hashesEqual } from './hashes-equal';
import { isCount } from './is-count';
import { isMerkleHash } from './merkle-hash';

/** Arguments of {@link verifyInclusion}. */
export interface InclusionCheck {
  readonly leafIndex: number;
  readonly treeSize: number;
  /** The leaf's `leafHash`, not the leaf itself. */
  readonly leafHash: Uint8Array;
  readonly proof: readonly Uint8Array[];
  readonly rootHash: Uint8Array;
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
  const reached = climbProofPath(leafIndex, treeSize - 1, hash, proof, false);
  return reached !== null && hashesEqual(reached.root, rootHash);
}
