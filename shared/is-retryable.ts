import { ResealError } from './errors';

/** Whether `error` is a {@link ResealError} that says a retry can help (see {@link ResealError.retryable}). */
export function isRetryable(error: unknown): boolean {
  return error instanceof ResealError && error.retryable;
}
