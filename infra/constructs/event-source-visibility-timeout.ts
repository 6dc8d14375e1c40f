import { Duration } from 'aws-cdk-lib';

/** AWS's advice for SQS event sources: visibility timeout at least six times the function timeout (plus the batching window). */
export const VISIBILITY_TO_TIMEOUT_RATIO = 6;

/**
 * The visibility timeout of a queue an SQS event source consumes: six times the function's timeout
 * plus the event source's batching window, as AWS's Lambda developer guide recommends ("Using Lambda
 * with Amazon SQS"), since a received message stays hidden while its batch gathers as well as while
 * the function runs and Lambda retries a throttled invocation.
 *
 * @param functionTimeout - the consuming function's timeout
 * @param batchingWindow - the event source's `MaximumBatchingWindowInSeconds`, none for 0
 */
export function eventSourceVisibilityTimeout(functionTimeout: Duration, batchingWindow?: Duration): Duration {
  return Duration.seconds(
    functionTimeout.toSeconds() * VISIBILITY_TO_TIMEOUT_RATIO + (batchingWindow?.toSeconds() ?? 0),
  );
}
