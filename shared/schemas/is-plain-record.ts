import { RESERVED_KEY } from './safe-record';

/**
 * Plain records and objects, checked by hand on the hot paths (docs/canonical-form.md, "Validate
 * once at each trust boundary"): the first test of every hand-written map and object check. An
 * object these do not accept (an own `constructor` or symbol key, an unusual prototype) is left
 * to its schema on purpose, which decides and words the error.
 */

/**
 * `RESERVED_KEY`, read once: {@link isPlainRecord} tests every object with it, and a binding
 * imported from another module is read through an accessor call under a CommonJS-style loader
 * (tsx, which runs the bench), 2% of triage's time at 10,000 keys.
 */
const RESERVED = RESERVED_KEY;

/** An object zod's record and object schemas read as plain, with no key they treat specially. */
export function isPlainRecord(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return (
    (proto === Object.prototype || proto === null) &&
    !Object.hasOwn(value, 'constructor') &&
    !Object.hasOwn(value, RESERVED) &&
    Object.getOwnPropertySymbols(value).length === 0
  );
}

/**
 * An object with a plain prototype, for a strict object's shape whose keys `hasExactKeys`
 * then checks: {@link isPlainRecord} without its key checks, which that makes redundant there (an
 * own `constructor` or `__proto__` key is an unknown key of the strict object, and a symbol key is
 * ignored by zod's strict objects as by `Object.keys`). Not for maps (`safeRecord`), which refuse
 * those keys: use {@link isPlainRecord}.
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
