import { createHash } from 'node:crypto';
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { SealQueue } from '../../shared/ports/seal-queue';
import type { SealRequest } from '../../shared/schemas/messages';

/** The part of `SQSClient` this adapter uses. */
export type SQSSend = Pick<SQSClient, 'send'>;

/**
 * `MessageDeduplicationId` for a residual id: SHA-256 hex (64 chars; SQS allows at most 128
 * characters of `[A-Za-z0-9!"#$%&'()*+,-./:;<=>?@[\]^_\`{|}~]`, which a raw id may exceed).
 */
export function deduplicationIdOf(residualId: string): string {
  return createHash('sha256').update(residualId, 'utf8').digest('hex');
}

/**
 * {@link SealQueue} over the FIFO `seal-requests` queue: `MessageGroupId` = lineage id (one
 * lineage is sealed strictly in order), `MessageDeduplicationId` = {@link deduplicationIdOf}.
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
        MessageDeduplicationId: deduplicationIdOf(request.request.residualId),
      }),
    );
  }
}
