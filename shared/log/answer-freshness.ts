import { VerificationVerdict as V } from '../seal/verification-verdict';
import type { Checkpoint } from './checkpoint';
import type { CheckpointFinding } from './latest-checkpoint';
import { type ConsistencyProof, checkConsistency } from './record-proof';

/**
 * Checks that a recall answer is no older than the head item's tree the client read itself
 * before asking (docs/verifiable-log.md, "Recall"): an answer proven in an older tree is a
 * replayed answer (`UNVERIFIED_TAMPER_RISK`), whatever its proof; one of the same size must carry
 * the same root, and a newer one must extend it (a fork: `LINEAGE_BROKEN`). Signed trees are
 * already signature-checked; an unsigned one (a head the sealer MAC'd) is vouched for afterwards
 * by the deployment index, never by this check.
 *
 * @param newest - the head item's tree the client read itself (signed checkpoint, or MAC'd head's tree)
 * @param answered - the checkpoint the answer proved its record in
 * @param consistency - a consistency proof from `newest` to `answered` (needed only when `answered` is larger)
 * @returns `null` when the answer is fresh, else the finding
 */
export function checkAnswerFreshness(
  newest: Checkpoint & { readonly note?: string | null },
  answered: Checkpoint,
  consistency: ConsistencyProof | null,
): CheckpointFinding | null {
  if (answered.size < newest.size) {
    return {
      verdict: V.UNVERIFIED_TAMPER_RISK,
      reason: `the answer is older than the newest ${newest.note ? 'signed checkpoint' : 'head'}: it proves the record in a tree of ${answered.size} records, but the head item's ${newest.note ? 'signed checkpoint' : 'tree'} covers ${newest.size} (a replayed answer)`,
      seq: null,
    };
  }
  const proof = consistency ?? { fromSize: newest.size, toSize: answered.size, proof: [] };
  const checked = checkConsistency(newest, answered, proof);
  if (checked.verdict === V.VERIFIED_INTACT) return null;
  return {
    verdict: V.LINEAGE_BROKEN,
    reason: `the answer's tree (${answered.size} records) does not extend the newest head the client read (${newest.size} records): ${checked.reason}`,
    seq: null,
  };
}
