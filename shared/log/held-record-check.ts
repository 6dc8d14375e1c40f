import type { LineageStore } from '../ports/lineage-store';
import type { TrustedHead } from '../seal/trusted-head';
import { VerificationVerdict as V } from '../seal/verification-verdict';
import type { Checkpoint } from './checkpoint';
import { type LogFinding, proveStoredRecord } from './stored-log';

/**
 * Checks a `{ seq, recordHash }` a caller holds (a run's head from a `ResidualSealed` event, `reseal recall
 * --checkpoint`) against a verified signed checkpoint (docs/verifiable-log.md, "Recall"): the
 * record at `seq`, read from the table and proven by inclusion, must carry that hash. Shared by
 * triage and the client, so both word a finding alike.
 *
 * @returns `null` when it holds; else the finding: `seq` past the checkpoint
 *   (`TRUNCATION_DETECTED`), the record missing or another one (`LINEAGE_BROKEN`), or what its
 *   proof found
 * @throws what the store throws
 */
export async function checkHeldRecord(
  store: Pick<LineageStore, 'readNodes' | 'readRecord'>,
  lineageId: string,
  held: TrustedHead,
  checkpoint: Checkpoint,
): Promise<LogFinding | null> {
  const { seq } = held;
  if (seq >= checkpoint.size) {
    return {
      kind: 'FINDING',
      verdict: V.TRUNCATION_DETECTED,
      reason: `truncated: the signed checkpoint covers ${checkpoint.size} records but a trusted checkpoint saw seq ${seq}`,
      seq,
    };
  }
  const proven = await proveStoredRecord(store, lineageId, seq, checkpoint);
  if (proven.kind === 'MISSING') {
    return {
      kind: 'FINDING',
      verdict: V.LINEAGE_BROKEN,
      reason: `record ${seq} is covered by the signed checkpoint but missing from the table`,
      seq,
    };
  }
  if (proven.kind === 'FINDING') return proven;
  if (proven.record.recordHash !== held.recordHash) {
    return {
      kind: 'FINDING',
      verdict: V.LINEAGE_BROKEN,
      reason: `fork: seq ${seq} differs from the trusted checkpoint (history rewritten)`,
      seq,
    };
  }
  return null;
}
