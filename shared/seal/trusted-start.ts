import { z } from 'zod';
import { HexDigest } from '../schemas/hex-digest';
import { NonNegativeInt } from '../schemas/non-negative-int';

/**
 * A trusted starting point for verifying a suffix of a chain: the records passed begin at
 * `afterSeq + 1`, and the first one must name `afterRecordHash` as its parent. `generationEpoch`,
 * when given, is the epoch of the record at `afterSeq` (the suffix may not go below it).
 * Trust is the caller's: it comes from an earlier full verification or a checkpoint.
 */
export const TrustedStartSchema = z.strictObject({
  afterSeq: NonNegativeInt,
  afterRecordHash: HexDigest,
  generationEpoch: NonNegativeInt.optional(),
});
/** Type of {@link TrustedStartSchema}. */
export type TrustedStart = z.infer<typeof TrustedStartSchema>;
