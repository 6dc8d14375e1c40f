import type { TrustedHead } from '../shared/seal/chain-verification';
import type { LogCheck } from './log-check';
import type { VerifyOutput } from './outputs/verify-output';

/** Where the walk's tail check came from (`tailCheckedAgainst.source` of the answer). */
export type TailSource = NonNullable<VerifyOutput['tailCheckedAgainst']>['source'];

/** The head a walk checks the stored tail against: the caller's, else the signed log's last record. */
export function tailCheckpoint(
  caller: TrustedHead | undefined,
  log: LogCheck,
): { readonly head: TrustedHead; readonly source: TailSource } | null {
  if (caller) return { head: caller, source: 'caller' };
  return log.signedHead ? { head: log.signedHead, source: 'signed-checkpoint' } : null;
}
