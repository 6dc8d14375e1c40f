import { z } from 'zod';
import { HexDigest } from '../../shared/schemas/hex-digest';
import { NonNegativeInt } from '../../shared/schemas/non-negative-int';

/** An RFC 9162 inclusion proof of one record (leaf = its seq) in a signed checkpoint, hashes in hex. */
export const InclusionProofOutput = z.object({
  leafIndex: NonNegativeInt,
  treeSize: NonNegativeInt,
  inclusionProof: z.array(HexDigest),
});
