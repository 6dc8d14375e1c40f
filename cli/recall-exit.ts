import { TimeoutError } from '../client/errors';
import { type RecallTarget, RefusalCode, type TriageCompletedDetail, TriageOutcome } from '../shared/pipeline/messages';
import { VerificationVerdict } from '../shared/seal/verification-verdict';
import { deltaExitCode } from './commands/triage';
import { CliError } from './errors';
import { ExitCode } from './exit-codes';

/** Why a recall ended as it did, as `reseal recall` maps it to an exit code. */
export const RecallEnd = {
  /** Triaged: exit by the delta verdict (0 or 10). */
  TRIAGED: 'TRIAGED',
  /**
   * Refused: the chain is not `VERIFIED_INTACT` (tamper or unverifiable; code `VERIFICATION_FAILED`),
   * or the refusal carries no known code: exit 20.
   */
  NOT_INTACT: 'NOT_INTACT',
  /** Refused (`NOT_FOUND`): no record of the lineage has this seq / residual id, or the lineage is empty: exit 2. */
  NOT_FOUND: 'NOT_FOUND',
  /** Refused (`INVALID_REQUEST`): the triage function found the request invalid: exit 2. */
  INVALID_REQUEST: 'INVALID_REQUEST',
  /** Refused (`MANIFEST_UNTRIAGEABLE`) although the record verified: its manifest cannot be triaged (corrupt): exit 10. */
  UNTRIAGEABLE: 'UNTRIAGEABLE',
} as const;
/** One of {@link RecallEnd}. */
export type RecallEnd = (typeof RecallEnd)[keyof typeof RecallEnd];

/**
 * Classifies a `TriageCompleted` detail by its outcome, verification verdict and machine-readable
 * `refusalCode` (never by the human `refusalReason`): triaged; refused on a chain that is not
 * intact (a verification verdict other than `VERIFIED_INTACT` always wins, whatever the code);
 * refused because the request was invalid (`INVALID_REQUEST`); refused because the target does
 * not exist (`NOT_FOUND`); or refused on an intact record whose manifest cannot be triaged
 * (`MANIFEST_UNTRIAGEABLE`). A refusal without a known code (`VERIFICATION_FAILED`, a report
 * stored before codes existed, or a code this CLI does not know) is not trusted: `NOT_INTACT`.
 */
export function recallEnd(detail: TriageCompletedDetail): RecallEnd {
  const verdict = detail.verification?.verdict;
  if (verdict !== undefined && verdict !== VerificationVerdict.VERIFIED_INTACT) return RecallEnd.NOT_INTACT;
  if (detail.outcome === TriageOutcome.TRIAGED) {
    // A triaged report always carries an intact verification and a report; anything else is not trusted.
    return verdict === VerificationVerdict.VERIFIED_INTACT && detail.report ? RecallEnd.TRIAGED : RecallEnd.NOT_INTACT;
  }
  switch (detail.refusalCode) {
    case RefusalCode.INVALID_REQUEST:
      return RecallEnd.INVALID_REQUEST;
    case RefusalCode.NOT_FOUND:
      return RecallEnd.NOT_FOUND;
    case RefusalCode.MANIFEST_UNTRIAGEABLE:
      // Only an intact record can be called untriageable; without a verification it is not trusted.
      return verdict === VerificationVerdict.VERIFIED_INTACT ? RecallEnd.UNTRIAGEABLE : RecallEnd.NOT_INTACT;
    default:
      return RecallEnd.NOT_INTACT;
  }
}

/**
 * Exit code of a recall (`reseal recall`, documented in docs/cli.md):
 * - `TRIAGED` → 0 (`NO_DRIFT`, `AMBIENT_DRIFT_ONLY`) or 10 (re-probe or reconstruct);
 * - `REFUSED`, `VERIFICATION_FAILED` (or any verdict other than `VERIFIED_INTACT`) → 20 (tamper or unverifiable);
 * - `REFUSED`, `NOT_FOUND`: the record or lineage does not exist → 2 (bad input: unknown target);
 * - `REFUSED`, `INVALID_REQUEST` → 2;
 * - `REFUSED`, `MANIFEST_UNTRIAGEABLE` on an intact record → 10 (rebuild that memory);
 * - `REFUSED` without a known code → 20 (not trusted).
 */
