import type { DeltaIsolationReport } from '../../shared/triage/delta-isolation-report';
import { fieldLines } from './field-lines';
import { nameList } from './name-list';

const NEXT_STEP: Record<DeltaIsolationReport['verdict'], string> = {
  NO_DRIFT: 'none: every claim stands',
  AMBIENT_DRIFT_ONLY: 'none: only ambient keys drifted; every claim stands',
  PARTIAL_REPROBE_REQUIRED: 're-probe the invalidated claims, then re-seal (supersedes this record)',
  FULL_RECONSTRUCTION_REQUIRED: 'rebuild the whole record from live ground truth',
};

/** The delta isolation report as readable text (`--json` prints its `DeltaShape`, client/shapes/delta-shape.ts). */
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
