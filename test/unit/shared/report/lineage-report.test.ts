import { describe, expect, it } from 'vitest';
import { chartSpecs } from '../../../../shared/report/chart-specs';
import { ClaimState } from '../../../../shared/report/claim-state';
import { lineageReport } from '../../../../shared/report/lineage-report';
import { reportRefusals } from '../../../../shared/report/report-refusals';
import { PLANTED_SCRIPT, reportLineage } from '../../../helpers/report-fixtures';
import { TEST_LINEAGE_ID } from '../../../helpers/seal-factories';

describe('lineageReport (docs/cli.md, "reseal report")', () => {
  it('puts every record on the timeline with its own verdict, the forged one as stored', async () => {
    const { records, verification } = await reportLineage();
    const report = lineageReport({ lineageId: TEST_LINEAGE_ID, records, verification });
    expect(report.verdict).toBe('HASH_MISMATCH');
    expect(report.firstFailure).toMatch(/^seq 3: HASH_MISMATCH: /);
    expect(report.records.map((r) => [r.seq, r.generationEpoch, r.supersedesSeq, r.verification])).toEqual([
      [0, 1, null, 'VERIFIED_INTACT'],
      [1, 2, 0, 'VERIFIED_INTACT'],
      [2, 3, 1, 'VERIFIED_INTACT'],
      [3, 3, null, 'HASH_MISMATCH'],
    ]);
    expect(report.records[3]?.residualId).toBe(PLANTED_SCRIPT);
  });

  it('reads claim states and drifted keys from each supersession between verified records', async () => {
    const { records, verification } = await reportLineage();
    const report = lineageReport({ lineageId: TEST_LINEAGE_ID, records, verification });
    expect(report.recalls).toEqual([
      {
        label: 'seq 0 → 1',
        verdict: null,
        claims: [
          { claimId: 'build', state: ClaimState.REPROBED },
          { claimId: 'lint', state: ClaimState.RETAINED },
          { claimId: 'runtime', state: ClaimState.INVALIDATED },
        ],
        driftedKeys: ['tool:docker', 'tool:node'],
      },
      {
        label: 'seq 1 → 2',
        verdict: null,
        claims: [
          { claimId: 'build', state: ClaimState.RETAINED },
          { claimId: 'lint', state: ClaimState.REPROBED },
        ],
        driftedKeys: ['tool:yamllint'],
      },
    ]);
  });

  it('reads no claim from a record that did not verify', async () => {
    const { records, verification } = await reportLineage();
    // Record 2 fails too: the supersession 1 → 2 is no longer read (its new side is unverified).
    const failing = {
      ...verification,
      records: verification.records.map((r, i) => (i === 2 ? { ...r, verdict: 'UNVERIFIED_TAMPER_RISK' as const } : r)),
    };
    const report = lineageReport({ lineageId: TEST_LINEAGE_ID, records, verification: failing });
    expect(report.recalls.map((r) => r.label)).toEqual(['seq 0 → 1']);
    expect(report.records[2]?.verification).toBe('UNVERIFIED_TAMPER_RISK');
  });

  it('uses the recalls the client verified when given, and lists refusals oldest first', async () => {
    const { records, verification } = await reportLineage();
    const recalls = [
      { label: '#0', verdict: 'NO_DRIFT', claims: [{ claimId: 'build', state: ClaimState.RETAINED }], driftedKeys: [] },
    ];
    const refusals = reportRefusals(
      [{ atMs: 20, reason: 'STALE_STATE', residualId: 'r-2', signatureVerified: true }],
      [
        {
          atMs: 10,
          reason: 'HEAD_MOVED',
          residualId: 'r-1',
          signatureVerified: true,
          unreadable: 'unreadable observedHead',
        },
        { atMs: 30, reason: 'HEAD_MOVED', residualId: 'r-3' },
      ],
    );
    expect(refusals.map((r) => [r.kind, r.atMs, r.signatureVerified])).toEqual([
      ['conflict', 10, false],
      ['rejection', 20, true],
      ['conflict', 30, null],
    ]);
    const report = lineageReport({ lineageId: TEST_LINEAGE_ID, records, verification, recalls, refusals });
    expect(report.recalls).toEqual(recalls);
    expect(report.refusals).toEqual(refusals);
  });
});

describe('chartSpecs', () => {
  it('draws one mark per record, supersession, refusal, heatmap cell and drifted key', async () => {
    const { records, verification } = await reportLineage();
    const refusals = reportRefusals([{ atMs: 20, reason: 'STALE_STATE', residualId: 'r-2' }], []);
    const charts = chartSpecs(lineageReport({ lineageId: TEST_LINEAGE_ID, records, verification, refusals }));
    const values = (spec: Record<string, unknown>) => ((spec.data as { values: unknown[] }).values ?? []).length;
    const byKind = Object.fromEntries(charts.map((c) => [c.kind, c.spec]));
    const [rules, points] = ((byKind.timeline?.layer ?? []) as Record<string, unknown>[]).map(values);
    expect({ rules, points }).toEqual({ rules: 2, points: 4 });
    expect(values(byKind.refusals as Record<string, unknown>)).toBe(1);
    expect(values(byKind.claims as Record<string, unknown>)).toBe(5);
    expect(values(byKind.drift as Record<string, unknown>)).toBe(3);
  });

  it('a forged sealedAtMs no Date holds is drawn as "(invalid time …)", never a throw', async () => {
    const { records, verification } = await reportLineage();
    const report = lineageReport({ lineageId: TEST_LINEAGE_ID, records, verification, refusals: [] });
    const forged = { ...report, records: report.records.map((r) => ({ ...r, sealedAtMs: 1e20 })) };
    const timeline = chartSpecs(forged).find((c) => c.kind === 'timeline')?.spec as {
      layer: { data: { values: { sealedAt?: string }[] } }[];
    };
    const times = timeline.layer.flatMap((l) => l.data.values.map((v) => v.sealedAt)).filter(Boolean);
    expect(times.length).toBeGreaterThan(0);
    expect(new Set(times)).toEqual(new Set(['(invalid time 100000000000000000000)']));
  });

  it('leaves out the charts that would be empty', () => {
    const charts = chartSpecs({
      lineageId: 'empty',
      verdict: 'VERIFIED_INTACT',
      firstFailure: null,
      records: [],
      recalls: [],
      refusals: [],
      checkpoints: [],
    });
    expect(charts).toEqual([]);
  });
});
