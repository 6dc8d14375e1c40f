import type { HexDigest } from '../canonical/digest';
import { hashCanonical } from '../canonical/hash-canonical';
import { FORMAT_VERSION, HashDomain } from '../canonical/hash-domain';
import { Identifier } from '../schemas/identifier';
import { parseInput } from '../schemas/parse';

/**
 * Parent hash of seq 0 of a lineage: `hashCanonical(HashDomain.GENESIS, { v: 1, lineageId })`.
 * A defined value derived from the lineage id, never `""` (docs/sealing.md, "Byte
 * layouts"), so a record cannot be moved to the start of another lineage.
 *
 * @param lineageId - an {@link Identifier}
 * @returns 64 lowercase hex characters
 * @throws {InvalidInputError} when `lineageId` is not an identifier
 */
export function genesisParentHash(lineageId: string): HexDigest {
  const id = parseInput(Identifier, lineageId, 'lineage id');
  return hashCanonical(HashDomain.GENESIS, { v: FORMAT_VERSION, lineageId: id });
}
