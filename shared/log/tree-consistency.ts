import { z } from 'zod';
import { HexDigest as HexDigestSchema } from '../schemas/hex-digest';
import { NonNegativeInt } from '../schemas/non-negative-int';
import { VerificationVerdict as V, type VerificationVerdict } from '../seal/verification-verdict';
import type { Checkpoint } from './checkpoint';
import { proveConsistency } from './consistency-proof';
import type { NodeSource } from './node-ref';
import { MAX_PROOF_HASHES } from './record-proof';
import { verifyConsistency } from './verify-consistency';

/**
 * RFC 9162 §2.1.4 consistency proofs between two trees of a lineage's log, as the wire carries
 * them (hex): built from stored nodes, and checked between two signature-checked checkpoints.
 */

/** An RFC 9162 §2.1.4 consistency proof from the tree of `fromSize` records to a later one (hex). */
export const ConsistencyProofSchema = z.strictObject({
  fromSize: NonNegativeInt,
  toSize: NonNegativeInt,
  proof: z.array(HexDigestSchema).max(MAX_PROOF_HASHES),
});
/** Type of {@link ConsistencyProofSchema}. */
export type ConsistencyProof = z.infer<typeof ConsistencyProofSchema>;

/** Builds the consistency proof from the tree of `fromSize` records to the tree of `toSize`. */
export async function proveTreeConsistency(
  fromSize: number,
  toSize: number,
  nodes: NodeSource,
): Promise<ConsistencyProof> {
  const proof = fromSize === 0 || fromSize === toSize ? [] : await proveConsistency(fromSize, toSize, nodes);
  return { fromSize, toSize, proof: proof.map(hex) };
}

/**
 * Checks that `older` is a prefix of `newer` (RFC 9162 §2.1.4.2), both already signature-checked.
 * @returns `VERIFIED_INTACT`; `TRUNCATION_DETECTED` when `newer` is smaller (a rollback);
 *   `LINEAGE_BROKEN` when the proof fails: at one size two roots are a fork; between sizes the proof
 *   comes from the table's nodes, so its failure proves only "not shown consistent" (a fork, or
 *   nodes a table writer edited), and the reason says no more
 */
export function checkConsistency(
  older: Checkpoint,
  newer: Checkpoint,
  proof: unknown,
): { readonly verdict: VerificationVerdict; readonly reason: string } {
  if (newer.size < older.size) {
    return {
      verdict: V.TRUNCATION_DETECTED,
      reason: `rolled back: the log shows ${newer.size} records but a trusted checkpoint saw ${older.size}`,
    };
  }
  const parsed = ConsistencyProofSchema.safeParse(proof);
  const ok =
    parsed.success &&
    parsed.data.fromSize === older.size &&
    parsed.data.toSize === newer.size &&
    (older.size === 0
      ? parsed.data.proof.length === 0
      : verifyConsistency({
          size1: older.size,
          size2: newer.size,
          root1: older.rootHash,
          root2: newer.rootHash,
          proof: parsed.data.proof.map((h) => Buffer.from(h, 'hex')),
        }));
  return ok
    ? { verdict: V.VERIFIED_INTACT, reason: `size ${older.size} is a prefix of size ${newer.size}` }
    : {
        verdict: V.LINEAGE_BROKEN,
        reason:
          older.size === newer.size
            ? `fork: the checkpoint of size ${newer.size} has another root than the trusted one of that size`
            : `not proven consistent: the checkpoint of size ${newer.size} is not shown to extend the trusted one of size ${older.size} (its consistency proof, from the table's tree nodes, does not verify: a fork, or edited nodes)`,
      };
}

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex');
}
