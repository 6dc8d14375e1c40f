import { z } from 'zod';
import { HeadOutput } from '../../client/shapes/head-output';
import { SignedCheckpointOutput } from '../../client/shapes/signed-checkpoint-output';
import { NonNegativeInt } from '../../shared/schemas/primitives';

/**
 * What the walk of `reseal_verify` and `reseal_inspect` checked the lineage's tail against, next
 * to its verdict: the latest signed checkpoint and whether truncation could be checked.
 */
export const LogCheckOutputFields = {
  /** The latest signed checkpoint, verified and consistent with the kept one (`null`: none). */
  checkpoint: SignedCheckpointOutput.nullable(),
  /** Size of the kept checkpoint it was shown consistent with (`null`: none was kept). */
  trustedCheckpointSize: NonNegativeInt.nullable(),
  /**
   * The head the walk compared the stored tail with: the caller's `checkpoint`, else the last
   * record of the signed checkpoint (proven by inclusion); `null`: neither.
   */
  tailCheckedAgainst: HeadOutput.extend({ source: z.enum(['caller', 'signed-checkpoint']) }).nullable(),
  /** Whether a cut tail would have shown: a kept checkpoint or the caller's `checkpoint` was compared. */
  truncationChecked: z.boolean(),
  /** The log's verifier key (C2SP vkey), to check the checkpoint elsewhere. */
  logKey: z.string(),
};
