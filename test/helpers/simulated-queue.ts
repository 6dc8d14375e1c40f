import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';

/** One message held by a {@link SimulatedQueue}. */
export interface QueuedMessage {
  readonly messageId: string;
  readonly body: string;
  /** `SentTimestamp`, ms: kept across receives and across a redrive (as SQS's message move task does). */
  readonly sentAtMs: number;
  readonly groupId?: string;
  readonly deduplicationId?: string;
  receiveCount: number;
  /** Received and not yet deleted or failed (invisible to other receives). */
  inFlight?: boolean;
}

/** Options of {@link SimulatedQueue}. */
export interface SimulatedQueueOptions {
  /** A FIFO queue: messages carry a group id, a group is delivered in order, and a failed message blocks its group. */
  readonly fifo?: boolean;
  /** The redrive policy's `maxReceiveCount` (the stack's is 5). */
  readonly maxReceiveCount?: number;
  /** Messages per receive (the stack's event source mappings take 10). */
  readonly batchSize?: number;
  /** The queue's clock, ms. */
  readonly nowMs: () => number;
}

/**
 * An SQS queue with a dead-letter queue, as the pipeline's event source mappings see it (docs/guarantees.md,
 * "Faults", in process): each {@link SimulatedQueue.deliver} is one receive of every visible message
 * (after the visibility timeout, so failed messages come back), handed to a Lambda handler that
 * answers with `batchItemFailures`; a message received `maxReceiveCount` times without success
 * moves to the dead-letter queue. A receive holds at most `batchSize` messages in send order (so a
 * FIFO group comes in order, and a failed message comes back with the rest of its group, as the
 * sealer's handler fails a group whole). FIFO queues drop a repeated deduplication id (the
 * 5-minute window is the queue's whole life here).
 */
export class SimulatedQueue {
  readonly messages: QueuedMessage[] = [];
  readonly deadLetters: QueuedMessage[] = [];
  /** Handler invocations so far. */
  receives = 0;
  readonly #options: SimulatedQueueOptions;
  readonly #seen = new Set<string>();
  #sent = 0;

  constructor(
    readonly name: string,
    options: SimulatedQueueOptions,
  ) {
    this.#options = options;
  }

  /** `SendMessage`; returns the message id, or `null` when FIFO deduplication dropped it. */
  send(body: string, attributes: { groupId?: string; deduplicationId?: string } = {}): string | null {
    if (this.#options.fifo) {
      if (!attributes.groupId || !attributes.deduplicationId)
        throw new Error(`${this.name}: FIFO needs group and dedup ids`);
      if (this.#seen.has(attributes.deduplicationId)) return null;
      this.#seen.add(attributes.deduplicationId);
    }
    const messageId = `${this.name}-${++this.#sent}`;
    this.messages.push({ messageId, body, sentAtMs: this.#options.nowMs(), ...attributes, receiveCount: 0 });
    return messageId;
  }

  /**
   * One receive: every deliverable message to `handler` in one batch (a FIFO group up to its
   * first message still in flight); successes are deleted, failures stay for the next receive or
   * move to the dead-letter queue after `maxReceiveCount` receives.
   * @returns how many messages were handed over
   */
  async deliver(handler: (event: SQSEvent) => Promise<SQSBatchResponse | undefined>): Promise<number> {
    const batch = this.messages.filter((m) => !m.inFlight).slice(0, this.#options.batchSize ?? 10);
    if (batch.length === 0) return 0;
    this.receives++;
    for (const message of batch) {
      message.receiveCount++;
      message.inFlight = true;
    }
    const response = await handler({ Records: batch.map((m) => this.#record(m)) });
    const failed = new Set((response?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
    const maxReceiveCount = this.#options.maxReceiveCount ?? 5;
    for (const message of batch) {
      message.inFlight = false;
      const index = this.messages.indexOf(message);
      if (!failed.has(message.messageId)) this.messages.splice(index, 1);
      else if (message.receiveCount >= maxReceiveCount) {
        this.messages.splice(index, 1);
        this.deadLetters.push(message);
      }
    }
    return batch.length;
  }

  /** Receives until the queue is empty or `maxReceives` were made; returns the receives made. */
  async drain(handler: (event: SQSEvent) => Promise<SQSBatchResponse | undefined>, maxReceives = 20): Promise<number> {
    let made = 0;
    while (this.messages.length > 0 && made < maxReceives) {
      await this.deliver(handler);
      made++;
    }
    return made;
  }

  /** A dead-letter redrive (`StartMessageMoveTask` back to this queue): same ids, bodies and `SentTimestamp`, receive count reset. */
  redrive(): QueuedMessage[] {
    const moved = this.deadLetters.splice(0);
    for (const message of moved) this.messages.push({ ...message, receiveCount: 0, inFlight: false });
    return moved;
  }

  #record(message: QueuedMessage): SQSRecord {
    return {
      messageId: message.messageId,
      receiptHandle: `receipt-${message.messageId}-${message.receiveCount}`,
      body: message.body,
      attributes: {
        ApproximateReceiveCount: String(message.receiveCount),
        SentTimestamp: String(message.sentAtMs),
        SenderId: 'AIDAEXAMPLE',
        ApproximateFirstReceiveTimestamp: String(message.sentAtMs),
        ...(message.groupId
          ? {
              MessageGroupId: message.groupId,
              MessageDeduplicationId: message.deduplicationId,
              SequenceNumber: String(message.sentAtMs),
            }
          : {}),
      },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: `arn:aws:sqs:us-east-1:000000000000:${this.name}`,
      awsRegion: 'us-east-1',
    };
  }
}
