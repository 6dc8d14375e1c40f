import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { demoReportPage, type LineageReportReader } from '../../../scripts/demo/demo-report';
import { runDemo } from '../../../scripts/demo/run-demo';
import { parseSnapshots, sliceSnapshots } from '../../../scripts/demo/snapshots';
import { ClaimState } from '../../../shared/report/claim-state';
import { lineageReport } from '../../../shared/report/lineage-report';
import { inProcessBackend } from './in-process-backend';

const snapshots = parseSnapshots(readFileSync('examples/runner-images/ubuntu-24.04.jsonl', 'utf8'));
const noSleep = async () => undefined;

/** A reader that reads nothing from a stack: the lineage's report is its recalls and checkpoints. */
const readerOfRecallsOnly: LineageReportReader = async (lineageId, options) =>
  lineageReport({
    lineageId,
    records: [],
    verification: { verdict: 'VERIFIED_INTACT', records: [], firstFailure: null, head: null, linkedThrough: null },
    ...(options.recalls ? { recalls: options.recalls } : {}),
    ...(options.checkpoints ? { checkpoints: options.checkpoints } : {}),
  });

describe('demoReportPage (docs/demo.md, "The report")', () => {
  it("makes one heatmap column per verified recall, with the summary's kept, re-probed and dropped claims", async () => {
    const slice = sliceSnapshots(snapshots, { from: 0, to: 16, every: 4 });
    const summary = await runDemo({ backend: inProcessBackend(), slice, runId: 'report', sleep: noSleep });
    const page = await demoReportPage(summary, readerOfRecallsOnly, 0);

    expect(page.lineages.map((l) => l.lineageId)).toEqual(summary.lineages.map((l) => l.lineageId));
    const columns = page.lineages.flatMap((l) => l.recalls);
    expect(columns).toHaveLength(summary.totals.recalls);
    const cells = columns.flatMap((c) => c.claims);
    const count = (state: ClaimState) => cells.filter((c) => c.state === state).length;
    expect(count(ClaimState.RETAINED)).toBe(summary.totals.claimsKept);
    expect(count(ClaimState.REPROBED) + count(ClaimState.INVALIDATED)).toBe(summary.totals.claimsReprobed);
    // The single-runtime claim cannot be stated once podman and friends arrive: invalidated, not re-probed.
    const deploy = page.lineages.find((l) => /-container-deploy\.[0-9a-f]{32}$/.test(l.lineageId));
    const invalidated = deploy?.recalls.flatMap((r) => r.claims.filter((c) => c.state === ClaimState.INVALIDATED));
    expect(invalidated).toEqual([{ claimId: 'single-container-runtime', state: ClaimState.INVALIDATED }]);
    expect(deploy?.recalls.some((r) => r.driftedKeys.includes('tool:podman'))).toBe(true);
  });

  it('shows the offline receipt on its lineage only, and the proven recalls on every lineage', async () => {
    const slice = sliceSnapshots(snapshots, { from: 0, to: 3 });
    const summary = await runDemo({ backend: inProcessBackend(), slice, runId: 'receipt', sleep: noSleep });
    const page = await demoReportPage(summary, readerOfRecallsOnly, 0);
    for (const lineage of page.lineages) {
      const labels = lineage.checkpoints.map((c) => `${c.label}: ${c.state}`);
      expect(labels).toEqual([
        'recalls proven by inclusion in a vouched-for tree: VERIFIED_INTACT',
        ...(lineage.lineageId === summary.receipt.lineageId
          ? ['receipt for seq 0, checked offline: VERIFIED_INTACT']
          : []),
      ]);
    }
  });
});
