import { isPlainRecord } from './is-plain-record';
import { RESERVED_KEY } from './safe-record';

/**
 * Printable-ASCII map keys, the lists and maps of them, and ASCII text, checked by hand on the
 * hot paths (docs/canonical-form.md, "Validate once at each trust boundary"): one pattern test per
 * key where `MapKey` in `safeRecord` runs several zod closures. An ASCII key is its own NFC form,
 * so ASCII keys cannot collide in `safeRecord`'s NFC-collision check, and only they skip it; a map
 * with a key outside printable ASCII is left to its schema on purpose.
 */

/**
 * `RESERVED_KEY`, read once: the checks below compare every key with it, and a binding imported
 * from another module is read through an accessor call under a CommonJS-style loader (tsx, which
 * runs the bench), 2% of triage's time at 10,000 keys.
 */
const RESERVED = RESERVED_KEY;

/** A printable-ASCII map key of 1–512 characters: a `MapKey` that is its own NFC form. */
const ASCII_MAP_KEY = /^[\x20-\x7e]{1,512}$/;

/**
 * Printable ASCII but `"` and `\`: the characters JSON (and so RFC 8785, §3.2.2.2) writes
 * between the quotes of a string as they are, so the string's JSON text is `"` + itself + `"`.
 */
const PLAIN_ASCII_MAP_KEY = /^[\x20\x21\x23-\x5b\x5d-\x7e]{1,512}$/;
const PLAIN_ASCII_TEXT = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/** A `MapKey` in printable ASCII, not `__proto__` (so no NFC collision is possible among such keys). */
export function isAsciiMapKey(key: unknown): key is string {
  return typeof key === 'string' && ASCII_MAP_KEY.test(key) && key !== RESERVED;
}

/**
 * An {@link isAsciiMapKey} key that needs no escape in JSON: its RFC 8785 text is `"${key}"`.
 * One test for both, where the hot paths would otherwise test the key and then its escapes.
 */
export function isPlainAsciiMapKey(key: string): boolean {
  return PLAIN_ASCII_MAP_KEY.test(key) && key !== RESERVED;
}

/** A text in printable ASCII with no `"` or `\` (possibly empty): its RFC 8785 text is `"${text}"`. */
export function isPlainAsciiText(text: string): boolean {
  return PLAIN_ASCII_TEXT.test(text);
}

/**
 * A `safeRecord(value)` map whose keys are all {@link isAsciiMapKey}: plain, no `__proto__`, each
 * value accepted by `acceptsValue`.
 */
export function acceptsAsciiMap(map: unknown, acceptsValue: (value: unknown) => boolean): boolean {
  if (!isPlainRecord(map)) return false;
  for (const key of Object.keys(map)) if (!isAsciiMapKey(key) || !acceptsValue(map[key])) return false;
  return true;
}

/** A `SortedUniqueKeys` list (with at least `min` keys) of {@link isAsciiMapKey} keys. */
export function acceptsSortedAsciiKeys(list: unknown, min = 0): boolean {
  if (!Array.isArray(list) || list.length < min) return false;
  let previous = '';
  for (let i = 0; i < list.length; i++) {
    const key: unknown = list[i];
    if (!isAsciiMapKey(key) || (i > 0 && !(previous < key))) return false;
    previous = key;
  }
  return true;
}
