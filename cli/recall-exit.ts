import { TimeoutError } from '../client/errors';
import { type TriageCompletedDetail, TriageOutcome } from '../shared/schemas/messages';
import { VerificationVerdict } from '../shared/seal/verification-verdict';
import { deltaExitCode } from './commands/triage';
import { CliError } from './errors';
import { ExitCode } from './exit-codes';

/** Why a recall ended as it did, as `reseal recall` maps it to an exit code. */
export const RecallEnd = {
  /** Triaged: exit by the delta verdict (0 or 10). */
  TRIAGED: 'TRIAGED',
  /** Refused: the chain is not `VERIFIED_INTACT` (tamper or unverifiable): exit 20. */
  NOT_INTACT: 'NOT_INTACT',
  /** Refused: no record of the lineage has this seq / residual id, or the lineage is empty: exit 2. */
  NOT_FOUND: 'NOT_FOUND',
  /** Refused: the triage function found the request invalid: exit 2. */
  INVALID_REQUEST: 'INVALID_REQUEST',
  /** Refused although the record verified: its manifest cannot be triaged (corrupt): exit 10. */
  UNTRIAGEABLE: 'UNTRIAGEABLE',
} as const;
/** One of {@link RecallEnd}. */
export type RecallEnd = (typeof RecallEnd)[keyof typeof RecallEnd];

/** Refusal reasons of the triage function (functions/triage/triage-service.ts) for an unknown target. */
const NOT_FOUND_REASON = /^no such record in this lineage|^record \d+ is missing from the verified chain/;
/** Refusal reason prefix of the triage function for a `RecallRequested` detail it could not parse. */
const INVALID_REASON = /^invalid RecallRequested detail/;

/**
 * Classifies a `TriageCompleted` detail: triaged; refused on a chain that is not intact (a
 * verification verdict other than `VERIFIED_INTACT` always wins); refused because the request was
 * invalid; refused because the target does not exist (no record was verified, or the verified
 * chain does not hold it); or refused on an intact record whose manifest cannot be triaged.
 */
export function recallEnd(detail: TriageCompletedDetail): RecallEnd {
  const verdict = detail.verification?.verdict;
  if (verdict !== undefined && verdict !== VerificationVerdict.VERIFIED_INTACT) return RecallEnd.NOT_INTACT;
  if (detail.outcome === TriageOutcome.TRIAGED) {
    // A triaged report always carries an intact verification and a report; anything else is not trusted.
    return verdict === VerificationVerdict.VERIFIED_INTACT && detail.report ? RecallEnd.TRIAGED : RecallEnd.NOT_INTACT;
  }
  const reason = detail.refusalReason ?? '';
  if (INVALID_REASON.test(reason)) return RecallEnd.INVALID_REQUEST;
  if (verdict === undefined || NOT_FOUND_REASON.test(reason)) return RecallEnd.NOT_FOUND;
  return RecallEnd.UNTRIAGEABLE;
}

/**
 * Exit code of a recall (`reseal recall`, documented in docs/cli.md):
 * - `TRIAGED` → 0 (`NO_DRIFT`, `AMBIENT_DRIFT_ONLY`) or 10 (re-probe or reconstruct);
 * - `REFUSED` with a verification verdict other than `VERIFIED_INTACT` → 20 (tamper or unverifiable);
 * - `REFUSED` because the record or lineage does not exist → 2 (bad input: unknown target);
 * - `REFUSED` because the request was invalid → 2;
 * - `REFUSED` on an intact record whose manifest cannot be triaged → 10 (rebuild that memory).
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

/** A one-line explanation of a refused recall for stderr, or `null` when it was triaged. */
export function recallRefusalHint(detail: TriageCompletedDetail): string | null {
  switch (recallEnd(detail)) {
    case RecallEnd.NOT_FOUND: {
      const target =
        detail.seq !== null ? `seq ${detail.seq}` : detail.residualId !== null ? `residual ${detail.residualId}` : null;
      return `no such record: lineage ${detail.lineageId}${target ? ` has no ${target}` : ' has no sealed record'} (check --lineage, --seq, --residual-id)`;
    }
    case RecallEnd.INVALID_REQUEST:
      return `the triage function refused the request as invalid: ${detail.refusalReason}`;
    case RecallEnd.NOT_INTACT:
      return `the chain is not intact (${detail.verification?.verdict ?? 'no verification'}): no triage; treat this memory as untrusted`;
    case RecallEnd.UNTRIAGEABLE:
      return `the record verified but cannot be triaged (${detail.refusalReason}): rebuild this memory`;
    default:
      return null;
  }
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
