import type { WriteOutcome } from '../../client/write-outcomes';
import { FreshnessState } from '../../shared/integrator/record-freshness';
import { ExitCode } from '../exit-codes';

/**
 * Exit code of a write's outcome (docs/cli.md, `publish --wait`): sealed → by its freshness
 * (`PROVEN` or not checked 0, `SEALED_AWAITING_INTEGRATION` 3, `INCONSISTENT` or `REFUSED` 20:
 * fail closed); rejected or in conflict → 10 (action needed).
 */
export function writeOutcomeExitCode(outcome: WriteOutcome): ExitCode {
  if (outcome.kind !== 'SEALED') return ExitCode.ACTION_NEEDED;
  switch (outcome.freshness?.state ?? FreshnessState.PROVEN) {
    case FreshnessState.PROVEN:
      return ExitCode.OK;
    case FreshnessState.SEALED_AWAITING_INTEGRATION:
      return ExitCode.AWAITING_INTEGRATION;
    default:
      return ExitCode.TAMPER;
  }
}
