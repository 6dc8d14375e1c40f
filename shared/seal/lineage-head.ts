import { z } from 'zod';
import { HexDigest } from '../schemas/hex-digest';
import { Identifier } from '../schemas/identifier';
import { NonNegativeInt } from '../schemas/non-negative-int';
import { AnchorSignatureSchema } from './anchor-signature';
import { KeyIdSchema } from './key-id';
import type { SealedRecord } from './sealed-record';

/**
 * The head of a lineage: what the head item holds, what each run of a `ResidualSealed` event carries, and
 * what a client keeps as the head it checks against (docs/sealing.md, "Checkpoints and trusted
 * starts": the head must also live outside the table; as a checkpoint its `mac` and `keyId` are
 * not checked).
 *
 * `{ lineageId; seq; recordHash; generationEpoch; mac (base64); keyId }`
 */
export const LineageHeadSchema = z.strictObject({
  lineageId: Identifier,
  /** Sequence number of the latest record. */
  seq: NonNegativeInt,
  /** Its record hash. */
  recordHash: HexDigest,
  /** Its generation epoch (the fencing token a new write must not go below). */
  generationEpoch: NonNegativeInt,
  /** Its anchor MAC, base64. */
  mac: AnchorSignatureSchema.shape.mac,
  /** Key of that MAC. */
  keyId: KeyIdSchema,
});

/** Type of {@link LineageHeadSchema}. */
export type LineageHead = z.infer<typeof LineageHeadSchema>;

/**
 * The lineage head a sealed record makes: `{ lineageId, seq, recordHash, generationEpoch, mac, keyId }`.
 * No validation: pass a record {@link sealRecord} returned or {@link verifyChain} verified.
 */
export function lineageHeadOf(record: SealedRecord): LineageHead {
  return {
    lineageId: record.header.lineageId,
    seq: record.header.monotonicSequenceNumber,
    recordHash: record.recordHash,
    generationEpoch: record.header.generationEpoch,
    mac: record.anchor.mac,
    keyId: record.header.keyId,
  };
}
