import { describe, expect, it } from 'vitest';
import { freshnessJson, freshnessLine } from '../../../cli/format/freshness';
import type { Freshness } from '../../../client/verified-recall';

// A recall under a re-anchored deployment log shows what the restore lost, with every state
// (docs/cli.md, "Freshness"; docs/deployment-log.md, "Re-anchor").
const notice = {
  restoredSize: 5,
  restoredRootHash: `${'A'.repeat(43)}=`,
  lostSize: 9,
  lostRootHash: `${'B'.repeat(43)}=`,
  lostLeaves: 4,
  timeSeconds: 1_767_225_600,
  reason: 'restored from a point-in-time backup',
  statementHash: 'ab'.repeat(32),
  note: 'reseal/v1/re-anchor\n…',
};
const proven: Freshness = {
  state: 'PROVEN',
  checkpointSize: 7,
  reason: 'proven',
  witnessing: 'WITNESSED',
  windowSeconds: 182,
  reAnchor: notice,
};

describe('recall freshness of a re-anchored deployment log', () => {
  it('--json carries re_anchor (snake_case); null when the history was never re-anchored', () => {
    expect(freshnessJson(proven)?.re_anchor).toEqual({
      restored_size: 5,
      lost_size: 9,
      lost_leaves: 4,
      lost_root_hash: notice.lostRootHash,
      time: 1_767_225_600,
      reason: notice.reason,
      statement_hash: notice.statementHash,
    });
    expect(freshnessJson({ ...proven, reAnchor: null })?.re_anchor).toBeNull();
  });

  it('the text line says RE-ANCHORED, when, what was lost and why', () => {
    expect(freshnessLine(proven)).toBe(
      'PROVEN as of deployment checkpoint 7 (witnessed, window 182 s); RE-ANCHORED at 2026-01-01T00:00:00.000Z: the restore lost deployment checkpoints 6–9 (restored from a point-in-time backup)',
    );
  });
});
