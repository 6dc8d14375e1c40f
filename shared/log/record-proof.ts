import { z } from 'zod';
import { HexDigest as HexDigestSchema } from '../schemas/hex-digest';
import { NonNegativeInt } from '../schemas/non-negative-int';
import { isIntact } from '../seal/is-intact';
import { checkRecordIntegrity } from '../seal/record-integrity';
import type { SealedRecord } from '../seal/sealed-record';
import { VerificationVerdict as V, type VerificationVerdict } from '../seal/verification-verdict';
import type { Checkpoint } from './checkpoint';
import { proveInclusion } from './inclusion-proof';
import { leafHash } from './merkle-hash';
import type { NodeSource } from './node-ref';
import { verifyInclusion } from './verify-inclusion';

/** Longest proof accepted: a tree of 2^53 leaves needs at most 53 hashes (consistency: about twice). */
export const MAX_PROOF_HASHES = 128;

/**
 * An RFC 9162 §2.1.3 inclusion proof of one record: leaf `leafIndex` (= the record's seq) in the
 * tree of `treeSize` records, hashes bottom-up as lowercase hex.
 */
export const RecordProofSchema = z.strictObject({
  leafIndex: NonNegativeInt,
  treeSize: NonNegativeInt.min(1),
  inclusionProof: z.array(HexDigestSchema).max(MAX_PROOF_HASHES),
});
/** Type of {@link RecordProofSchema}. */
export type RecordProof = z.infer<typeof RecordProofSchema>;

/** Builds the inclusion proof of record `seq` in the tree of `treeSize` records from stored nodes. */
export async function proveRecord(seq: number, treeSize: number, nodes: NodeSource): Promise<RecordProof> {
  const proof = await proveInclusion(seq, treeSize, nodes);
  return { leafIndex: seq, treeSize, inclusionProof: proof.map(hex) };
}

/** Outcome of {@link verifyRecordProof}. */
export type RecordProofResult =
  | { readonly verdict: typeof V.VERIFIED_INTACT; readonly record: SealedRecord }
  | { readonly verdict: Exclude<VerificationVerdict, typeof V.VERIFIED_INTACT>; readonly reason: string };

/**
 * Authenticates one stored record by a signed checkpoint alone, with no MAC call
 * (docs/verifiable-log.md, "Proving a record"): the record's own integrity (hashes of its bodies
 * and header), its lineage and seq, and the inclusion of its leaf (the 32 bytes of its record
 * hash) at index = seq in the checkpoint's tree.
 *
 * @param raw - the record as stored, untrusted
 * @param proof - its inclusion proof, untrusted (parsed here)
 * @param checkpoint - a checkpoint whose signature the caller has verified
 * @param lineageId - the lineage asked for
 * @returns `VERIFIED_INTACT` with the record, or the verdict and reason of the first failure:
 *   a record that does not agree with itself (`HASH_MISMATCH`, or `UNVERIFIED_TAMPER_RISK` for an
 *   unknown format), another lineage or another leaf (`LINEAGE_BROKEN`), a leaf the signed tree
 *   does not hold (`HASH_MISMATCH`: rewritten, forged or replayed), a seq the checkpoint does not
 *   reach (`TRUNCATION_DETECTED` is for the caller to decide; here `LINEAGE_BROKEN`)
 */
export function verifyRecordProof(
  raw: unknown,
  proof: unknown,
  checkpoint: Checkpoint,
  lineageId: string,
): RecordProofResult {
  const integrity = checkRecordIntegrity(raw);
  if (!isIntact(integrity))
    return { verdict: integrity.verdict as Exclude<VerificationVerdict, 'VERIFIED_INTACT'>, reason: integrity.reason };
  const { record, recordHash } = integrity;
  const seq = record.header.monotonicSequenceNumber;
  if (record.header.lineageId !== lineageId) {
    return {
      verdict: V.LINEAGE_BROKEN,
      reason: `record belongs to lineage ${record.header.lineageId}, not ${lineageId}`,
    };
  }
  const parsed = RecordProofSchema.safeParse(proof);
  if (!parsed.success) return { verdict: V.HASH_MISMATCH, reason: 'malformed inclusion proof' };
  const { leafIndex, treeSize, inclusionProof } = parsed.data;
  if (leafIndex !== seq)
    return { verdict: V.LINEAGE_BROKEN, reason: `record seq ${seq} is offered as leaf ${leafIndex}` };
  if (treeSize !== checkpoint.size || seq >= checkpoint.size) {
    return {
      verdict: V.LINEAGE_BROKEN,
      reason: `proof is for a tree of ${treeSize} records; the checkpoint covers ${checkpoint.size}`,
    };
  }
  const included = verifyInclusion({
    leafIndex: seq,
    treeSize,
    leafHash: leafHash(Buffer.from(recordHash, 'hex')),
    proof: inclusionProof.map((h) => Buffer.from(h, 'hex')),
    rootHash: checkpoint.rootHash,
  });
  if (!included) {
    return {
      verdict: V.HASH_MISMATCH,
      reason: `record seq ${seq} is not the record the signed checkpoint (size ${checkpoint.size}) holds at leaf ${seq}`,
    };
  }
  return { verdict: V.VERIFIED_INTACT, record };
}

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex');
}
