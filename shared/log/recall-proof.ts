import { z } from 'zod';
import { HexDigest } from '../schemas/hex-digest';
import { NonNegativeInt } from '../schemas/non-negative-int';
import { wellFormedString } from '../schemas/well-formed-string';
import { RecordProofSchema } from './record-proof';
import { ConsistencyProofSchema } from './tree-consistency';

/**
 * The lineage tree a triage answer proves its record in: its size and RFC 9162 root (hex). The
 * client checks it against the tree head the deployment index holds (docs/verifiable-log.md,
 * "Recall"), never takes it on triage's word.
 */
export const RecallTreeHeadSchema = z.strictObject({
  treeSize: NonNegativeInt,
  rootHash: HexDigest,
});
/** Type of {@link RecallTreeHeadSchema}. */
export type RecallTreeHead = z.infer<typeof RecallTreeHeadSchema>;

/**
 * The proof a triage answer carries (docs/verifiable-log.md, "Recall"): the tree head of the
 * lineage's head item (`treeHead`) and, where the head item carries one, its signed lineage
 * checkpoint (`checkpoint`, else `null`: a head the sealer MAC'd), the proven record's seq and
 * record hash, its inclusion proof in that tree, and the consistency proof from the caller's
 * trusted checkpoint (or `null` without one). Answers stored before `treeHead` existed carry the
 * signed checkpoint alone. The record itself is read by the client from the table and checked
 * against `recordHash` and the inclusion proof, so the answer stays small (EventBridge events are
 * at most 256 KB).
 */
export const RecallProofSchema = z.strictObject({
  checkpoint: wellFormedString(16_384).min(1).nullable(),
  treeHead: RecallTreeHeadSchema.optional(),
  seq: NonNegativeInt,
  recordHash: HexDigest,
  inclusion: RecordProofSchema,
  consistency: ConsistencyProofSchema.nullable(),
});
/** Type of {@link RecallProofSchema}. */
export type RecallProof = z.infer<typeof RecallProofSchema>;
