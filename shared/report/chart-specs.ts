import { isoTime } from '../iso-time';
import { VerificationVerdict } from '../seal/verification-verdict';
import { ClaimState } from './claim-state';
import type { LineageReport } from './report-page';

/** One chart of a report page: a Vega-Lite spec (plain JSON) and what it draws. */
export interface ChartSpec {
  /** `timeline`, `refusals`, `claims` or `drift`. */
  readonly kind: 'timeline' | 'refusals' | 'claims' | 'drift';
  readonly title: string;
  /** A Vega-Lite v6 specification; the data are inline values. */
  readonly spec: Record<string, unknown>;
}

const SCHEMA = 'https://vega.github.io/schema/vega-lite/v6.json';
const VERDICT_DOMAIN = Object.values(VerificationVerdict);
const VERDICT_RANGE = ['#2e7d32', '#c62828', '#ad1457', '#6a1b9a', '#ef6c00', '#4e342e'];
const CLAIM_DOMAIN = [ClaimState.RETAINED, ClaimState.REPROBED, ClaimState.INVALIDATED];
const CLAIM_RANGE = ['#81c784', '#ffb74d', '#e57373'];

/**
 * The charts of one lineage, each left out when it would be empty (docs/cli.md, "reseal report"):
 *
 * - `timeline`: one point per record with a seq and epoch (x seq, y generation epoch, colour its
 *   verification verdict) and one rule per supersession between two such records;
 * - `refusals`: one point per rejection or conflict (x time, y kind, colour its signature check);
 * - `claims`: the heatmap, one cell per claim per recall (colour retained / re-probed / invalidated);
 * - `drift`: one bar per drifted key, its length the number of recalls it drifted at.
 */
export function chartSpecs(lineage: LineageReport): ChartSpec[] {
  const charts: ChartSpec[] = [];
  const points = lineage.records.filter((r) => r.seq !== null && r.generationEpoch !== null);
  if (points.length > 0) {
    const bySeq = new Map(points.map((r) => [r.seq, r]));
    const links = points.flatMap((r) => {
      const old = r.supersedesSeq === null ? undefined : bySeq.get(r.supersedesSeq);
      return old ? [{ fromSeq: old.seq, fromEpoch: old.generationEpoch, seq: r.seq, epoch: r.generationEpoch }] : [];
    });
    charts.push({
      kind: 'timeline',
      title: 'Records: seq by generation epoch; a line joins a record to the one it supersedes',
      spec: {
        $schema: SCHEMA,
        width: 640,
        height: 200,
        layer: [
          {
            data: { values: links },
            mark: { type: 'rule', color: '#90a4ae', strokeWidth: 2 },
            encoding: {
              x: { field: 'fromSeq', type: 'quantitative', title: 'seq' },
              x2: { field: 'seq' },
              y: { field: 'fromEpoch', type: 'quantitative', title: 'generation epoch' },
              y2: { field: 'epoch' },
            },
          },
          {
            data: {
              values: points.map((r) => ({
                seq: r.seq,
                epoch: r.generationEpoch,
                verification: r.verification,
                residualId: r.residualId ?? '?',
                sealedAt: r.sealedAtMs === null ? '?' : isoTime(r.sealedAtMs),
              })),
            },
            mark: { type: 'point', filled: true, size: 90 },
            encoding: {
              x: { field: 'seq', type: 'quantitative', axis: { tickMinStep: 1, format: 'd' } },
              y: { field: 'epoch', type: 'quantitative', axis: { tickMinStep: 1, format: 'd' } },
              color: {
                field: 'verification',
                type: 'nominal',
                title: 'verification',
                scale: { domain: VERDICT_DOMAIN, range: VERDICT_RANGE },
              },
              tooltip: [
                { field: 'seq', type: 'quantitative' },
                { field: 'epoch', type: 'quantitative' },
                { field: 'residualId', type: 'nominal' },
                { field: 'sealedAt', type: 'nominal' },
                { field: 'verification', type: 'nominal' },
              ],
            },
          },
        ],
      },
    });
  }
  if (lineage.refusals.length > 0) {
    charts.push({
      kind: 'refusals',
      title: 'Refusals (guard rejections) and conflicts (sealer), by time',
      spec: {
        $schema: SCHEMA,
        width: 640,
        height: 80,
        data: {
          values: lineage.refusals.map((r) => ({
            atMs: r.atMs,
            kind: r.kind,
            reason: r.reason,
            residualId: r.residualId ?? '?',
            signature: r.signatureVerified === null ? 'not checked' : r.signatureVerified ? 'verified' : 'NOT verified',
          })),
        },
        mark: { type: 'point', filled: true, size: 110, shape: 'diamond' },
        encoding: {
          x: { field: 'atMs', type: 'temporal', title: 'time (UTC)', scale: { nice: false } },
          y: { field: 'kind', type: 'nominal', title: null },
          color: {
            field: 'signature',
            type: 'nominal',
            scale: { domain: ['verified', 'NOT verified', 'not checked'], range: ['#2e7d32', '#c62828', '#9e9e9e'] },
          },
          tooltip: [
            { field: 'kind', type: 'nominal' },
            { field: 'reason', type: 'nominal' },
            { field: 'residualId', type: 'nominal' },
            { field: 'signature', type: 'nominal' },
          ],
        },
      },
    });
  }
  const cells = lineage.recalls.flatMap((recall, column) =>
    recall.claims.map((c) => ({ column, recall: recall.label, verdict: recall.verdict ?? '-', ...c })),
  );
  if (cells.length > 0) {
    charts.push({
      kind: 'claims',
      title: 'Claims by recall: retained, re-probed, invalidated',
      spec: {
        $schema: SCHEMA,
        data: { values: cells },
        mark: { type: 'rect', stroke: 'white', strokeWidth: 1 },
        encoding: {
          x: {
            field: 'recall',
            type: 'ordinal',
            title: 'recall',
            sort: lineage.recalls.map((r) => r.label),
            axis: { labelAngle: -45 },
          },
          y: { field: 'claimId', type: 'nominal', title: 'claim', sort: 'ascending' },
          color: {
            field: 'state',
            type: 'nominal',
            title: 'claim',
            scale: { domain: CLAIM_DOMAIN, range: CLAIM_RANGE },
          },
          tooltip: [
            { field: 'recall', type: 'ordinal' },
            { field: 'claimId', type: 'nominal' },
            { field: 'state', type: 'nominal' },
            { field: 'verdict', type: 'nominal' },
          ],
        },
        config: { axis: { grid: false }, view: { step: 18 } },
      },
    });
  }
  const driftCounts = new Map<string, number>();
  for (const recall of lineage.recalls) {
    for (const key of recall.driftedKeys) driftCounts.set(key, (driftCounts.get(key) ?? 0) + 1);
  }
  if (driftCounts.size > 0) {
    charts.push({
      kind: 'drift',
      title: 'Keys that drifted and mattered, by number of recalls',
      spec: {
        $schema: SCHEMA,
        width: 400,
        data: { values: [...driftCounts].map(([key, recalls]) => ({ key, recalls })) },
        mark: { type: 'bar', color: '#5c6bc0' },
        encoding: {
          y: { field: 'key', type: 'nominal', title: 'key', sort: '-x' },
          x: { field: 'recalls', type: 'quantitative', title: 'recalls', axis: { tickMinStep: 1, format: 'd' } },
          tooltip: [
            { field: 'key', type: 'nominal' },
            { field: 'recalls', type: 'quantitative' },
          ],
        },
      },
    });
  }
  return charts;
}
