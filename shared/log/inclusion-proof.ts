import { InvalidInputError } from '../errors';
import type { NodeRef, NodeSource } from './node-ref';
import { requireCount } from './require-count';
import { resolveProofNodes } from './resolve-proof-nodes';
import { splitPoint } from './split-point';
import { subtreeRefs } from './subtree-refs';

/**
 * For each element of the RFC 9162 §2.1.3.1 inclusion proof `PATH(index, D[size])`, in proof
 * order (leaf side first), the NodeRefs whose `rangeRoot` is that element. Left siblings
 * are single perfect subtrees; at most one right sibling (on the tree's ragged right edge) needs
 * several, so the total is O(log size).
 *
 * @throws {InvalidInputError} unless 0 ≤ index < size ≤ 2^53 − 1
 */
export function inclusionProofRefs(index: number, size: number): NodeRef[][] {
  requireCount('inclusion proof request', 'index', index);
  requireCount('inclusion proof request', 'size', size);
  if (index >= size) {
    throw new InvalidInputError('inclusion proof request', [
      { path: 'index', message: `leaf index ${index} is not below tree size ${size}` },
    ]);
  }
  const topDown: NodeRef[][] = [];
  let lo = 0;
  let hi = size;
  while (hi - lo > 1) {
    const k = splitPoint(hi - lo);
    if (index < lo + k) {
      topDown.push(subtreeRefs(lo + k, hi));
      hi = lo + k;
    } else {
      topDown.push(subtreeRefs(lo, lo + k));
      lo += k;
    }
  }
  return topDown.reverse();
}

/**
 * The RFC 9162 §2.1.3.1 inclusion proof of leaf `index` in the tree of `size` leaves, from
 * stored nodes: one `nodes` call with every needed ref (none when the proof is empty).
 *
 * @throws {InvalidInputError} for invalid arguments or a malformed `nodes` answer; rejects with
 *   whatever `nodes` rejects with
 */
export async function proveInclusion(index: number, size: number, nodes: NodeSource): Promise<Uint8Array[]> {
  return resolveProofNodes(inclusionProofRefs(index, size), nodes);
}
