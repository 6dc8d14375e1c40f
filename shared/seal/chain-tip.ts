import { z } from 'zod';
import { EpochMillis } from '../schemas/epoch-millis';
import { HexDigest } from '../schemas/hex-digest';
import { Identifier } from '../schemas/identifier';
import { NonNegativeInt } from '../schemas/non-negative-int';

/**
 * The end of a chain: what the next record links to (`parentRecordHash`) and is fenced by
 * (`generationEpoch`). A {@link LineageHead} is one, with its MAC fields besides; the sealer
 * extends only a tip it has authenticated (docs/verifiable-log.md, "Appending").
 *
 * `{ lineageId; seq; recordHash; generationEpoch; policyDigest?; sealedAtMs? }`; extra fields are ignored.
 */
export const ChainTipSchema = z.object({
  lineageId: Identifier,
  /** Seq of the last record. */
  seq: NonNegativeInt,
  /** Its record hash. */
  recordHash: HexDigest,
  /** Its generation epoch: the next record's lower bound. */
  generationEpoch: NonNegativeInt,
  /**
   * The lineage write policy in force at the tip (`policyDigest` of its format-2 header), `null`
   * or absent for a format-1 tip (docs/authorship.md). Format-2 records sealed on the tip name it
   * unless they set a policy of their own.
   */
  policyDigest: HexDigest.nullable().optional(),
  /**
   * The tip record's `sealedAtMs` (ms since the Unix epoch), when the caller read it from the
   * authenticated header: the next record is sealed no earlier (docs/sealing.md, "Sealing"), so
   * seal times never fall along a chain, whatever the sealer's clock.
   */
  sealedAtMs: EpochMillis.optional(),
});
/** Type of {@link ChainTipSchema}. */
export type ChainTip = z.infer<typeof ChainTipSchema>;
