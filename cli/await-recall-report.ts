import { TimeoutError } from '../client/errors';
import { CliError } from './errors';
import { ExitCode } from './exit-codes';

/**
 * The error `reseal recall` reports when no triage answer arrived in time (exit 1). Triage may be
 * slow or failing, or its answer may have been deleted from the table after it wrote it (a table
 * writer can delay an answer, never change it: docs/verifiable-log.md, "Signed outcomes"): the
 * `TriageCompleted` event on the stack's bus carries the answer too.
 *
 * @param timeoutMs - how long was waited, in milliseconds
 */
export function recallTimeoutError(requestId: string, timeoutMs: number, cause: unknown): CliError {
  const seconds = Number((timeoutMs / 1000).toFixed(3));
  return new CliError(
    `no triage report for ${requestId} within ${seconds} s: the triage function may be slow or failing, or its answer may have been deleted from the table; the TriageCompleted event on the stack's bus carries the answer too (recall again, or check the triage function's logs)`,
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
