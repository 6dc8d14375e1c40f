import { z } from 'zod';
import { EpochMillis } from '../schemas/epoch-millis';
import { Identifier } from '../schemas/identifier';
import { NonNegativeInt } from '../schemas/non-negative-int';

/**
 * Schema of a {@link SessionSnapshotBoundary}: strict object, unknown fields refused.
 *
 * A boundary names its predecessor completely or not at all (docs/guard.md,
 * rule M4): `predecessorSessionId` and `predecessorEpoch` are both present (the
 * active session inherited context) or both absent (a cold start). A half-named predecessor is
 * invalid input, with the issue at the missing field, like a missing
 * generation epoch (rule M1): without the predecessor's epoch the fencing check (rule Q3) and the inherited
 * variables' epoch checks would silently switch off. The JSON Schema says the same with
 * `dependentRequired`.
 */
export const SessionSnapshotBoundarySchema = z
  .strictObject({
    /** The session that is writing now. */
    activeSessionId: Identifier,
    /** The session whose context was inherited; absent on a cold start (then so is `predecessorEpoch`). */
    predecessorSessionId: Identifier.optional(),
    /** The predecessor's generation epoch; present exactly when `predecessorSessionId` is; the write's epoch must be greater. */
    predecessorEpoch: NonNegativeInt.optional(),
    /** When the active session took over, milliseconds since the Unix epoch (UTC). */
    boundaryAtMs: EpochMillis,
  })
  .superRefine((boundary, ctx) => {
    const namesSession = boundary.predecessorSessionId !== undefined;
    const namesEpoch = boundary.predecessorEpoch !== undefined;
    if (namesSession === namesEpoch) return;
    ctx.addIssue({
      code: 'custom',
      message: namesSession
        ? 'a boundary that names a predecessor session must also give its predecessorEpoch (or name neither, for a cold start)'
        : 'a boundary that gives a predecessorEpoch must also name the predecessorSessionId (or give neither, for a cold start)',
      path: [namesSession ? 'predecessorEpoch' : 'predecessorSessionId'],
    });
  })
  .meta({
    dependentRequired: { predecessorSessionId: ['predecessorEpoch'], predecessorEpoch: ['predecessorSessionId'] },
  });

/**
 * Demarcation between the predecessor's terminal state and the active write context
 * (docs/guard.md, rules Q1–Q4 and M4).
 *
 * `{ activeSessionId; predecessorSessionId?; predecessorEpoch?; boundaryAtMs }`
 */
export type SessionSnapshotBoundary = z.infer<typeof SessionSnapshotBoundarySchema>;
