/**
 * How long Lambda may hold a message before invoking once any batching window is set, seconds, when
 * the window is shorter: AWS's Lambda developer guide ("Using Lambda with Amazon SQS") says that
 * with a batch window and very low traffic Lambda might wait up to 20 s, even with a window under 20 s.
 */
export const LOW_TRAFFIC_BATCHING_WAIT_SECONDS = 20;
/**
 * The receipt age that must remain for each second the guard's batching window may hold a write:
 * the window may take at most a quarter of `maxReceiptAgeSeconds` (docs/infrastructure.md, "The
 * guard's batching window").
 */
export const RECEIPT_AGE_PER_GUARD_WAIT_SECOND = 4;

/**
 * The longest a write may wait in the guard's event source before the guard reads its clock,
 * seconds: 0 without a window, else the window or AWS's low-traffic wait, whichever is longer.
 */
export function guardBatchingWaitSeconds(windowSeconds: number): number {
  return windowSeconds > 0 ? Math.max(windowSeconds, LOW_TRAFFIC_BATCHING_WAIT_SECONDS) : 0;
}
