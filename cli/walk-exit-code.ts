import { VerificationVerdict } from '../shared/seal/verification-verdict';
import { ExitCode } from './exit-codes';

/**
 * Exit code of a whole-lineage walk (docs/cli.md, "Exit codes"): 0 when `VERIFIED_INTACT`; 3 when
 * the only thing short of it is records sealed past the tree head the index holds (`awaitingFromSeq`,
 * sealed, awaiting integration: not tampering); else 20.
 */
export function walkExitCode(verdict: VerificationVerdict, awaitingFromSeq: number | null): ExitCode {
  if (verdict === VerificationVerdict.VERIFIED_INTACT) return ExitCode.OK;
  return awaitingFromSeq === null ? ExitCode.TAMPER : ExitCode.AWAITING_INTEGRATION;
}
