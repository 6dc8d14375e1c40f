import { z } from 'zod';
import { compareCodeUnits } from '../canonical/compare-code-units';

/**
 * Why the guard rejected one variable of a write (docs/guard.md, rules V1–V6,
 * E1–E3 and R1–R6). Each value is documented in docs/guard.md, "Reasons".
 */
export const VariableRejectionReason = {
  /** Inherited and never re-verified (rule V4). */
  UNVERIFIED_INHERITED: 'UNVERIFIED_INHERITED',
  /** Claimed `VERIFIED_INHERITED` without a receipt (rule V2). */
  MISSING_RECEIPT: 'MISSING_RECEIPT',
  /** The receipt does not name its probe (blank `probe`). */
  RECEIPT_PROBE_UNNAMED: 'RECEIPT_PROBE_UNNAMED',
  /** The receipt observed a different value than the one written. */
  RECEIPT_VALUE_MISMATCH: 'RECEIPT_VALUE_MISMATCH',
  /** The receipt was produced by another session than the active one. */
  RECEIPT_WRONG_SESSION: 'RECEIPT_WRONG_SESSION',
  /** The probe ran at or before the session snapshot boundary, so it re-verified nothing. */
  RECEIPT_BEFORE_BOUNDARY: 'RECEIPT_BEFORE_BOUNDARY',
  /** The probe claims a time later than now plus the tolerated clock skew. */
  RECEIPT_FROM_FUTURE: 'RECEIPT_FROM_FUTURE',
  /** The probe is older than the policy's `maxReceiptAgeSeconds`. */
  RECEIPT_EXPIRED: 'RECEIPT_EXPIRED',
  /** Claimed `IMMUTABLE_CONSTANT` for a name the request does not declare (rule V5). */
  UNDECLARED_IMMUTABLE_CONSTANT: 'UNDECLARED_IMMUTABLE_CONSTANT',
  /** Claimed `FRESH_GENERATED` with a source epoch other than the write's (temporal epoch collapse). */
  EPOCH_COLLAPSE: 'EPOCH_COLLAPSE',
  /**
   * Inherited (`VERIFIED_INHERITED` or `UNVERIFIED_INHERITED`) with a `sourceEpoch` at or after the
   * write's `generationEpoch`: an inherited value is a pointer from a past epoch (rule E1).
   */
  INHERITED_EPOCH_NOT_PAST: 'INHERITED_EPOCH_NOT_PAST',
  /**
   * Inherited with a `sourceEpoch` later than `boundary.predecessorEpoch`: the predecessor cannot
   * hand over a value from after its own termination epoch (rule E2).
   */
  INHERITED_EPOCH_AFTER_PREDECESSOR: 'INHERITED_EPOCH_AFTER_PREDECESSOR',
  /** Inherited in a write whose boundary names no predecessor: a cold start has no inherited context (rule E3). */
  INHERITED_WITHOUT_PREDECESSOR: 'INHERITED_WITHOUT_PREDECESSOR',
} as const;
/** One of {@link VariableRejectionReason}. */
export type VariableRejectionReason = (typeof VariableRejectionReason)[keyof typeof VariableRejectionReason];

/** Schema of a {@link RejectedVariable}. */
export const RejectedVariableSchema = z.strictObject({
  name: z.string(),
  reason: z.enum(VariableRejectionReason),
  detail: z.string(),
});
/** One rejected variable with a machine `reason` and a human `detail`. */
export type RejectedVariable = z.infer<typeof RejectedVariableSchema>;

/** Sorts rejections by name, then reason. */
export function sortRejections<T extends { name: string; reason: string }>(items: readonly T[]): T[] {
  return [...items].sort((x, y) => compareCodeUnits(x.name, y.name) || compareCodeUnits(x.reason, y.reason));
}
