import type { Freshness } from '../../client/verified-recall';

/** The `freshness` line of the text output, or `null` when not checked. */
export function freshnessLine(freshness: Freshness | null): string | null {
  if (!freshness) return null;
  const at = freshness.checkpointSize === null ? '' : ` as of deployment checkpoint ${freshness.checkpointSize}`;
  const witnessing =
    freshness.witnessing === 'UNWITNESSED'
      ? 'UNWITNESSED: the policy is the log alone, a cold client cannot detect a rollback of the whole table'
      : `witnessed, window ${freshness.windowSeconds} s`;
  const notice = freshness.reAnchor ?? null;
  const reAnchored = notice
    ? `; RE-ANCHORED at ${new Date(notice.timeSeconds * 1000).toISOString()}: the restore lost deployment checkpoints ${notice.restoredSize + 1}–${notice.lostSize} (${notice.reason})`
    : '';
  return `${freshness.state}${at} (${witnessing})${reAnchored}`;
}

/** The `freshness` row of a walk's text (docs/cli.md, "Freshness"): the state and its reason, or `not checked`. */
export function freshnessRow(freshness: Freshness | null): [string, string] {
  const line = freshnessLine(freshness);
  return ['freshness', line && freshness ? `${line}: ${freshness.reason}` : 'not checked (no deployment log read)'];
}
