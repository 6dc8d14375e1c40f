import { VerificationVerdict as V } from '../seal/verification-verdict';
import type { Checkpoint } from './checkpoint';
import type { CheckpointFinding } from './latest-checkpoint';
import { type ConsistencyProof, checkConsistency } from './tree-consistency';

/**
 * Checks that a recall answer is no older than the head item's tree the client read itself
 * before asking (docs/verifiable-log.md, "Recall"): an answer proven in an older tree is a
 * replayed answer (`UNVERIFIED_TAMPER_RISK`), whatever its proof; one of the same size must carry
 * the same root (else a fork), and a newer one must be shown to extend it by the table's nodes
 * (else not proven consistent: a fork or edited nodes); either is `LINEAGE_BROKEN`. Signed trees are
 * already signature-checked; an unsigned one (a head the sealer MAC'd) is vouched for afterwards
 * by the deployment index, never by this check.
 *
 * @param newest - the head item's tree the client read itself (signed checkpoint, or MAC'd head's tree)
 * @param answered - the checkpoint the answer proved its record in
 * @param consistency - a consistency proof from `newest` to `answered` (needed only when `answered` is larger)
 * @param vouchedBy - what vouches for `newest`, in words for the reason (e.g. "the lineage's signed
 *   checkpoint of 7 records", or the sealer's head MAC awaiting integration); default: by its `note`
 * @returns `null` when the answer is fresh, else the finding
 */
export function checkAnswerFreshness(
  newest: Checkpoint & { readonly note?: string | null },
  answered: Checkpoint,
  consistency: ConsistencyProof | null,
  vouchedBy?: string,
): CheckpointFinding | null {
  if (answered.size < newest.size) {
    const read =
      vouchedBy ??
      (newest.note
        ? `the head item's signed checkpoint of ${newest.size} records`
        : `the head item's tree of ${newest.size} records (not signed)`);
    return {
      verdict: V.UNVERIFIED_TAMPER_RISK,
      reason: `the answer is older than the newest tree the client read before asking: it proves the record in a tree of ${answered.size} records, but the client read ${read} (a replayed answer)`,
      seq: null,
    };
  }
  const proof = consistency ?? { fromSize: newest.size, toSize: answered.size, proof: [] };
  const checked = checkConsistency(newest, answered, proof);
  if (checked.verdict === V.VERIFIED_INTACT) return null;
  return {
    verdict: V.LINEAGE_BROKEN,
    reason: `the answer's tree (${answered.size} records) is not shown to extend the newest head the client read (${newest.size} records): ${checked.reason}`,
    seq: null,
  };
}
