/** Rounds of a batch call before the keys or items still unprocessed fail it (the caller's message or batch is then retried whole). */
export const MAX_UNPROCESSED_ROUNDS = 8;

/** The first retry's backoff bound, ms: round `r` waits below `UNPROCESSED_RETRY_BASE_MS · 2^r` (full jitter). */
export const UNPROCESSED_RETRY_BASE_MS = 25;

/** The largest backoff bound, ms, whatever the round. */
export const UNPROCESSED_RETRY_CAP_MS = 1_000;

/** Thrown when a batch call still leaves work unprocessed after {@link MAX_UNPROCESSED_ROUNDS} rounds. */
export class UnprocessedAfterRetriesError extends Error {
  override readonly name = 'UnprocessedAfterRetriesError';
  /** @param what - what was left, for the message (e.g. "index tile reads") */
  constructor(
    what: string,
    readonly left: number,
  ) {
    super(`${what}: ${left} left unprocessed after ${MAX_UNPROCESSED_ROUNDS} rounds`);
  }
}

/**
 * Calls `round` with `pending`, then again with what it reports left unprocessed, until nothing is
 * left: DynamoDB's `BatchGetItem` `UnprocessedKeys` and `BatchWriteItem` `UnprocessedItems`, which
 * the service returns under throttling or its 16 MB response bound and which the caller must send
 * again. Waits before each retry with exponential backoff and full jitter (25 ms · 2^round, at most
 * 1 s), as AWS advises for these calls.
 *
 * Hand-written because the SDK has nothing for it: `@aws-sdk/client-dynamodb` has paginators for
 * `Query`, `Scan` and the `List*` operations only (none for `BatchGetItem` or `BatchWriteItem`),
 * `@aws-sdk/lib-dynamodb` adds none, and the SDK's retry strategy (`@smithy/util-retry`) retries
 * failed requests, never a successful answer that leaves keys unprocessed.
 *
 * @param pending - the keys or write requests of one call (at most the operation's per-call limit)
 * @param round - sends one call; resolves to the part of its input left unprocessed (empty when none)
 * @param what - names the work in the error
 * @throws {UnprocessedAfterRetriesError} when some are still unprocessed after {@link MAX_UNPROCESSED_ROUNDS} rounds
 */
export async function retryUnprocessed<T>(
  pending: readonly T[],
  round: (pending: readonly T[]) => Promise<readonly T[]>,
  what: string,
): Promise<void> {
  let left = pending;
  for (let attempt = 0; left.length > 0; attempt += 1) {
    if (attempt >= MAX_UNPROCESSED_ROUNDS) throw new UnprocessedAfterRetriesError(what, left.length);
    if (attempt > 0) await backoff(attempt);
    left = await round(left);
  }
}

/** Waits a random time in [0, min(1 s, 25 ms · 2^attempt)) (full jitter). */
function backoff(attempt: number): Promise<void> {
  const ms = Math.random() * Math.min(UNPROCESSED_RETRY_CAP_MS, UNPROCESSED_RETRY_BASE_MS * 2 ** attempt);
  return new Promise((resolve) => setTimeout(resolve, ms));
}
