import type { Freshness } from '../client/verified-recall';
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
    }
  );
}
