/**
 * One SQS message as the guard and the sealer read it: its id, its body as received (text, never
 * trusted), and SQS's `SentTimestamp`, stable across redeliveries, so the key of a rejection
 * record written for it is too.
 */
export interface QueueMessage {
  readonly messageId: string;
  readonly body: string;
  /** SQS `SentTimestamp`, ms. */
  readonly sentAtMs: number;
}
