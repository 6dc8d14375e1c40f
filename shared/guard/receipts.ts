import { z } from 'zod';
import { FORMAT_VERSION, HashDomain, type HexDigest, hashCanonical } from '../canonical/digest';
import { EpochMillis, HexDigest as HexDigestSchema, Identifier, wellFormedString } from '../schemas/primitives';
import type { ResolvedGuardPolicy } from './policy';
import type { VariableRejectionReason } from './verdict';
import type { SessionSnapshotBoundary } from './write-request';

/** Longest probe description accepted, in UTF-16 code units. */
export const MAX_PROBE_LENGTH = 1024;

/**
 * Digest of a session variable's value, the one a freshness probe receipt must name
 * (seed 004, Recorded Elements 2 `freshness_probe_receipt`; docs/guard.md, "valueDigest").
 *
 * Layout: `SHA-256( "reseal/v1/value" || 0x00 || JCS({ "v": 1, "value": value }) )`, 64
 * lowercase hex characters, where JCS is the RFC 8785 canonical UTF-8 form.
 *
 * @example
 * ```ts
 * valueDigest('i-0abc'); // 64 hex chars, the same in every run and every language
 * ```
 * @param value - the variable's value, exactly as written (no trimming, no normalization)
 * @throws {CanonicalizationError} when `value` holds a lone UTF-16 surrogate
 */
export function valueDigest(value: string): HexDigest {
  return hashCanonical(HashDomain.VALUE, { v: FORMAT_VERSION, value });
}

/**
 * Schema of a {@link FreshnessProbeReceipt}: strict object, unknown fields refused.
 *
 * The schema checks shapes only. Whether the receipt actually re-verifies its variable
 * (probe named, digest matches, right session, inside the time window) is the guard's
 * decision and yields a rejection reason, not an input error (see `evaluateWrite`).
 */
export const FreshnessProbeReceiptSchema = z.strictObject({
  /** What was probed and how (API lookup, existence check, token introspection). */
  probe: wellFormedString(MAX_PROBE_LENGTH),
  /** {@link valueDigest} of the value the probe observed. */
  observedValueDigest: HexDigestSchema,
  /** Session that ran the probe. */
  sessionId: Identifier,
  /** When the probe ran, milliseconds since the Unix epoch (UTC). */
  probedAtMs: EpochMillis,
});

/**
 * Proof that an inherited variable was re-verified against current ground truth
 * (seed 004, Recorded Elements 2 and Decision Boundary 2).
 *
 * `{ probe: string; observedValueDigest: HexDigest; sessionId: Identifier; probedAtMs: EpochMillis }`
 */
export type FreshnessProbeReceipt = z.infer<typeof FreshnessProbeReceiptSchema>;

/** One failed receipt check: a machine reason and a human detail (never the value itself). */
export interface ReceiptFailure {
  readonly reason: VariableRejectionReason;
  readonly detail: string;
}

/**
 * Checks that `receipt` re-verifies `value` for the active session, inside the time window
 * (seed 004, Decision Boundary 2; docs/guard.md, rules R1–R6). Returns every failed check,
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
