import type { DeltaIsolationReport } from '../../shared/triage/delta-isolator';
import { fieldLines } from './field-lines';
import { nameList } from './name-list';

/**
 * The delta isolation report for `--json`: snake_case keys (`verdict`,
 * `drifted_keys`, `retained_claims`, `invalidated_claims`; docs/cli.md, "`reseal triage`"). Every array
 * is sorted, as in the core's report. Stable: fields are only ever added.
 */
export function triageReportJson(report: DeltaIsolationReport) {
  return {
    format_version: report.formatVersion,
    verdict: report.verdict,
    seal_intact: report.sealIntact,
    drifted_keys: {
      changed: report.driftedKeys.changed,
      vanished: report.driftedKeys.vanished,
      appeared: report.driftedKeys.appeared,
    },
    structural_drift: report.structuralDrift,
    unattributed_keys: report.unattributedKeys,
    retained_claims: report.retainedClaims,
    invalidated_claims: report.invalidatedClaims,
    reason: report.reason,
  };
}

const NEXT_STEP: Record<DeltaIsolationReport['verdict'], string> = {
  NO_DRIFT: 'none: every claim stands',
  AMBIENT_DRIFT_ONLY: 'none: only ambient keys drifted; every claim stands',
  PARTIAL_REPROBE_REQUIRED: 're-probe the invalidated claims, then re-seal (supersedes this record)',
  FULL_RECONSTRUCTION_REQUIRED: 'rebuild the whole record from live ground truth',
};

/** The delta isolation report as readable text. */
export function triageReportText(report: DeltaIsolationReport): string {
  const { changed, vanished, appeared } = report.driftedKeys;
  return fieldLines([
    ['verdict', report.verdict],
    ['precondition seal', report.sealIntact ? 'intact' : 'broken'],
    ['changed keys', nameList(changed)],
    ['vanished keys', nameList(vanished)],
    ['appeared keys', nameList(appeared)],
    ['structural drift', nameList(report.structuralDrift)],
    ['unattributed keys', nameList(report.unattributedKeys)],
    [`retained claims (${report.retainedClaims.length})`, nameList(report.retainedClaims)],
    [`invalidated claims (${report.invalidatedClaims.length})`, nameList(report.invalidatedClaims)],
    ['reason', report.reason],
    ['next step', NEXT_STEP[report.verdict]],
  ]);
}
