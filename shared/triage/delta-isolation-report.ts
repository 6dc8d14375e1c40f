import { z } from 'zod';
import { FORMAT_VERSION } from '../canonical/hash-domain';
import { wellFormedString } from '../schemas/well-formed-string';
import { SortedUniqueKeys } from './sorted-unique-keys';

/**
 * Outcome of differential seal triage (docs/triage.md, "Verdicts and rules, in the order `isolateDelta` applies them").
 * - `NO_DRIFT`: the composite seal is intact; every claim stands.
 * - `AMBIENT_DRIFT_ONLY`: the seal broke, but no structural or causal key drifted.
 * - `PARTIAL_REPROBE_REQUIRED`: some claims touch drifted keys; re-probe exactly those.
 * - `FULL_RECONSTRUCTION_REQUIRED`: rebuild the whole record from live ground truth.
 */
export const DeltaVerdict = {
  NO_DRIFT: 'NO_DRIFT',
  AMBIENT_DRIFT_ONLY: 'AMBIENT_DRIFT_ONLY',
  PARTIAL_REPROBE_REQUIRED: 'PARTIAL_REPROBE_REQUIRED',
  FULL_RECONSTRUCTION_REQUIRED: 'FULL_RECONSTRUCTION_REQUIRED',
} as const;

/** One of {@link DeltaVerdict}. */
export type DeltaVerdict = (typeof DeltaVerdict)[keyof typeof DeltaVerdict];

/**
 * Schema of a {@link DeltaIsolationReport} (strict). Every array is sorted in UTF-16 code-unit
 * order and duplicate-free, so the report's canonical form (and `triageReportDigest`, triage-report-digest.ts) does
 * not depend on the order keys arrived in.
 */
export const DeltaIsolationReportSchema = z.strictObject({
  formatVersion: z.literal(FORMAT_VERSION),
  verdict: z.enum(DeltaVerdict),
  sealIntact: z.boolean(),
  driftedKeys: z.strictObject({ changed: SortedUniqueKeys, vanished: SortedUniqueKeys, appeared: SortedUniqueKeys }),
  structuralDrift: SortedUniqueKeys,
  unattributedKeys: SortedUniqueKeys,
  retainedClaims: SortedUniqueKeys,
  invalidatedClaims: SortedUniqueKeys,
  reason: wellFormedString(4096).min(1),
});

/**
 * Result of `isolateDelta` (isolate-delta.ts; docs/triage.md, "The report").
 * - `driftedKeys.changed` / `vanished` / `appeared`: keys whose hash differs from the baseline,
 *   baseline keys absent now, current keys absent from the baseline.
 * - `structuralDrift`: structural keys that changed or vanished, or were declared absent and appeared.
 * - `unattributedKeys`: structural or causal keys with no entry in `baselineKeyHashes` that the
 *   manifest does not declare absent either.
 * - `invalidatedClaims`: claims to re-probe (all claims on `FULL_RECONSTRUCTION_REQUIRED`);
 *   `retainedClaims`: claims that stand without re-probing.
 */
export type DeltaIsolationReport = z.infer<typeof DeltaIsolationReportSchema>;
