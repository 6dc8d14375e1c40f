import type { Freshness } from '../../client/verified-recall';

/** `freshness` of `--json` (docs/cli.md, "Freshness"): snake_case; `null` when not checked. */
export function freshnessJson(freshness: Freshness | null) {
  return (
    freshness && {
      state: freshness.state,
      checkpoint_size: freshness.checkpointSize,
      window_seconds: freshness.windowSeconds,
      witnessing: freshness.witnessing,
      reason: freshness.reason,
    }
  );
}

/** The `freshness` line of the text output, or `null` when not checked. */
export function freshnessLine(freshness: Freshness | null): string | null {
  if (!freshness) return null;
  const at = freshness.checkpointSize === null ? '' : ` as of deployment checkpoint ${freshness.checkpointSize}`;
  const witnessing =
    freshness.witnessing === 'UNWITNESSED'
      ? 'UNWITNESSED: the policy is the log alone, a cold client cannot detect a rollback of the whole table'
      : `witnessed, window ${freshness.windowSeconds} s`;
  return `${freshness.state}${at} (${witnessing})`;
}
