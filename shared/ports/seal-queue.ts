import type { SealRequest } from '../pipeline/seal-request';

/**
 * Port for the FIFO `seal-requests` queue between the guard and the sealer. Adapter:
 * `SQSSealQueue` (adapters/): `MessageGroupId` = lineage id, so one lineage is sealed
 * in order; `MessageDeduplicationId` = SHA-256 hex of the RFC 8785 canonical write request
 * (`deduplicationIdOf`; SQS allows 128 chars).
 */
export interface SealQueue {
  /** Enqueues an accepted write. Rejects when the queue did not take it (the caller retries). */
  enqueue(request: SealRequest): Promise<void>;
  /**
   * Enqueues accepted writes together (SQS `SendMessageBatch`, up to 10 per call), in order. Never
   * rejects: one result per request, in the same order, `rejected` with the reason when the queue
   * did not take that one (its message is retried), `fulfilled` when it did.
   */
  enqueueBatch(requests: readonly SealRequest[]): Promise<PromiseSettledResult<void>[]>;
}
