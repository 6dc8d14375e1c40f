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

/**
 * The poll loop of every wait: calls `attempt` until it returns a value other than `null`, sleeping
 * `pollIntervalMs` between calls (never past the deadline); once `timeoutMs` have passed since the
 * start and an attempt still found nothing, throws what `timedOut(timeoutMs)` returns. `attempt`
 * runs at least once, and once more at the deadline. Errors `attempt` throws end the wait.
 *
 * @example
 * const report = await pollUntil(() => store.getTriageReport(lineageId, requestId), clock, {
 *   ...options,
 *   timedOut: (ms) => new TimeoutError(`triage report ${requestId}`, ms),
 * });
 */
export async function pollUntil<T>(
  attempt: () => Promise<T | null>,
  clock: PollClock,
  options: WaitOptions & { readonly timedOut: (timeoutMs: number) => Error },
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS;
  const pollIntervalMs = options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
  const deadline = clock.nowMs() + timeoutMs;
  for (;;) {
    const found = await attempt();
    if (found !== null) return found;
    const left = deadline - clock.nowMs();
    if (left <= 0) throw options.timedOut(timeoutMs);
    await clock.sleep(Math.min(pollIntervalMs, left));
  }
}
