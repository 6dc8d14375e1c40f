import type { LineageIndexValue } from '../index/index-entry';
import { admitUpdate } from '../index/index-update';
import { verifyConsistency } from '../log/verify-consistency';

/**
 * Why a lineage head may not be extended: it is behind the head the deployment index holds for
 * its lineage (docs/sealing.md, "The index floor"). The kinds are the integrator's evidence kinds
 * for the same finding (docs/deployment-log.md, "Evidence").
 */
export interface IndexFloorFinding {
  /**
   * `LINEAGE_ROLLBACK`: fewer records or an older generation epoch than the indexed head (or no
   * head at all); `LINEAGE_FORK`: the indexed size with another root or head record;
   * `HEAD_INCONSISTENT`: larger, but the consistency proof from the indexed head does not verify.
   */
  readonly kind: 'LINEAGE_ROLLBACK' | 'LINEAGE_FORK' | 'HEAD_INCONSISTENT';
  readonly reason: string;
}

/**
 * The sealer's check of the lineage head it would extend against the lineage's entry in the
 * deployment index (docs/sealing.md, "The index floor"). The head must be the indexed one or
 * extend it: the index's update rule (`admitUpdate`, consistency checked from the indexed head)
 * and, for a larger head, the RFC 9162 consistency proof from the indexed head to it. Pure.
 *
 * @param lineageId - the lineage both heads belong to
 * @param head - the authenticated head the sealer would extend, as an index value; `null` when
 *   the table shows no head (an empty lineage)
 * @param indexed - the entry the index holds, `null` when the lineage was never integrated (no floor)
 * @param consistency - consistency proof (hex) from `indexed.treeSize` to `head.treeSize`, built
 *   from the lineage's stored nodes; only read when the head is larger
 * @returns the findings that refuse the extension; empty when it may go ahead
 */
export function checkAgainstIndex(
  lineageId: string,
  head: LineageIndexValue | null,
  indexed: LineageIndexValue | null,
  consistency: readonly string[] = [],
): IndexFloorFinding[] {
  if (indexed === null) return [];
  const floor = `the deployment index holds lineage ${lineageId} at size ${indexed.treeSize} (root ${indexed.rootHash}, epoch ${indexed.generationEpoch})`;
  if (head === null) {
    return [{ kind: 'LINEAGE_ROLLBACK', reason: `the table shows no head for the lineage, but ${floor}` }];
  }
  const verdict = admitUpdate(
    { kind: 'lineage', lineageId, value: indexed },
    {
      kind: 'lineage',
      lineageId,
      value: head,
      consistentFrom: { treeSize: indexed.treeSize, rootHash: indexed.rootHash },
    },
  );
  const shown = `the head to extend has size ${head.treeSize} (root ${head.rootHash}, epoch ${head.generationEpoch})`;
  if (typeof verdict === 'object') {
    // The consistentFrom given is the held head, so only a rollback or a fork can be found here.
    const kind = verdict.kind === 'LINEAGE_FORK' ? 'LINEAGE_FORK' : 'LINEAGE_ROLLBACK';
    return [{ kind, reason: `${shown}, but ${floor}` }];
  }
  if (head.treeSize > indexed.treeSize) {
    const hex = (h: string) => Buffer.from(h, 'hex');
    const consistent = verifyConsistency({
      size1: indexed.treeSize,
      size2: head.treeSize,
      root1: hex(indexed.rootHash),
      root2: hex(head.rootHash),
      proof: consistency.map(hex),
    });
    if (!consistent) {
      return [{ kind: 'HEAD_INCONSISTENT', reason: `${shown} and does not extend the indexed head: ${floor}` }];
    }
  }
  return [];
}
