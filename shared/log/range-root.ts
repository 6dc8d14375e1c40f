import { emptyRoot } from './empty-root';
import { nodeHash } from './merkle-hash';
import { requireHashes } from './require-hashes';

/**
 * The MTH of a compact range of the RFC 9162 §2.1 tree (RFC 9162 §2.1.1), from the hashes of its
 * perfect subtrees. Throws {@link InvalidInputError} on invalid arguments.
 */

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
