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
  /**
   * SQS `SenderId` of the message: the sending principal's id on AWS (the account id on the
   * embedded emulator); absent or `null` when the queue gave none. A format-2 record stores the
   * one of its original `residual-writes` message (docs/authorship.md, "AWS identity").
   */
  readonly senderId?: string | null;
  /**
   * ARN of the queue the message came from (the SQS event record's `eventSourceARN`, set by AWS,
   * never by the sender): the guard's tenant (docs/authorship.md, "Tenancy"). Absent in tests
   * and for the sealer.
   */
  readonly eventSourceArn?: string | null;
  /**
   * SQS `ApproximateReceiveCount`: 1 on the first delivery, more on a redelivery. Absent in tests
   * (a first delivery). The sealer signs no conflict for a redelivered write (docs/sealing.md,
   * "The write"): an earlier delivery may have stored its record where the table writer hides it.
   */
  readonly receiveCount?: number;
}
