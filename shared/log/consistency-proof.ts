import { InvalidInputError } from '../errors';
import type { NodeRef, NodeSource } from './node-ref';
import { requireCount } from './require-count';
import { resolveProofNodes } from './resolve-proof-nodes';
import { splitPoint } from './split-point';
import { subtreeRefs } from './subtree-refs';

/**
 * For each element of the RFC 9162 §2.1.4.1 consistency proof `PROOF(size1, D[size2])`, in proof
 * order, the NodeRefs whose `rangeRoot` is that element. Empty when size1 is 0 or equals size2
 * (nothing to prove; see `verifyConsistency`).
 *
 * @throws {InvalidInputError} unless 0 ≤ size1 ≤ size2 ≤ 2^53 − 1
 */
export function consistencyProofRefs(size1: number, size2: number): NodeRef[][] {
  requireCount('consistency proof request', 'size1', size1);
  requireCount('consistency proof request', 'size2', size2);
  if (size1 > size2) {
    throw new InvalidInputError('consistency proof request', [
      { path: 'size1', message: `size1 ${size1} is larger than size2 ${size2}` },
    ]);
  }
  if (size1 === 0 || size1 === size2) return [];
  const topDown: NodeRef[][] = [];
  let lo = 0;
  let hi = size2;
  // SUBPROOF's flag b: the old root is a node of the new tree only while the walk stays left.
  let oldRootIsNode = true;
  while (size1 !== hi) {
    const k = splitPoint(hi - lo);
    if (size1 <= lo + k) {
      topDown.push(subtreeRefs(lo + k, hi));
      hi = lo + k;
    } else {
      topDown.push(subtreeRefs(lo, lo + k));
      lo += k;
      oldRootIsNode = false;
    }
  }
  if (!oldRootIsNode) topDown.push(subtreeRefs(lo, hi));
  return topDown.reverse();
}

/**
 * The RFC 9162 §2.1.4.1 consistency proof between sizes size1 ≤ size2, from stored nodes: one
 * `nodes` call (none when the proof is empty).
 *
 * @throws {InvalidInputError} for invalid arguments or a malformed `nodes` answer; rejects with
 *   whatever `nodes` rejects with
 */
export async function proveConsistency(size1: number, size2: number, nodes: NodeSource): Promise<Uint8Array[]> {
  return resolveProofNodes(consistencyProofRefs(size1, size2), nodes);
}
