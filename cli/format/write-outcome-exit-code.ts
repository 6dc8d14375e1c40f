import type { WriteOutcome } from '../../client/write-outcomes';
import { ExitCode } from '../exit-codes';

/** Exit code of a write's outcome: 0 sealed; 10 (action needed) rejected or in conflict. */
export function writeOutcomeExitCode(outcome: WriteOutcome): ExitCode {
  return outcome.kind === 'SEALED' ? ExitCode.OK : ExitCode.ACTION_NEEDED;
}
