import { pollUntil } from '../../client/poll';

/** Options of {@link until}. */
export interface UntilOptions {
  /** Give up after this many milliseconds (default 90,000: emulator Lambdas start cold). */
  readonly timeoutMs?: number;
  /** Poll this often, in milliseconds (default 250). */
  readonly pollIntervalMs?: number;
  /** Appended to the time-out message, e.g. the state the test saw last. */
  readonly state?: () => string;
}

const realClock = {
  nowMs: () => Date.now(),
  sleep: (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)),
};

/**
 * The integration tests' wait on the real clock, through the client's one poll loop
 * (client/poll.ts): calls `probe` until it returns a value other than `undefined`.
 *
 * @throws {Error} `timed out after N ms waiting for <what>` (and the state), once the time is up
 */
export function until<T>(what: string, probe: () => Promise<T | undefined>, options: UntilOptions = {}): Promise<T> {
  return pollUntil(async () => (await probe()) ?? null, realClock, {
    timeoutMs: options.timeoutMs ?? 90_000,
    pollIntervalMs: options.pollIntervalMs ?? 250,
    timedOut: (ms) =>
      new Error(`timed out after ${ms} ms waiting for ${what}${options.state ? `; ${options.state()}` : ''}`),
  });
}
