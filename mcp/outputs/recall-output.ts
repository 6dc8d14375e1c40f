import { z } from 'zod';
import { DeltaShape } from '../../client/shapes/delta-shape';
import { HeadOutput } from '../../client/shapes/head-output';
import { InclusionProofOutput } from '../../client/shapes/inclusion-proof-output';
import { RecallShape, RecallVerificationShape } from '../../client/shapes/recall-shape';
import { SignedCheckpointOutput } from '../../client/shapes/signed-checkpoint-output';
import { WrittenByOutput } from '../../client/shapes/written-by-output';
import { HexDigest } from '../../shared/schemas/hex-digest';
import { Identifier } from '../../shared/schemas/identifier';
import { NonNegativeInt } from '../../shared/schemas/non-negative-int';
import { VerificationVerdict } from '../../shared/seal/verification-verdict';
import { JsonPayloadSchema } from '../../shared/write/json-payload';
import { KeptClaimOutput } from './kept-claim-output';
import { ReprobeClaimOutput } from './reprobe-claim-output';
import { SnapshotOutput } from './snapshot-output';

/**
 * `reseal_recall`: a record proven by the server's client (inclusion in a signed checkpoint,
 * consistent with the kept one), triaged against the environment now; the delta is the one the
 * client recomputed from the proven record, never the stored report. The {@link RecallShape}
 * `reseal recall --json` prints too (format `reseal.recall/1`), narrowed to a triaged recall (every
 * refusal is a tool error), with what the tool adds: the record's hash, time and writer, the
 * signed checkpoint and proof, each claim with its content, and the next step.
 */
export const RecallOutput = RecallShape.extend({
  outcome: z.literal('TRIAGED'),
  end: z.literal('TRIAGED'),
  seq: NonNegativeInt,
  residualId: Identifier,
  recordHash: HexDigest,
  sealedAt: z.string(),
  /** Who wrote the proven record, from its signed fields (docs/mcp.md, "Who wrote it"). */
  writtenBy: WrittenByOutput,
  verification: RecallVerificationShape.extend({
    /** The client's own verdict on the record. */
    verdict: z.literal(VerificationVerdict.VERIFIED_INTACT),
    firstFailure: z.null(),
    /** Records in the signed checkpoint the record is proven in. */
    checkpointSize: NonNegativeInt,
    /**
     * Whether the signed checkpoint was shown consistent with one kept earlier (or the caller's
     * `checkpoint` was checked): lineage checkpoints only. Without either, a table rolled back to
     * an older signed state cannot be told from the real one by them; `rollbackChecked` and
     * `rollbackCheckedAgainstDeployment` count the deployment checkpoint too.
     */
    truncationChecked: z.boolean(),
    /** The signed checkpoint the record is proven in. */
    checkpoint: SignedCheckpointOutput,
    /** The record's inclusion proof in it. */
    proof: InclusionProofOutput,
    /** The caller's `checkpoint`, checked against the signed log here (`null`: none given). */
    callerCheckpoint: HeadOutput.nullable(),
  }),
  delta: DeltaShape,
  keptClaims: z.array(KeptClaimOutput),
  reprobeClaims: z.array(ReprobeClaimOutput),
  /** The record's payload outside its claims (`payload.data`, or the whole payload of another layout). */
  data: JsonPayloadSchema.nullable(),
  /** What to do next, for the agent. */
  nextStep: z.string(),
  /** Pass as `supersedes` to `reseal_write` when re-sealing after the re-probes. */
  supersedes: HeadOutput,
  snapshot: SnapshotOutput,
});
/** Type of {@link RecallOutput}. */
export type RecallOutput = z.infer<typeof RecallOutput>;
