import { z } from 'zod';
import { DeploymentRollbackCheckOutput } from '../../client/shapes/deployment-rollback-check-output';
import { HeadOutput } from '../../client/shapes/head-output';
import { SignedCheckpointOutput } from '../../client/shapes/signed-checkpoint-output';
import { HexDigest } from '../../shared/schemas/hex-digest';
import { NonNegativeInt } from '../../shared/schemas/non-negative-int';

/**
 * What the walk of `reseal_verify` and `reseal_inspect` checked the lineage's tail against, next
 * to its verdict: the latest signed checkpoint and whether truncation could be checked.
 */
export const LogCheckOutputFields = {
  /**
   * The signed lineage checkpoint the walk was tied to, verified and consistent with the kept one
   * (`null`: none; a head item the sealer MAC'd without signing is tied to the index, `treeHead`).
   */
  checkpoint: SignedCheckpointOutput.nullable(),
  /**
   * The tree head the walk was tied to (docs/mcp.md, `reseal_verify`): its size and root (hex), what
   * vouches for it (`signed-checkpoint`: the head item's signed lineage checkpoint; `index`: the
   * lineage's entry in the index under the authenticated deployment checkpoint of
   * `deploymentCheckpointSize`); `null` when the walk was tied to none.
   */
  treeHead: z
    .object({
      size: NonNegativeInt,
      rootHash: HexDigest,
      vouchedBy: z.enum(['signed-checkpoint', 'index']),
      deploymentCheckpointSize: NonNegativeInt.nullable(),
    })
    .nullable(),
  /**
   * The first seq sealed past the tree head the index holds: those records are sealed, awaiting
   * integration (not intact, not tampering; the tool error `AWAITING_INTEGRATION`); `null`: none.
   */
  awaitingIntegrationFromSeq: NonNegativeInt.nullable(),
  /** Size of the kept checkpoint it was shown consistent with (`null`: none was kept). */
  trustedCheckpointSize: NonNegativeInt.nullable(),
  /**
   * The head the walk compared the stored tail with: the caller's `checkpoint`, else the last
   * record of the tree head (`signed-checkpoint` or `index`, proven by the walk); `null`: neither.
   */
  tailCheckedAgainst: HeadOutput.extend({ source: z.enum(['caller', 'signed-checkpoint', 'index']) }).nullable(),
  /**
   * Whether a cut tail would have shown by lineage checkpoints only: a kept lineage checkpoint or
   * the caller's `checkpoint` was compared; `rollbackChecked` counts the deployment checkpoint too.
   */
  truncationChecked: z.boolean(),
  /**
   * The deployment checkpoint a rollback was checked against (kept in the server's checkpoint
   * store, or cosigned by the policy's witnesses), or `null` when none was: on a stack with
   * unsigned lineage checkpoints, the default, the only check besides the caller's `checkpoint`.
   */
  rollbackCheckedAgainstDeployment: DeploymentRollbackCheckOutput.nullable(),
  /** Whether a rollback was checked at all (`truncationChecked`, or the deployment checkpoint): what the text says. */
  rollbackChecked: z.boolean(),
  /** The log's verifier key (C2SP vkey), to check the checkpoint elsewhere. */
  logKey: z.string(),
};
