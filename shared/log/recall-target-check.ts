import type { RecallTarget } from '../pipeline/recall-target';
import type { SealedRecord } from '../seal/sealed-record';
import { VerificationVerdict as V } from '../seal/verification-verdict';
import type { CheckpointFinding } from './latest-checkpoint';

/**
 * Checks that a proven record is the one a recall asked for (docs/verifiable-log.md, "Recall"):
 * `seq` → that seq; `residualId` → a record sealing that residual id (a marker pointing elsewhere
 * is an edited marker); `latest` → the last leaf of the checkpoint it was proven in. Shared by
 * triage (after following a marker) and the client (on triage's answer).
 *
 * @param checkpointSize - size of the signed checkpoint the record was proven in
 * @returns `null` when it is the target, else a `LINEAGE_BROKEN` finding at the record's seq
 */
export function checkRecallTarget(
  target: RecallTarget,
  record: SealedRecord,
  checkpointSize: number,
): CheckpointFinding | null {
  const seq = record.header.monotonicSequenceNumber;
  const { residualId } = record.header;
  if ('residualId' in target && target.residualId !== residualId) {
    return {
      verdict: V.LINEAGE_BROKEN,
      reason: `the residual-id marker of ${target.residualId} points at seq ${seq}, which seals ${residualId}`,
      seq,
    };
  }
  if (('seq' in target && target.seq !== seq) || ('latest' in target && seq !== checkpointSize - 1)) {
    return {
      verdict: V.LINEAGE_BROKEN,
      reason: `the answer proves seq ${seq} (${residualId}), which is not the record asked for`,
      seq,
    };
  }
  return null;
}
