import { z } from 'zod';
import { HexDigest, NonNegativeInt, wellFormedString } from '../schemas/primitives';
import { ConsistencyProofSchema, RecordProofSchema } from './record-proof';

/**
 * The proof a triage answer carries (docs/verifiable-log.md, "Recall"): the latest signed
 * checkpoint, the proven record's seq and record hash, its inclusion proof in that checkpoint,
 * and the consistency proof from the caller's trusted checkpoint (or `null` without one). The
 * record itself is read by the client from the table and checked against `recordHash` and the
 * inclusion proof, so the answer stays small (EventBridge events are at most 256 KB).
 */
export const RecallProofSchema = z.strictObject({
  checkpoint: wellFormedString(16_384).min(1),
  seq: NonNegativeInt,
  recordHash: HexDigest,
  inclusion: RecordProofSchema,
  consistency: ConsistencyProofSchema.nullable(),
});
/** Type of {@link RecallProofSchema}. */
export type RecallProof = z.infer<typeof RecallProofSchema>;
