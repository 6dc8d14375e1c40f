/**
 * A strict object's key set, checked by hand on the hot paths (docs/canonical-form.md, "Validate
 * once at each trust boundary"): the key sets come from shared/schemas/wire-fields.ts, one list
 * per wire type, tested against each schema's shape. An object with another key set goes to its
 * schema, which names the missing or unknown key.
 */

/** Exactly these own keys (and no others) on an `isPlainRecord` object: a strict object's key set. */
export function hasExactKeys(
  record: Record<string, unknown>,
  required: readonly string[],
  optional: readonly string[] = [],
): boolean {
  let count = 0;
  for (const key of required) {
    if (!Object.hasOwn(record, key)) return false;
    count++;
  }
  for (const key of optional) if (Object.hasOwn(record, key)) count++;
  return Object.keys(record).length === count;
}
