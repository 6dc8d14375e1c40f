import type { WriterBlock } from './writer-block';

/** Oldest `signedAtMs` the guard accepts, in ms before the message's SQS `SentTimestamp` (15 minutes). */
export const MAX_SIGNATURE_AGE_MS = 15 * 60 * 1000;
/** Furthest `signedAtMs` may lie after the message's SQS `SentTimestamp`, in ms (5 minutes of clock skew). */
export const MAX_SIGNATURE_FUTURE_MS = 5 * 60 * 1000;

/**
 * Why a signature's time is refused against the time SQS received the message, or `null`:
 * older than {@link MAX_SIGNATURE_AGE_MS}, or more than {@link MAX_SIGNATURE_FUTURE_MS} ahead.
 */
export function signatureAgeProblem(writer: Pick<WriterBlock, 'signedAtMs'>, receivedAtMs: number): string | null {
  const ageMs = receivedAtMs - writer.signedAtMs;
  if (ageMs > MAX_SIGNATURE_AGE_MS) {
    return `the writer signed ${ageMs} ms before the queue received the message; at most ${MAX_SIGNATURE_AGE_MS} ms (a replayed write)`;
  }
  if (-ageMs > MAX_SIGNATURE_FUTURE_MS) {
    return `signedAtMs lies ${-ageMs} ms after the queue received the message; at most ${MAX_SIGNATURE_FUTURE_MS} ms of clock skew`;
  }
  return null;
}
