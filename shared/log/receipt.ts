import { z } from 'zod';
import { ResealError } from '../errors';
import { Identifier } from '../schemas/identifier';
import { wellFormedString } from '../schemas/well-formed-string';
import type { SealedRecord } from '../seal/sealed-record';
import { VerificationVerdict as V, type VerificationVerdict } from '../seal/verification-verdict';
import { checkpointOrigin } from './checkpoint-origin';
import type { NoteVerifierKey } from './note-key';
import { RecordProofSchema, verifyRecordProof } from './record-proof';
import { openCheckpoint, type VerifiedCheckpoint } from './verified-checkpoint';

/**
 * A portable receipt for one record (docs/verifiable-log.md, "Receipts"; C2SP tlog-proof's
 * idea): the record as stored, its inclusion proof and a signed checkpoint of a tree that holds
 * it. Anyone with the log's public key checks it offline: no AWS, no endpoint.
 *
 * `{ formatVersion: 1, type: "reseal-receipt", lineageId, record, inclusion: { leafIndex,
 *    treeSize, inclusionProof: hex[] }, checkpoint: <signed note> }` (strict).
 */
export const ReceiptSchema = z.strictObject({
  formatVersion: z.literal(1),
  type: z.literal('reseal-receipt'),
  lineageId: Identifier,
  /** The sealed record, exactly as stored (checked, not trusted). */
  record: z.unknown(),
  inclusion: RecordProofSchema,
  /** C2SP signed note of the checkpoint the proof is for. */
  checkpoint: wellFormedString(16_384).min(1),
});
/** Type of {@link ReceiptSchema}. */
export type Receipt = z.infer<typeof ReceiptSchema>;

/** Outcome of {@link verifyReceipt}. */
export interface ReceiptVerification {
  readonly verdict: VerificationVerdict;
  readonly reason: string;
  /** The proven record (when `VERIFIED_INTACT`). */
  readonly record: SealedRecord | null;
  /** The receipt's checkpoint, when its signature verified. */
  readonly checkpoint: VerifiedCheckpoint | null;
}

/**
 * Verifies a receipt with the log's verifier key only: the receipt's shape, the checkpoint's
 * Ed25519 signature and origin (`<key name>/<lineageId>`), the record's own hashes and its
 * inclusion at leaf = seq. Never throws for a bad receipt: it gets a verdict.
 *
 * @param receipt - untrusted JSON
 * @param key - the log's verifier key, obtained from a trusted source (not from the receipt)
 */
export function verifyReceipt(receipt: unknown, key: NoteVerifierKey): ReceiptVerification {
  const none = { record: null, checkpoint: null };
  const parsed = ReceiptSchema.safeParse(receipt);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return {
      ...none,
      verdict: V.HASH_MISMATCH,
      reason: `malformed receipt at ${issue?.path.join('.') || '<root>'}: ${issue?.message}`,
    };
  }
  const { lineageId, record, inclusion, checkpoint: note } = parsed.data;
  let checkpoint: VerifiedCheckpoint;
  try {
    checkpoint = openCheckpoint(note, key, checkpointOrigin(key.name, lineageId));
  } catch (error) {
    if (!(error instanceof ResealError)) throw error;
    return { ...none, verdict: V.HASH_MISMATCH, reason: `checkpoint does not verify: ${error.message}` };
  }
  const proven = verifyRecordProof(record, inclusion, checkpoint, lineageId);
  if (proven.verdict !== V.VERIFIED_INTACT)
    return { record: null, checkpoint, verdict: proven.verdict, reason: proven.reason };
  return {
    record: proven.record,
    checkpoint,
    verdict: V.VERIFIED_INTACT,
    reason: `record seq ${proven.record.header.monotonicSequenceNumber} is leaf ${inclusion.leafIndex} of the signed checkpoint of ${checkpoint.size} records`,
  };
}
