import { z } from 'zod';
import { HexDigest, Identifier, NonNegativeInt } from '../schemas/primitives';

/**
 * The end of a chain: what the next record links to (`parentRecordHash`) and is fenced by
 * (`generationEpoch`). A {@link LineageHead} is one, with its MAC fields besides; the sealer
 * extends only a tip it has authenticated (docs/verifiable-log.md, "Appending").
 *
 * `{ lineageId; seq; recordHash; generationEpoch }`; extra fields are ignored.
 */
export const ChainTipSchema = z.object({
  lineageId: Identifier,
  /** Seq of the last record. */
  seq: NonNegativeInt,
  /** Its record hash. */
  recordHash: HexDigest,
  /** Its generation epoch: the next record's lower bound. */
  generationEpoch: NonNegativeInt,
});
/** Type of {@link ChainTipSchema}. */
export type ChainTip = z.infer<typeof ChainTipSchema>;
