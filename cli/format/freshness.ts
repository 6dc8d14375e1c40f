import type { Freshness } from '../../client/verified-recall';
import type { ReAnchorNotice } from '../../shared/integrator/re-anchor-statement';

/** `freshness` of `--json` (docs/cli.md, "Freshness"): snake_case; `null` when not checked. */
export function freshnessJson(freshness: Freshness | null) {
  return (
    freshness && {
      state: freshness.state,
      checkpoint_size: freshness.checkpointSize,
      window_seconds: freshness.windowSeconds,
      witnessing: freshness.witnessing,
      reason: freshness.reason,
      re_anchor: reAnchorJson(freshness.reAnchor ?? null),
    }
  );
}

/** `freshness.re_anchor` of `--json` (docs/cli.md, "Freshness"; docs/deployment-log.md, "Re-anchor"): `null` when none. */
export function reAnchorJson(notice: ReAnchorNotice | null) {
  return (
    notice && {
      restored_size: notice.restoredSize,
      lost_size: notice.lostSize,
      lost_leaves: notice.lostLeaves,
      lost_root_hash: notice.lostRootHash,
      time: notice.timeSeconds,
      reason: notice.reason,
      statement_hash: notice.statementHash,
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
  const notice = freshness.reAnchor ?? null;
  const reAnchored = notice
    ? `; RE-ANCHORED at ${new Date(notice.timeSeconds * 1000).toISOString()}: the restore lost deployment checkpoints ${notice.restoredSize + 1}–${notice.lostSize} (${notice.reason})`
    : '';
  return `${freshness.state}${at} (${witnessing})${reAnchored}`;
}
