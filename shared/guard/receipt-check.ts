import type { FreshnessProbeReceipt } from '../write/receipts';
import type { SessionSnapshotBoundary } from '../write/session-boundary';
import { valueDigest } from '../write/value-digest';
import type { ResolvedGuardPolicy } from './policy';
import type { VariableRejectionReason } from './variable-rejection';

/** One failed receipt check: a machine reason and a human detail (never the value itself). */
export interface ReceiptFailure {
  readonly reason: VariableRejectionReason;
  readonly detail: string;
}

/**
 * Checks that `receipt` re-verifies `value` for the active session, inside the time window
 * (docs/guard.md, rules V3 and R1–R6). Returns every failed check,
 * or `[]` when the receipt is valid. Inputs are trusted (already parsed by `evaluateWrite`).
 *
 * A receipt is valid when all hold: `probe` is not blank; `observedValueDigest` equals
 * {@link valueDigest}(value); `sessionId` is `boundary.activeSessionId`; `probedAtMs` is
 * strictly after `boundary.boundaryAtMs`, at most `maxClockSkewSeconds` after `nowMs`, and at
 * most `maxReceiptAgeSeconds` before `nowMs`.
 */
export function checkReceipt(
  receipt: FreshnessProbeReceipt,
  value: string,
  boundary: SessionSnapshotBoundary,
  policy: ResolvedGuardPolicy,
): ReceiptFailure[] {
  const failures: ReceiptFailure[] = [];
  if (receipt.probe.trim() === '') {
    failures.push({
      reason: 'RECEIPT_PROBE_UNNAMED',
      detail: 'the receipt does not name the probe that re-verified the value',
    });
  }
  if (receipt.observedValueDigest !== valueDigest(value)) {
    failures.push({
      reason: 'RECEIPT_VALUE_MISMATCH',
      detail: 'the probe observed a different value than the one being written; re-probe or write the observed value',
    });
  }
  if (receipt.sessionId !== boundary.activeSessionId) {
    failures.push({
      reason: 'RECEIPT_WRONG_SESSION',
      detail: `the probe ran in session ${receipt.sessionId}, not in the active session ${boundary.activeSessionId}`,
    });
  }
  if (receipt.probedAtMs <= boundary.boundaryAtMs) {
    failures.push({
      reason: 'RECEIPT_BEFORE_BOUNDARY',
      detail: `the probe ran at ${receipt.probedAtMs} ms, not after the session boundary at ${boundary.boundaryAtMs} ms`,
    });
  }
  // Subtracting two safe integers is exact; adding a skew to nowMs might not be.
  const aheadMs = receipt.probedAtMs - policy.nowMs;
  if (aheadMs > policy.maxClockSkewSeconds * 1000) {
    failures.push({
      reason: 'RECEIPT_FROM_FUTURE',
      detail: `the probe claims ${aheadMs} ms after now; at most ${policy.maxClockSkewSeconds} s of clock skew is tolerated`,
    });
  }
  const ageMs = policy.nowMs - receipt.probedAtMs;
  if (ageMs > policy.maxReceiptAgeSeconds * 1000) {
    failures.push({
      reason: 'RECEIPT_EXPIRED',
      detail: `the probe is ${ageMs} ms old; receipts older than ${policy.maxReceiptAgeSeconds} s are refused`,
    });
  }
  return failures;
}
