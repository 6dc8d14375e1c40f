/** The longest a wait goes between two reads of a write's refusals before it shows, ms (the backoff's cap). */
export const MAX_REFUSAL_CHECK_INTERVAL_MS = 4_000;

/**
 * When a wait whose write does not show yet reads its refusals (docs/pipeline.md, "Polling the
 * table"): refusals are rare and cost two `Query`s a read, the marker one `GetItem`, so every poll
 * reads the marker but the refusals only at the first poll, then after twice the poll interval,
 * doubling to {@link MAX_REFUSAL_CHECK_INTERVAL_MS} (1 s, 2 s, 4 s, then every 4 s at the default
 * 500 ms). A write refused is so answered at most that cap (and a poll) after its refusal
 * landed. The schedule only delays the answer, never changes it: the deadline's attempt reads
 * the refusals whatever is due (the caller's rule).
 */
export class RefusalChecks {
  #dueAtMs = Number.NEGATIVE_INFINITY;
  #everyMs: number;

  /** @param pollIntervalMs the wait's poll interval, ms */
  constructor(pollIntervalMs: number) {
    this.#everyMs = Math.min(2 * pollIntervalMs, MAX_REFUSAL_CHECK_INTERVAL_MS);
  }

  /**
   * Whether a poll at `nowMs` reads the refusals; when it does, the next read is scheduled
   * (the interval doubling to the cap).
   */
  due(nowMs: number): boolean {
    if (nowMs < this.#dueAtMs) return false;
    this.#dueAtMs = nowMs + this.#everyMs;
    this.#everyMs = Math.min(2 * this.#everyMs, MAX_REFUSAL_CHECK_INTERVAL_MS);
    return true;
  }
}