export function recallExitCode(detail: TriageCompletedDetail): ExitCode {
  switch (recallEnd(detail)) {
    case RecallEnd.TRIAGED:
      return detail.report ? deltaExitCode(detail.report.verdict) : ExitCode.TAMPER;
    case RecallEnd.NOT_FOUND:
    case RecallEnd.INVALID_REQUEST:
      return ExitCode.BAD_INPUT;
    case RecallEnd.UNTRIAGEABLE:
      return ExitCode.ACTION_NEEDED;
    default:
      return ExitCode.TAMPER;
  }
}

/**
 * What a `NOT_FOUND` recall did not find, as the hint names it: the target asked for when it is
 * given (`--residual-id R` → `residual R`, `--seq N` → `seq N`, latest → none), else what the answer names (a
 * residual id before a seq: a residual id's marker may lead to a seq past the checkpoint, and the
 * caller asked for the residual), else `null` (the lineage has no record at all).
 */
function missingTarget(detail: TriageCompletedDetail, target: RecallTarget | undefined): string | null {
  if (target && 'latest' in target) return null;
  if (target && 'residualId' in target) return `residual ${target.residualId}`;
  if (target && 'seq' in target) return `seq ${target.seq}`;
  if (detail.residualId !== null && detail.residualId !== undefined) return `residual ${detail.residualId}`;
  if (detail.seq !== null && detail.seq !== undefined) return `seq ${detail.seq}`;
  return null;
}

/**
 * A one-line explanation of a refused recall for stderr, or `null` when it was triaged.
 *
 * @param target - the target the caller asked for (`reseal recall --seq / --residual-id`, or
 *   latest): a `NOT_FOUND` hint names it rather than what the stored answer says
 */
export function recallRefusalHint(detail: TriageCompletedDetail, target?: RecallTarget): string | null {
  switch (recallEnd(detail)) {
    case RecallEnd.NOT_FOUND: {
      const missing = missingTarget(detail, target);
      return `no such record: lineage ${detail.lineageId}${missing ? ` has no ${missing}` : ' has no sealed record'} (check --lineage, --seq, --residual-id)`;
    }
    case RecallEnd.INVALID_REQUEST:
      return `the triage function refused the request as invalid: ${detail.refusalReason}`;
    case RecallEnd.NOT_INTACT:
      if (detail.outcome === TriageOutcome.REFUSED && !isVerificationRefusal(detail)) {
        return `the triage function refused the recall with ${detail.refusalCode ? `refusal code ${detail.refusalCode}` : 'no refusal code'} (${detail.refusalReason ?? 'no reason'}): treat this memory as untrusted`;
      }
      return `the chain is not intact (${detail.verification?.verdict ?? 'no verification'}): no triage; treat this memory as untrusted`;
    case RecallEnd.UNTRIAGEABLE:
      return `the record verified but cannot be triaged (${detail.refusalReason}): rebuild this memory`;
    default:
      return null;
  }
}

/** Whether a refusal is explained by its verification: code `VERIFICATION_FAILED` or a verdict other than intact. */
function isVerificationRefusal(detail: TriageCompletedDetail): boolean {
  const verdict = detail.verification?.verdict;
  return (
    detail.refusalCode === RefusalCode.VERIFICATION_FAILED ||
    (verdict !== undefined && verdict !== VerificationVerdict.VERIFIED_INTACT)
  );
}

/**
 * The error `reseal recall` reports when no triage report arrived in time (exit 1).
 *
 * @param timeoutMs - how long was waited, in milliseconds
 */
export function recallTimeoutError(requestId: string, timeoutMs: number, cause: unknown): CliError {
  const seconds = Number((timeoutMs / 1000).toFixed(3));
  return new CliError(
    `no triage report for ${requestId} within ${seconds} s: is the stack deployed and the triage function healthy?`,
    ExitCode.UNEXPECTED,
    { cause },
  );
}

/**
 * Awaits the triage report of a recall; a {@link TimeoutError} becomes {@link recallTimeoutError}.
 *
 * @throws {CliError} (exit 1) when no report arrived within `timeoutMs`
 */
export async function awaitRecallReport<T>(requestId: string, timeoutMs: number, wait: Promise<T>): Promise<T> {
  try {
    return await wait;
  } catch (error) {
    if (error instanceof TimeoutError) throw recallTimeoutError(requestId, timeoutMs, error);
    throw error;
  }
}
