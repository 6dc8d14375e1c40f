import type { ConflictRecord } from '../../shared/ports/lineage-store';

/**
 * The head a conflict found, as `seq N, epoch E`, when it carries one (`observedHead`); `null`
 * otherwise (a `STALE_EPOCH` conflict names the newer epoch in its detail only), and the line
 * is then left out rather than printed as `(not known)`.
 */
export function conflictHeadFound(c: Pick<ConflictRecord, 'observedHead'>): string | null {
  if (c.observedHead) return `seq ${c.observedHead.seq}, epoch ${c.observedHead.generationEpoch}`;
  return null;
}
