import type { WriteOutcome } from '../../client/write-outcomes';
import { FreshnessState } from '../../shared/integrator/record-freshness';
import { ExitCode } from '../exit-codes';

/**
 * Exit code of a write's outcome (docs/cli.md, `publish --wait`): sealed → by its freshness
 * (`PROVEN` 0, or not checked: 0 in a signed lineage checkpoint, 3 in a head the sealer MAC'd;
 * `SEALED_AWAITING_INTEGRATION` 3, `INCONSISTENT` or `REFUSED` 20:
 * fail closed); rejected or in conflict → 10 (action needed).
 */
export function writeOutcomeExitCode(outcome: WriteOutcome): ExitCode {
  if (outcome.kind !== 'SEALED') return ExitCode.ACTION_NEEDED;
  // Unchecked freshness counts as proven only for a record proven in a signed lineage checkpoint:
  // a head the sealer MAC'd is its word alone, awaiting integration until the index proves it.
  const unchecked = outcome.checkpoint === null ? FreshnessState.SEALED_AWAITING_INTEGRATION : FreshnessState.PROVEN;
  switch (outcome.freshness?.state ?? unchecked) {
    case FreshnessState.PROVEN:
      return ExitCode.OK;
    case FreshnessState.SEALED_AWAITING_INTEGRATION:
      return ExitCode.AWAITING_INTEGRATION;
    default:
      return ExitCode.TAMPER;
  }
}
