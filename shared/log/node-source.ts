import type { HexDigest } from '../canonical/digest';
import { MerkleNodeMissingError } from '../errors';
import type { NodeRef, NodeSource } from './node-ref';

/**
 * A {@link NodeSource} over a store read that returns each node's hex hash or `null`.
 * @throws {MerkleNodeMissingError} (as a rejection) for the first node the store lacks
 */
export function nodeSourceOf(read: (refs: readonly NodeRef[]) => Promise<readonly (HexDigest | null)[]>): NodeSource {
  return async (refs) => {
    const hashes = await read(refs);
    return refs.map((ref, i) => {
      const hex = hashes[i];
      if (typeof hex !== 'string' || !/^[0-9a-f]{64}$/.test(hex))
        throw new MerkleNodeMissingError(ref.level, ref.index);
      return Buffer.from(hex, 'hex');
    });
  };
}
