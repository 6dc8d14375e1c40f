import { z } from 'zod';
import { compareCodeUnits } from '../canonical/compare-code-units';

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

/** Schema of a {@link RequestViolation}. */
export const RequestViolationSchema = z.strictObject({
  field: z.string(),
  reason: z.enum(RequestViolationReason),
  detail: z.string(),
});
/** One request-level violation, naming the dotted `field` it concerns. */
export type RequestViolation = z.infer<typeof RequestViolationSchema>;

/** Sorts violations by field, then reason. */
export function sortViolations<T extends { field: string; reason: string }>(items: readonly T[]): T[] {
  return [...items].sort((x, y) => compareCodeUnits(x.field, y.field) || compareCodeUnits(x.reason, y.reason));
}
