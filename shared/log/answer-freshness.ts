import { VerificationVerdict as V } from '../seal/verification-verdict';
import type { CheckpointFinding } from './latest-checkpoint';
import { type ConsistencyProof, checkConsistency } from './record-proof';
import type { VerifiedCheckpoint } from './signed-checkpoint';

/**
 * Checks that a recall answer is no older than the newest signed checkpoint the client read
 * itself from the head item before asking (docs/verifiable-log.md, "Recall"): an answer proven
 * in an older checkpoint is a replayed answer (`UNVERIFIED_TAMPER_RISK`), whatever its proof;
 * one of the same size must carry the same root, and a newer one must extend it (a fork:
 * `LINEAGE_BROKEN`). Both checkpoints are already signature-checked.
 *
 * @param newest - the newest signed checkpoint the client read itself
 * @param answered - the checkpoint the answer proved its record in
 * @param consistency - a consistency proof from `newest` to `answered` (needed only when `answered` is larger)
 * @returns `null` when the answer is fresh, else the finding
 */
export function checkAnswerFreshness(
  newest: VerifiedCheckpoint,
  answered: VerifiedCheckpoint,
  consistency: ConsistencyProof | null,
): CheckpointFinding | null {
  if (answered.size < newest.size) {
    return {
      verdict: V.UNVERIFIED_TAMPER_RISK,
      reason: `the answer is older than the newest signed checkpoint: it proves the record in a checkpoint of ${answered.size} records, but the head item's signed checkpoint covers ${newest.size} (a replayed answer)`,
      seq: null,
    };
  }
  const proof = consistency ?? { fromSize: newest.size, toSize: answered.size, proof: [] };
  const checked = checkConsistency(newest, answered, proof);
  if (checked.verdict === V.VERIFIED_INTACT) return null;
  return {
    verdict: V.LINEAGE_BROKEN,
    reason: `the answer's signed checkpoint (${answered.size} records) does not extend the newest one the client read (${newest.size} records): ${checked.reason}`,
    seq: null,
  };
}
