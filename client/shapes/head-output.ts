import { z } from 'zod';
import { HexDigest } from '../../shared/schemas/hex-digest';
import { NonNegativeInt } from '../../shared/schemas/non-negative-int';

/** A `{ seq, recordHash }` head: the record a re-seal supersedes, or the head a tail was checked against. */
export const HeadOutput = z.object({ seq: NonNegativeInt, recordHash: HexDigest });
/** Type of {@link HeadOutput}. */
export type HeadOutput = z.infer<typeof HeadOutput>;
