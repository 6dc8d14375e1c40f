/**
 * Orders two strings by UTF-16 code units, the order RFC 8785 uses for object keys: negative,
 * zero or positive, as `Array.prototype.sort` takes it (docs/canonical-form.md, "Byte layout").
 */
export function compareCodeUnits(a: string, b: string): number {
  if (a < b) return -1;
  return a > b ? 1 : 0;
}
