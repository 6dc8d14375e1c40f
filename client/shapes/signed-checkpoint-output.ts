import { z } from 'zod';
import { HexDigest, NonNegativeInt } from '../../shared/schemas/primitives';

/**
 * A signed checkpoint of a lineage's verifiable log (docs/verifiable-log.md, "Checkpoints"), as
 * the client verified it with the log's public key: the C2SP signed note itself (`note`, to
 * keep or hand to an auditor), and what it signs.
 */
export const SignedCheckpointOutput = z.object({
  /** The C2SP signed note (tlog-checkpoint body, blank line, signature line). */
  note: z.string(),
  /** `reseal/<stackName>/<lineageId>`. */
  origin: z.string(),
  /** Number of records the log holds at this checkpoint. */
  size: NonNegativeInt,
  /** RFC 9162 root hash of those records, lowercase hex. */
  rootHash: HexDigest,
});
/** Type of {@link SignedCheckpointOutput}. */
export type SignedCheckpointOutput = z.infer<typeof SignedCheckpointOutput>;
