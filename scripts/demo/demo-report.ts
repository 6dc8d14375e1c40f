import type { ReadLineageReportOptions } from '../../client/read-lineage-report';
import { type ClaimState, ClaimState as ClaimStates } from '../../shared/report/claim-state';
import type { LineageReport, ReportPage, ReportRecall } from '../../shared/report/report-page';
import type { DemoSummary, RecallResult } from './summary';

/** Reads one lineage's report as the client verifies it (`readLineageReport` over the demo's stack). */
export type LineageReportReader = (lineageId: string, options: ReadLineageReportOptions) => Promise<LineageReport>;

/**
 * The heatmap columns of one lineage: every recall the client verified, in order. Claims triage
 * kept are `retained`; claims it quarantined are `re-probed` (sealed again) or, when they could
 * no longer be stated, `invalidated`; the drifted keys are those that mattered.
 */
export function demoRecallColumns(recalls: readonly RecallResult[]): ReportRecall[] {
  return recalls.map((r) => {
    const state = (claimId: string): ClaimState =>
      r.dropped.includes(claimId) ? ClaimStates.INVALIDATED : ClaimStates.REPROBED;
    return {
      label: `#${r.snapshotIndex} ${r.imageVersion}`,
      verdict: r.verdict ?? `REFUSED ${r.verification ?? ''}`.trim(),
      claims: [
        ...r.kept.map((claimId) => ({ claimId, state: ClaimStates.RETAINED })),
        ...r.reprobed.map((claimId) => ({ claimId, state: state(claimId) })),
      ].sort((a, b) => a.claimId.localeCompare(b.claimId)),
      driftedKeys: [...r.mattered].sort(),
    };
  });
}

/**
 * The demo's report page (docs/demo.md, "The report"): one section per lineage, read back from
 * the stack and verified by the client after the run (so the edited record shows as
 * `HASH_MISMATCH`), with the recalls the demo's client verified as the heatmap's columns, the
 * receipt checked offline, and the count of recalls proven against signed checkpoints.
 */
export async function demoReportPage(
  summary: DemoSummary,
  read: LineageReportReader,
  nowMs: number,
): Promise<ReportPage> {
  const lineages: LineageReport[] = [];
  for (const { lineageId } of summary.lineages) {
    const recalls = summary.recalls.filter((r) => r.lineageId === lineageId);
    const proven = recalls.filter((r) => r.proven).length;
    const checkpoints = [
      {
        label: 'recalls proven by inclusion in a vouched-for tree',
        size: null,
        state: proven === recalls.length ? 'VERIFIED_INTACT' : 'UNVERIFIED_TAMPER_RISK',
        detail: `${proven} of ${recalls.length} recalls: what vouches for the tree (the index under the deployment checkpoint, or a signed lineage checkpoint), its consistency and the inclusion proof, checked by the client`,
      },
      ...(summary.receipt.lineageId === lineageId
        ? [
            {
              label: `receipt for seq ${summary.receipt.seq}, checked offline`,
              size: summary.receipt.checkpointSize,
              state: summary.receipt.verdict,
              detail: summary.receipt.reason,
            },
          ]
        : []),
    ];
    lineages.push(await read(lineageId, { recalls: demoRecallColumns(recalls), checkpoints }));
  }
  return {
    title: `Reseal demo: ${summary.series}`,
    subtitle: `${summary.snapshots.count} snapshots (#${summary.snapshots.firstIndex} ${summary.snapshots.firstDate} to #${summary.snapshots.lastIndex} ${summary.snapshots.lastDate}), run ${summary.runId} on ${summary.endpoint}`,
    generatedAtMs: nowMs,
    lineages,
  };
}
