/** Appends tried per run of messages when the head keeps moving (lost races), before conflicts are recorded. */
export const MAX_APPEND_ATTEMPTS = 5;

/** First lost-race backoff ceiling, ms: retry `n` waits a random time in [0, min(cap, base × 2^(n−1))) ("full jitter"). */
export const APPEND_RETRY_BASE_MS = 20;
/** Largest lost-race backoff ceiling, ms (five attempts wait at most 20 + 40 + 80 + 160 ms). */
export const APPEND_RETRY_CAP_MS = 500;

/** How the sealer waits between lost-race attempts (injected in tests). */
export interface BackoffClock {
  /** @default `setTimeout` */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Uniform in [0, 1), for the jitter. @default `Math.random` */
  readonly random?: () => number;
}

/**
 * Waits before lost-race attempt `attempt + 1`: full jitter on an exponential ceiling, so
 * concurrent writers to one lineage spread out instead of colliding again.
 */
export async function appendBackoff(attempt: number, clock: BackoffClock): Promise<void> {
  const ceiling = Math.min(APPEND_RETRY_CAP_MS, APPEND_RETRY_BASE_MS * 2 ** (attempt - 1));
  const ms = Math.floor((clock.random ?? Math.random)() * ceiling);
  await (clock.sleep ?? ((delay) => new Promise<void>((resolve) => setTimeout(resolve, delay))))(ms);
}
