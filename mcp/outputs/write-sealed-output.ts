import { z } from 'zod';
import { FreshnessShape } from '../../client/shapes/freshness-shape';
import { HeadOutput } from '../../client/shapes/head-output';
import { InclusionProofOutput } from '../../client/shapes/inclusion-proof-output';
import { SignedCheckpointOutput } from '../../client/shapes/signed-checkpoint-output';
import { HexDigest, Identifier, NonNegativeInt } from '../../shared/schemas/primitives';
import { SnapshotOutput } from './snapshot-output';

/**
 * `reseal_write` sealed the write: its record is proven by `proof` in the signed `checkpoint`
 * (which the server's client keeps in its checkpoint store), and `freshness` says whether the
 * deployment log proves it yet.
 */
export const WriteSealedOutput = z.object({
  outcome: z.literal('SEALED'),
  lineageId: Identifier,
  residualId: Identifier,
  seq: NonNegativeInt,
  recordHash: HexDigest,
  generationEpoch: NonNegativeInt,
  /** The signed checkpoint the record is proven in. */
  checkpoint: SignedCheckpointOutput,
  /** The record's inclusion proof in `checkpoint` (leaf `seq`, tree of `checkpoint.size` records). */
  proof: InclusionProofOutput,
  supersedes: HeadOutput.nullable(),
  /** Claim ids sealed in the manifest, sorted. */
  claims: z.array(z.string()),
  snapshot: SnapshotOutput,
  /**
   * Where the record stands against the deployment log: `PROVEN`, or `SEALED_AWAITING_INTEGRATION`
   * when the wait ran out before the integration (the write is sealed; recall it later to see it
   * proven). `null`: the server's client checked no freshness.
   */
  freshness: FreshnessShape.nullable(),
});
/** Type of {@link WriteSealedOutput}. */
export type WriteSealedOutput = z.infer<typeof WriteSealedOutput>;
