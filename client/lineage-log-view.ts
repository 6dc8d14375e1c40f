import type { LineageLogView, WalkTreeHead } from '../shared/log/lineage-log-view';
import { LogVerificationError } from './errors';
import type { LogReader } from './log-reader';

/**
 * The log a whole-lineage walk is tied to, as this client reads it (docs/verifiable-log.md,
 * "Verifying a whole lineage"): the signed lineage log and the kept checkpoint from `log`, and
 * the lineage's tree head from `treeHeads` (`ResealClient.readLineageTreeHead`).
 */
export function lineageLogView(
  log: Pick<LogReader, 'view' | 'trusted'>,
  treeHeads: (lineageId: string) => Promise<WalkTreeHead>,
): LineageLogView {
  return {
    ...log.view(),
    kept: async (lineageId) => {
      try {
        const checkpoint = await log.trusted(lineageId);
        return checkpoint ? { kind: 'KEPT', checkpoint } : { kind: 'NONE' };
      } catch (error) {
        if (error instanceof LogVerificationError)
          return { kind: 'FINDING', verdict: error.verdict, reason: error.reason };
        throw error;
      }
    },
    treeHead: treeHeads,
  };
}
