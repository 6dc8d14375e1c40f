/** Options of a wait that polls the table ({@link pollUntil}). */
export interface WaitOptions {
  /** Give up after this many milliseconds (default 60,000). */
  readonly timeoutMs?: number;
  /** Poll the table this often, in milliseconds (default 500). */
  readonly pollIntervalMs?: number;
}

/** Default of {@link WaitOptions.timeoutMs}, ms. */
export const DEFAULT_WAIT_TIMEOUT_MS = 60_000;
/** Default of {@link WaitOptions.pollIntervalMs}, ms. */
export const DEFAULT_POLL_INTERVAL_MS = 500;

/** The clock a poll runs on (injected, so tests run without real time). */
export interface PollClock {
  /** ms since the Unix epoch. */
  readonly nowMs: () => number;
  /** Waits `ms` milliseconds. */
  readonly sleep: (ms: number) => Promise<void>;
}

/** What an attempt of {@link pollUntil} is told about itself. */
export interface PollAttempt {
  /**
   * This is the last attempt: the deadline has come (or the wait has no time left). A wait that
   * skips work between attempts on a cheap trigger does all of it here, so the deadline's answer
   * never rests on the trigger.
   */
  readonly final: boolean;
}

/**
 * The poll loop of every wait: calls `attempt` until it returns a value other than `null`, sleeping
 * `pollIntervalMs` between calls (never past the deadline); once `timeoutMs` have passed since the
 * start and an attempt still found nothing, throws what `timedOut(timeoutMs)` returns. `attempt`
 * runs at least once, and once more at the deadline, that one told it is `final` (the wait never
 * ends on an attempt that was not). Errors `attempt` throws end the wait.
 *
 * @example
 * const report = await pollUntil(() => store.getTriageReport(lineageId, requestId), clock, {
 *   ...options,
 *   timedOut: (ms) => new TimeoutError(`triage report ${requestId}`, ms),
 * });
 */
export async function pollUntil<T>(
  attempt: (poll: PollAttempt) => Promise<T | null>,
  clock: PollClock,
  options: WaitOptions & { readonly timedOut: (timeoutMs: number) => Error },
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS;
  const pollIntervalMs = options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
  const deadline = clock.nowMs() + timeoutMs;
  // The first attempt is the last when there is no time; after a sleep that reached the deadline, the next is.
  let final = timeoutMs <= 0;
  for (;;) {
    const found = await attempt({ final });
    if (found !== null) return found;
    const left = deadline - clock.nowMs();
    if (left <= 0) {
      if (final) throw options.timedOut(timeoutMs);
      // The deadline passed during an attempt not told it was the last (a slow read): one more that is.
      final = true;
      continue;
    }
    final = left <= pollIntervalMs;
    await clock.sleep(Math.min(pollIntervalMs, left));
  }
}
