import type { TrustedHead } from '../shared/seal/trusted-head';
import type { LogCheck } from './log-check';
import type { VerifyOutput } from './outputs/verify-output';

/** Where the walk's tail check came from (`tailCheckedAgainst.source` of the answer). */
export type TailSource = NonNullable<VerifyOutput['tailCheckedAgainst']>['source'];

/**
 * The head a walk checked the stored tail against: the caller's, else the last record of the tree
 * head the walk was tied to (the signed lineage checkpoint, or the index entry).
 */
export function tailCheckpoint(
  caller: TrustedHead | undefined,
  log: LogCheck,
): { readonly head: TrustedHead; readonly source: TailSource } | null {
  if (caller) return { head: caller, source: 'caller' };
  if (!log.signedHead) return null;
  return { head: log.signedHead, source: log.treeHead?.vouchedBy === 'index' ? 'index' : 'signed-checkpoint' };
}
