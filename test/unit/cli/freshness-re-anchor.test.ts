import { describe, expect, it } from 'vitest';
import { freshnessLine } from '../../../cli/format/freshness';
import { freshnessShape } from '../../../client/shapes/freshness-shape';
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
  it('--json carries reAnchor (the reseal.freshness/1 shape); null when the history was never re-anchored', () => {
    expect(freshnessShape(proven)?.reAnchor).toEqual({
      restoredSize: 5,
      lostSize: 9,
      lostLeaves: 4,
      lostRootHash: notice.lostRootHash,
      timeSeconds: 1_767_225_600,
      reason: notice.reason,
      statementHash: notice.statementHash,
    });
    expect(freshnessShape({ ...proven, reAnchor: null })?.reAnchor).toBeNull();
  });

  it('the text line says RE-ANCHORED, when, what was lost and why', () => {
    expect(freshnessLine(proven)).toBe(
      'PROVEN as of deployment checkpoint 7 (witnessed, window 182 s); RE-ANCHORED at 2026-01-01T00:00:00.000Z: the restore lost deployment checkpoints 6–9 (restored from a point-in-time backup)',
    );
  });
});
