import { z } from 'zod';
import { FORMAT_VERSION } from '../canonical/hash-domain';
import { EpochMillis } from '../schemas/epoch-millis';
import { HexDigest } from '../schemas/hex-digest';
import { Identifier } from '../schemas/identifier';
import { wellFormedString } from '../schemas/well-formed-string';
import { RejectionReason } from './rejection-reason';
import { RejectionStage } from './rejection-stage';
import { ShortText } from './short-text';

/**
 * `detail` of a `ResidualRejected` event (docs/pipeline.md, "Message shapes"; strict). Ids
 * are `null` when the body could not be read. */
export const ResidualRejectedDetailSchema = z.strictObject({
  formatVersion: z.literal(FORMAT_VERSION),
  stage: z.enum(RejectionStage),
  reason: z.enum(RejectionReason),
  lineageId: Identifier.nullable(),
  residualId: Identifier.nullable(),
  /** The guard's verdict digest, when a verdict was reached. */
  verdictDigest: HexDigest.nullable(),
  /** SHA-256 (plain, hex) of the raw SQS body. */
  bodyDigest: HexDigest,
  /** SQS message id of the refused message. */
  messageId: wellFormedString(256),
  rejectedVariables: z.array(z.strictObject({ name: ShortText, reason: ShortText, detail: ShortText })),
  requestViolations: z.array(z.strictObject({ field: ShortText, reason: ShortText, detail: ShortText })),
  /** Schema or parse problems, each naming its field. */
  issues: z.array(z.strictObject({ path: ShortText, message: ShortText })),
  rejectedAtMs: EpochMillis,
});
/** Type of {@link ResidualRejectedDetailSchema}. */
export type ResidualRejectedDetail = z.infer<typeof ResidualRejectedDetailSchema>;
