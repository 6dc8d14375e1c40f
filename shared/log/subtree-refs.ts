import { InvalidInputError } from '../errors';
import { ceilPowerOfTwo } from './ceil-power-of-two';
import type { NodeRef } from './node-ref';
import { requireCount } from './require-count';

/**
 * Compact ranges of the RFC 9162 §2.1 tree: a leaf range [start, end) as the few perfect
 * subtrees whose hashes determine its MTH (RFC 9162 §2.1.1). Throws {@link InvalidInputError} on
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
