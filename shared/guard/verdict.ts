import { z } from 'zod';
import { FORMAT_VERSION, HashDomain, type HexDigest, hashCanonical } from '../canonical/digest';
import type { Authority } from '../schemas/authority';
import { HexDigest as HexDigestSchema } from '../schemas/hex-digest';

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

/** Why the guard refused a write as a whole, independently of its variables. */
export const RequestViolationReason = {
  /** `sessionId` is not the boundary's active session (the write is attributed to another session). */
  SESSION_MISMATCH: 'SESSION_MISMATCH',
  /** The boundary names the active session as its own predecessor: no demarcation at all. */
  SESSION_COLLAPSE: 'SESSION_COLLAPSE',
  /** `generationEpoch` is not greater than the predecessor's (temporal epoch collapse; fencing token). */
  EPOCH_COLLAPSE: 'EPOCH_COLLAPSE',
  /** The boundary lies later than now plus the tolerated clock skew. */
  BOUNDARY_FROM_FUTURE: 'BOUNDARY_FROM_FUTURE',
} as const;
/** One of {@link RequestViolationReason}. */
export type RequestViolationReason = (typeof RequestViolationReason)[keyof typeof RequestViolationReason];

/** Schema of a {@link RejectedVariable}. */
export const RejectedVariableSchema = z.strictObject({
  name: z.string(),
  reason: z.enum(VariableRejectionReason),
  detail: z.string(),
});
/** One rejected variable with a machine `reason` and a human `detail`. */
export type RejectedVariable = z.infer<typeof RejectedVariableSchema>;

/** Schema of a {@link RequestViolation}. */
export const RequestViolationSchema = z.strictObject({
  field: z.string(),
  reason: z.enum(RequestViolationReason),
  detail: z.string(),
});
/** One request-level violation, naming the dotted `field` it concerns. */
export type RequestViolation = z.infer<typeof RequestViolationSchema>;

/**
 * Schema of a {@link WriteVerdict}. Refuses a verdict whose `isSafe` contradicts its lists,
 * so a forged "safe" verdict with rejections cannot pass {@link WriteVerdictSchema}.
 */
export const WriteVerdictSchema = z
  .strictObject({
    isSafe: z.boolean(),
    rejectedVariables: z.array(RejectedVariableSchema),
    requestViolations: z.array(RequestViolationSchema),
    verdictDigest: HexDigestSchema,
  })
  .refine((v) => v.isSafe === (v.rejectedVariables.length === 0 && v.requestViolations.length === 0), {
    message: 'isSafe must be true exactly when there are no rejected variables and no request violations',
    path: ['isSafe'],
  });

/**
 * The stale-state guard's decision on one write (docs/guard.md, "Rules" and "Reasons").
 *
 * `{ isSafe; rejectedVariables: { name; reason; detail }[]; requestViolations: { field; reason; detail }[]; verdictDigest }`
 * Both lists are sorted by (name or field, then reason), UTF-16 code unit order.
 */
export type WriteVerdict = z.infer<typeof WriteVerdictSchema>;

/** What {@link verdictDigestOf} hashes besides the verdict's own lists. */
export interface VerdictSubject {
  readonly residualId: string;
  readonly lineageId: string;
  readonly sessionId: string;
  readonly generationEpoch: number;
  readonly authority: Authority;
}

/** Code unit order, the order RFC 8785 uses for object keys. */
function compareCodeUnits(a: string, b: string): number {
  if (a < b) return -1;
  return a > b ? 1 : 0;
}

/** Sorts rejections by name, then reason. */
export function sortRejections<T extends { name: string; reason: string }>(items: readonly T[]): T[] {
  return [...items].sort((x, y) => compareCodeUnits(x.name, y.name) || compareCodeUnits(x.reason, y.reason));
}

/** Sorts violations by field, then reason. */
export function sortViolations<T extends { field: string; reason: string }>(items: readonly T[]): T[] {
  return [...items].sort((x, y) => compareCodeUnits(x.field, y.field) || compareCodeUnits(x.reason, y.reason));
}

/**
 * The verdict digest: binds the decision to the write it judged, with no clock inside, so the
 * same request and outcome give the same digest in every run and every language
 * (docs/guard.md, "verdictDigest").
 *
 * `SHA-256( "reseal/v1/verdict-digest" || 0x00 || JCS(preimage) )` where `preimage` is
 * `{ formatVersion: 1, residualId, lineageId, sessionId, generationEpoch, authority, isSafe,
 *    rejectedVariables: [{ name, reason }] sorted, requestViolations: [{ field, reason }] sorted }`.
 * Details are human text and are not hashed. Byte layout: docs/guard.md. Inputs are trusted
 * (already parsed by `evaluateWrite`).
 *
 * @throws {CanonicalizationError} only for strings RFC 8785 cannot carry (never for parsed input)
 */
export function verdictDigestOf(
  subject: VerdictSubject,
  rejectedVariables: readonly { name: string; reason: string }[],
  requestViolations: readonly { field: string; reason: string }[],
): HexDigest {
  const preimage = {
    formatVersion: FORMAT_VERSION,
    residualId: subject.residualId,
    lineageId: subject.lineageId,
    sessionId: subject.sessionId,
    generationEpoch: subject.generationEpoch,
    authority: subject.authority,
    isSafe: rejectedVariables.length === 0 && requestViolations.length === 0,
    rejectedVariables: sortRejections(rejectedVariables).map(({ name, reason }) => ({ name, reason })),
    requestViolations: sortViolations(requestViolations).map(({ field, reason }) => ({ field, reason })),
  };
  return hashCanonical(HashDomain.VERDICT, preimage);
}
