import { z } from 'zod';
import { RecordWriterSchema } from '../authorship/writer-block';
import { FORMAT_VERSION } from '../canonical/hash-domain';
import { WriteVerdictSchema } from '../guard/verdict';
import { EpochMillis } from '../schemas/epoch-millis';
import { ResidualWriteRequestSchema } from '../write/write-request';

/**
 * Body of a `seal-requests` FIFO message: a write the guard accepted (docs/pipeline.md, "Message
 * shapes"; strict: unknown fields are refused).
 * `MessageGroupId` = `request.lineageId`; `MessageDeduplicationId` = SHA-256 hex of the RFC 8785 canonical write request (`deduplicationIdOf`).
 * The schema checks shape only: the sealer does not trust `verdict` and re-runs the guard
 * (functions/sealer/seal-request-check.ts) before sealing.
 */
export const SealRequestSchema = z.strictObject({
  formatVersion: z.literal(FORMAT_VERSION),
  request: ResidualWriteRequestSchema,
  verdict: WriteVerdictSchema.refine((v) => v.isSafe, { message: 'only safe verdicts may be sealed' }),
  /** When the guard accepted the write, ms since the Unix epoch. */
  acceptedAtMs: EpochMillis,
  /**
   * SQS `SenderId` of the original `residual-writes` message; `null` or absent when the queue gave
   * none (docs/authorship.md, "AWS identity").
   */
  senderId: RecordWriterSchema.shape.senderId.optional(),
});
/** Type of {@link SealRequestSchema}. */
export type SealRequest = z.infer<typeof SealRequestSchema>;
