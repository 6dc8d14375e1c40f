import { z } from 'zod';
import { NonNegativeInt } from '../../shared/schemas/non-negative-int';
import type { DeploymentRollbackCheck } from '../verified-recall';

/**
 * The deployment checkpoint a read's rollback was checked against (docs/cli.md, `recall`;
 * docs/deployment-log.md, "Clients"): with unsigned lineage checkpoints, a stack's default, the
 * only check of a rollback there is besides the caller's own head. `kept`: the checkpoint store
 * held one no newer (else the read was refused); `witnessed`: the policy's witnesses cosigned it,
 * so a table older than `windowSeconds` (seconds; `null` when unwitnessed) fails the policy.
 */
export const DeploymentRollbackCheckOutput = z.object({
  /** Leaves of the deployment checkpoint the read's chain verified. */
  size: NonNegativeInt,
  kept: z.boolean(),
  witnessed: z.boolean(),
  windowSeconds: NonNegativeInt.nullable(),
});
/** Type of {@link DeploymentRollbackCheckOutput}. */
export type DeploymentRollbackCheckOutput = z.infer<typeof DeploymentRollbackCheckOutput>;

/**
 * The {@link DeploymentRollbackCheckOutput} of a read, or `null` when its deployment checkpoint
 * checked no rollback (none verified, or neither kept nor witnessed), as `truncationCheckText`
 * words it.
 */
export function deploymentRollbackCheckOutput(
  deployment: DeploymentRollbackCheck | null,
): DeploymentRollbackCheckOutput | null {
  if (deployment === null || !(deployment.kept || deployment.witnessed)) return null;
  const { size, kept, witnessed, windowSeconds } = deployment;
  return { size, kept, witnessed, windowSeconds };
}
