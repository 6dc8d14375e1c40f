import { z } from 'zod';
import { HexDigest } from './hex-digest';
import { NonNegativeInt } from './non-negative-int';

/**
 * A reference to one record of a lineage: its sequence number and record hash (strict). The one
 * definition of the `{ seq, recordHash }` shape: what a re-seal supersedes, a trusted checkpoint
 * of a chain, the record a recall proof names.
 */
export const RecordRefSchema = z.strictObject({
  /** Sequence number of the record. */
  seq: NonNegativeInt,
  /** Its record hash. */
  recordHash: HexDigest,
});
/** Type of {@link RecordRefSchema}. */
export type RecordRef = z.infer<typeof RecordRefSchema>;
