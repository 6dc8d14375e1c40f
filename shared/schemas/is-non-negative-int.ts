/**
 * A `NonNegativeInt`: a safe integer ≥ 0. Checked by hand on the hot paths (docs/canonical-form.md,
 * "Validate once at each trust boundary"), where a long chain holds several per record.
 */
export function isNonNegativeInt(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}
