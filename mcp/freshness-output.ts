import type { Freshness } from '../client/verified-recall';
import type { ReAnchorNotice } from '../shared/integrator/re-anchor-statement';
import type { FreshnessOutput } from './outputs/freshness-output';

/** The `freshness` of a tool answer (docs/mcp.md, "Freshness"), or `null` when none was checked. */
export function freshnessOutput(freshness: Freshness | null): FreshnessOutput | null {
  return (
    freshness && {
      state: freshness.state,
      checkpointSize: freshness.checkpointSize,
      windowSeconds: freshness.windowSeconds,
      witnessing: freshness.witnessing,
      reason: freshness.reason,
      reAnchor: reAnchorOutput(freshness.reAnchor ?? null),
    }
  );
}

/** The `freshness.reAnchor` of a tool answer: the notice without its raw note, or `null`. */
function reAnchorOutput(notice: ReAnchorNotice | null): FreshnessOutput['reAnchor'] {
  return (
    notice && {
      restoredSize: notice.restoredSize,
      lostSize: notice.lostSize,
      lostLeaves: notice.lostLeaves,
      lostRootHash: notice.lostRootHash,
      timeSeconds: notice.timeSeconds,
      reason: notice.reason,
      statementHash: notice.statementHash,
    }
  );
}
