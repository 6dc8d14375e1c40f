import { deploymentRollbackCheckOutput } from '../client/shapes/deployment-rollback-check-output';
import type { Freshness } from '../client/verified-recall';
import type { TrustedHead } from '../shared/seal/trusted-head';
import { headOf } from './head-of';
import type { LogCheck } from './log-check';
import { serverWalkTruncationBasis } from './server-walk-truncation-basis';
import { signedCheckpointOutput } from './signed-checkpoint-output';
import { tailCheckpoint } from './tail-checkpoint';

/**
 * The fields `reseal_verify` and `reseal_inspect` answer of the signed log next to their verdict
 * (docs/mcp.md, `reseal_verify`): the signed lineage checkpoint, the kept checkpoint's size, what
 * the walk's tail was checked against, whether truncation was checked against lineage checkpoints
 * and the deployment checkpoint (`freshness`: the walk's, `null` when none was checked), the log's
 * key, the tree head the walk was tied to and the first seq awaiting integration.
 */
export function logCheckFields(log: LogCheck, caller: TrustedHead | undefined, freshness: Freshness | null = null) {
  const tail = tailCheckpoint(caller, log);
  const trustedCheckpointSize = log.latest?.trusted?.size ?? null;
  const truncationChecked = caller !== undefined || trustedCheckpointSize !== null;
  const deployment = deploymentRollbackCheckOutput(serverWalkTruncationBasis({ freshness }, log, caller).deployment);
  return {
    checkpoint: log.latest ? signedCheckpointOutput(log.latest.checkpoint) : null,
    trustedCheckpointSize,
    tailCheckedAgainst: tail ? { ...headOf(tail.head), source: tail.source } : null,
    truncationChecked,
    rollbackCheckedAgainstDeployment: deployment,
    rollbackChecked: truncationChecked || deployment !== null,
    logKey: log.logKey,
    treeHead: log.treeHead
      ? {
          size: log.treeHead.size,
          rootHash: Buffer.from(log.treeHead.rootHash).toString('hex'),
          vouchedBy: log.treeHead.vouchedBy,
          deploymentCheckpointSize: log.treeHead.deploymentCheckpointSize,
        }
      : null,
    awaitingIntegrationFromSeq: log.awaitingFromSeq ?? null,
  };
}
