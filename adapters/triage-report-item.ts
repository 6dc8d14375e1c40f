import type { TriageCompletedDetail } from '../shared/pipeline/triage-completed-detail';
import { type Item, itemOf } from './item';
import { LineageKeys } from './lineage-keys';
import { NOT_JSON, readStoredJson, readString } from './read-attribute';

/** The item of a triage report: the report as JSON text, with its outcome and verdicts beside it (docs/pipeline.md, "Data layout"). */
export function triageReportItem(report: TriageCompletedDetail): Item {
  return itemOf({
    pk: LineageKeys.triage(report.lineageId),
    sk: report.requestId,
    report: JSON.stringify(report),
    outcome: report.outcome,
    verification: report.verification?.verdict,
    verdict: report.report?.verdict,
  });
}

/** A stored triage report as stored (unverified: parse it with `TriageCompletedDetailSchema`); text that does not parse stays text. */
export function triageReportOf(item: Item | undefined): TriageCompletedDetail | null {
  const text = readString(item, 'report');
  if (text === undefined) return null;
  const value = readStoredJson(text);
  return (value === NOT_JSON ? text : value) as TriageCompletedDetail;
}
