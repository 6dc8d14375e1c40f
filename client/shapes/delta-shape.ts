import { z } from 'zod';
import { type DeltaIsolationReport, DeltaVerdict } from '../../shared/triage/delta-isolation-report';

/** `format` of a {@link DeltaShape}: bumped only when a field changes meaning or goes away. */
export const DELTA_FORMAT = 'reseal.delta/1';

/**
 * A delta isolation report (docs/triage.md, "The report"): the shape `reseal triage --json`
 * prints, and the `delta` of a recall (`reseal recall --json`, `reseal_recall`), camelCase,
 * `format` `reseal.delta/1`. The drifted keys are flat (`changed`, `vanished`, `appeared`; the
 * library's `driftedKeys`), every list sorted as the core sorts it. Act by `verdict`:
 * `NO_DRIFT` and `AMBIENT_DRIFT_ONLY` keep every claim, `PARTIAL_REPROBE_REQUIRED` re-probes
 * `invalidatedClaims`, `FULL_RECONSTRUCTION_REQUIRED` rebuilds the record.
 */
export const DeltaShape = z.object({
  format: z.literal(DELTA_FORMAT),
  verdict: z.enum(DeltaVerdict),
  /** Whether the environment's composite seal still matches the manifest's (docs/triage.md, "Verdicts and rules"). */
  sealIntact: z.boolean(),
  changed: z.array(z.string()),
  vanished: z.array(z.string()),
  appeared: z.array(z.string()),
  structuralDrift: z.array(z.string()),
  unattributedKeys: z.array(z.string()),
  retainedClaims: z.array(z.string()),
  invalidatedClaims: z.array(z.string()),
  reason: z.string(),
});
/** Type of {@link DeltaShape}. */
export type DeltaShape = z.infer<typeof DeltaShape>;

/** The {@link DeltaShape} of a delta isolation report. */
export function deltaShape(report: DeltaIsolationReport): DeltaShape {
  return {
    format: DELTA_FORMAT,
    verdict: report.verdict,
    sealIntact: report.sealIntact,
    changed: [...report.driftedKeys.changed],
    vanished: [...report.driftedKeys.vanished],
    appeared: [...report.driftedKeys.appeared],
    structuralDrift: [...report.structuralDrift],
    unattributedKeys: [...report.unattributedKeys],
    retainedClaims: [...report.retainedClaims],
    invalidatedClaims: [...report.invalidatedClaims],
    reason: report.reason,
  };
}
