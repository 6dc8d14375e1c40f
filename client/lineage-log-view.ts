import type { LineageLogView, WalkTreeHead } from '../shared/log/stored-lineage';
import { LogVerificationError } from './errors';
import type { LineageTreeHeads } from './lineage-tree-heads';
import type { LogReader } from './log-reader';

/**
 * The log a whole-lineage walk is tied to, as this client reads it (docs/verifiable-log.md,
 * "Verifying a whole lineage"): the signed lineage log and the kept checkpoint from `log`, and
 * the lineage's tree head from `treeHeads` ({@link walkTreeHeadOf}).
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

/**
 * The lineage's tree head a walk is tied to (`LineageTreeHeads.read`: the index entry under the
 * deployment checkpoint verified against the client's policy, docs/deployment-log.md, "Clients"),
 * or `UNAVAILABLE` when this client reads no deployment log: then nothing but a signed lineage
 * checkpoint could vouch, and a head without one cannot be authenticated (not "awaiting").
 *
 * @throws what the table reads throw (an outage), never for a forged or hidden item
 */
export async function walkTreeHeadOf(
  treeHeads: Pick<LineageTreeHeads, 'read' | 'readsIndex'>,
  lineageId: string,
): Promise<WalkTreeHead> {
  if (!treeHeads.readsIndex) return { kind: 'UNAVAILABLE', reason: 'this client reads no deployment log' };
  return treeHeads.read(lineageId);
}
