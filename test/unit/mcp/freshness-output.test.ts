import { describe, expect, it } from 'vitest';
import { FreshnessShape, freshnessShape } from '../../../client/shapes/freshness-shape';
import type { Freshness } from '../../../client/verified-recall';
import type { ReAnchorNotice } from '../../../shared/integrator/re-anchor-statement';

// docs/mcp.md, "Freshness": a re-anchored log is shown to the host, never a silent PROVEN.
const notice: ReAnchorNotice = {
  restoredSize: 4,
  restoredRootHash: 'AAAA',
  lostSize: 9,
  lostRootHash: 'BBBB',
  lostLeaves: 5,
  timeSeconds: 1_764_900_000,
  reason: 'restored from the 03:00 backup',
  statementHash: 'ab'.repeat(32),
  note: 'reseal.re-anchor/v1\n…',
};
const proven: Freshness = {
  state: 'PROVEN',
  checkpointSize: 6,
  reason: 'indexed',
  witnessing: 'WITNESSED',
  windowSeconds: 182,
  reAnchor: notice,
};

describe("freshnessShape (the MCP tools' freshness)", () => {
  it('carries the re-anchor notice the chain verified, in the declared output shape', () => {
    const out = freshnessShape(proven);
    expect(FreshnessShape.parse(out)).toEqual(out);
    expect(out?.reAnchor).toMatchObject({ restoredSize: 4, lostSize: 9, lostLeaves: 5, reason: notice.reason });
  });

  it('says null when the log was never re-anchored', () => {
    expect(freshnessShape({ ...proven, reAnchor: null })?.reAnchor).toBeNull();
  });
});
