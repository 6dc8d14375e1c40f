import {
  SendMessageBatchCommand,
  type SendMessageBatchRequestEntry,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { SealRequest } from '../shared/pipeline/seal-request';
import type { SealQueue } from '../shared/ports/seal-queue';
import { deduplicationIdOf } from './deduplication-id';

/** Most entries of one `SendMessageBatch` (an SQS limit). */
export const MAX_SEND_BATCH_ENTRIES = 10;
/**
 * Most body bytes of one `SendMessageBatch`, UTF-8: SQS caps a batch's total payload at the
 * queue's largest message (1 MiB, infra/constructs/queue-consumer.ts); the rest of the 1 MiB is
 * left to the group and deduplication ids.
 */
export const MAX_SEND_BATCH_BODY_BYTES = 1_000_000;

/** The part of `SQSClient` this adapter uses. */
export type SQSSend = Pick<SQSClient, 'send'>;

/**
 * {@link SealQueue} over the FIFO `seal-requests` queue: `MessageGroupId` = lineage id (one
 * lineage is sealed strictly in order), `MessageDeduplicationId` = `deduplicationIdOf`.
 * `enqueueBatch` sends `SendMessageBatch` calls of at most {@link MAX_SEND_BATCH_ENTRIES} entries
 * and {@link MAX_SEND_BATCH_BODY_BYTES}, one after another (a FIFO batch keeps its entries' order
 * within a group, so a lineage's writes stay in order), and maps each entry's failure back to its
 * request by the entry id (its index).
 */
export class SQSSealQueue implements SealQueue {
  readonly #client: SQSSend;
  readonly #queueUrl: string;

  constructor(client: SQSSend, queueUrl: string) {
    this.#client = client;
    this.#queueUrl = queueUrl;
  }

  async enqueue(request: SealRequest): Promise<void> {
    await this.#client.send(
      new SendMessageCommand({
        QueueUrl: this.#queueUrl,
        MessageBody: JSON.stringify(request),
        MessageGroupId: request.request.lineageId,
        MessageDeduplicationId: deduplicationIdOf(request.request),
      }),
    );
  }

  async enqueueBatch(requests: readonly SealRequest[]): Promise<PromiseSettledResult<void>[]> {
    const results: PromiseSettledResult<void>[] = new Array(requests.length);
    for (const chunk of sendBatches(requests)) {
      const entries: SendMessageBatchRequestEntry[] = chunk.map(({ index, body }) => ({
        Id: String(index),
        MessageBody: body,
        MessageGroupId: (requests[index] as SealRequest).request.lineageId,
        MessageDeduplicationId: deduplicationIdOf((requests[index] as SealRequest).request),
      }));
      try {
        const out = await this.#client.send(
          new SendMessageBatchCommand({ QueueUrl: this.#queueUrl, Entries: entries }),
        );
        for (const ok of out.Successful ?? []) results[Number(ok.Id)] = { status: 'fulfilled', value: undefined };
        for (const failed of out.Failed ?? []) {
          const reason = new Error(
            `SendMessageBatch entry refused: ${failed.Code ?? 'no code'}: ${failed.Message ?? ''}`,
          );
          results[Number(failed.Id)] = { status: 'rejected', reason };
        }
      } catch (error) {
        for (const { index } of chunk) results[index] = { status: 'rejected', reason: error };
      }
      for (const { index } of chunk) {
        // An entry SQS named neither way was not confirmed taken: retried (deduplication drops a copy).
        results[index] ??= { status: 'rejected', reason: new Error('SendMessageBatch reported nothing for the entry') };
      }
    }
    return results;
  }
}

/** Requests' bodies by index, split into `SendMessageBatch` calls within both limits. */
function sendBatches(requests: readonly SealRequest[]): { index: number; body: string }[][] {
  const batches: { index: number; body: string }[][] = [];
  let current: { index: number; body: string }[] = [];
  let bytes = 0;
  for (const [index, request] of requests.entries()) {
    const body = JSON.stringify(request);
    const size = Buffer.byteLength(body, 'utf8');
    if (current.length === MAX_SEND_BATCH_ENTRIES || (current.length > 0 && bytes + size > MAX_SEND_BATCH_BODY_BYTES)) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push({ index, body });
    bytes += size;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}
