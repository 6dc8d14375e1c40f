/** How many own enumerable keys `raw` has when it is a non-array object, else 0. */
export function ownKeyCount(raw: unknown): number {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return 0;
  return Object.keys(raw).length;
}
