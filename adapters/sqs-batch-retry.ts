import { ChangeMessageVisibilityBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';

/**
 * Makes messages of one queue visible again after `seconds` (one `ChangeMessageVisibilityBatch`
 * per 10 messages), so a batch failed back for a reason that passes in seconds is received again
 * in seconds, not after the queue's visibility timeout (docs/deployment-log.md, "One integration
 * at a time"). `receiptHandles` are the batch's own, from its SQS event.
 *
 * @throws on an SQS failure (the messages then wait out the visibility timeout as before)
 */
export function sqsBatchRetry(client: Pick<SQSClient, 'send'>, queueUrl: string) {
  return async (receiptHandles: readonly string[], seconds: number): Promise<void> => {
    for (let i = 0; i < receiptHandles.length; i += 10) {
      const entries = receiptHandles
        .slice(i, i + 10)
        .map((ReceiptHandle, j) => ({ Id: String(i + j), ReceiptHandle, VisibilityTimeout: seconds }));
      const out = await client.send(new ChangeMessageVisibilityBatchCommand({ QueueUrl: queueUrl, Entries: entries }));
      if (out.Failed && out.Failed.length > 0) {
        throw new Error(
          `ChangeMessageVisibilityBatch failed for ${out.Failed.length} message(s): ${out.Failed[0]?.Code}`,
        );
      }
    }
  };
}
