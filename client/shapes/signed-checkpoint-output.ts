import { z } from 'zod';
import { HexDigest } from '../../shared/schemas/hex-digest';
import { NonNegativeInt } from '../../shared/schemas/non-negative-int';

/**
 * A lineage tree head a record is proven in (docs/verifiable-log.md, "Checkpoints", "Recall"): a
 * signed checkpoint the client verified with the log's public key, with the C2SP signed note itself
 * (`note`, to keep or hand to an auditor), or the tree of a head the sealer MAC'd (`note` `null`),
 * which the deployment index vouches for (the answer's `freshness`).
 */
export const SignedCheckpointOutput = z.object({
  /** The C2SP signed note (tlog-checkpoint body, blank line, signature line), or `null`: a head the sealer MAC'd, vouched for by the index. */
  note: z.string().nullable(),
  /** `reseal/<stackName>/<lineageId>`. */
  origin: z.string(),
  /** Number of records the log holds at this checkpoint. */
  size: NonNegativeInt,
  /** RFC 9162 root hash of those records, lowercase hex. */
  rootHash: HexDigest,
});
/** Type of {@link SignedCheckpointOutput}. */
export type SignedCheckpointOutput = z.infer<typeof SignedCheckpointOutput>;
