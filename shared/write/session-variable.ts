import { z } from 'zod';
import { NO_CONTROL_CHARACTERS } from '../schemas/no-control-characters';
import { NonNegativeInt } from '../schemas/non-negative-int';
import { wellFormedString } from '../schemas/well-formed-string';
import { FreshnessProbeReceiptSchema } from './receipts';

/**
 * Where a session variable came from (docs/guard.md, "Rules").
 * - `FRESH_GENERATED`: produced by the active session in its own generation epoch.
 * - `VERIFIED_INHERITED`: pulled from a predecessor, then re-verified (carries a receipt).
 * - `UNVERIFIED_INHERITED`: pulled from a predecessor and not re-verified; never written.
 * - `IMMUTABLE_CONSTANT`: provably immutable (e.g. a static schema version); counts only when
 *   the request declares its name in `declaredImmutableConstants`.
 */
export const VariableFreshness = {
  FRESH_GENERATED: 'FRESH_GENERATED',
  VERIFIED_INHERITED: 'VERIFIED_INHERITED',
  UNVERIFIED_INHERITED: 'UNVERIFIED_INHERITED',
  IMMUTABLE_CONSTANT: 'IMMUTABLE_CONSTANT',
} as const;
/** One of {@link VariableFreshness}. */
export type VariableFreshness = (typeof VariableFreshness)[keyof typeof VariableFreshness];
/** Schema of {@link VariableFreshness}. */
export const VariableFreshnessSchema = z.enum(VariableFreshness);

/** Longest variable name, in UTF-16 code units. */
export const MAX_VARIABLE_NAME_LENGTH = 256;
/** Largest variable value, in UTF-8 bytes (16 KiB). */
export const MAX_VARIABLE_VALUE_BYTES = 16_384;

const encoder = new TextEncoder();

/**
 * A variable name: 1–256 UTF-16 units, well-formed Unicode, no control characters
 * (U+0000–U+001F, U+007F). Compared exactly, code unit for code unit; no normalization.
 */
export const VariableName = wellFormedString(MAX_VARIABLE_NAME_LENGTH)
  .min(1, 'name must not be empty')
  .regex(NO_CONTROL_CHARACTERS, 'name holds a control character');

/**
 * A variable value: well-formed Unicode, at most 16 KiB of UTF-8. Any other character is
 * allowed (values are tokens, ids, JSON fragments, multi-line text).
 */
export const VariableValue = wellFormedString(MAX_VARIABLE_VALUE_BYTES).refine(
  // A string over the unit bound is already reported; UTF-8 never has fewer bytes than UTF-16 units.
  (s) => s.length > MAX_VARIABLE_VALUE_BYTES || encoder.encode(s).length <= MAX_VARIABLE_VALUE_BYTES,
  { message: `value is longer than ${MAX_VARIABLE_VALUE_BYTES} UTF-8 bytes` },
);

/**
 * Schema of a {@link SessionVariable}: strict object, unknown fields refused.
 *
 * A receipt may be present on any variable, and its shape is always checked, but the guard
 * evaluates it only for `VERIFIED_INHERITED` variables.
 */
export const SessionVariableSchema = z.strictObject({
  name: VariableName,
  value: VariableValue,
  freshness: VariableFreshnessSchema,
  /** Generation epoch the value comes from: the active one for fresh values, a predecessor's for inherited ones. */
  sourceEpoch: NonNegativeInt,
  receipt: FreshnessProbeReceiptSchema.optional(),
});

/**
 * A variable a residual write uses, tagged with its freshness and source epoch
 * (docs/guard.md, "Input").
 *
 * `{ name: string; value: string; freshness: VariableFreshness; sourceEpoch: number; receipt?: FreshnessProbeReceipt }`
 */
export type SessionVariable = z.infer<typeof SessionVariableSchema>;
