import { HEX_DIGEST_PATTERN } from '../canonical/digest';
import { RESERVED_KEY } from './safe-record';

/**
 * Hand-written acceptance checks for the hot paths (large manifests and environments, long
 * chains), each the fast half of a zod schema in shared/schemas/.
 *
 * Why not zod here: zod stays at every boundary for its error messages, but a zod parse of a
 * `Record<string, string>` runs several closures per key, builds a copy and an issue list, about
 * 0.7 µs per key on the project's machine: more than the SHA-256 that triage spends on the key.
 * These checks cost one regular-expression test per key. Each accepts only values its schema
 * accepts (test/unit/shared/schemas/hot-checks.property.test.ts proves it on generated and
 * mutated values); a value they do not accept, valid or not, goes to the schema, which decides
 * and words the error. So a message or verdict never depends on which path ran. The key sets of
 * the object checks come from shared/schemas/wire-fields.ts, one list per wire type, tested
 * against each schema's shape.
 *
 * What they leave to the schema on purpose: map keys outside printable ASCII (an ASCII key is
 * its own NFC form, so ASCII keys cannot collide in the NFC-collision check, and only they skip
 * it), own `constructor` or symbol keys, objects with an unusual prototype.
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
 * An object with a plain prototype, for a strict object's shape whose keys {@link hasExactKeys}
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

/** A SHA-256 hex digest (`HexDigest`). */
export function isHexDigest(value: unknown): value is string {
  return typeof value === 'string' && HEX_DIGEST_PATTERN.test(value);
}

const UPPERCASE_HEX = /[A-F]/;

/** Up to this many digests, {@link areHexDigests} tests each with the pattern (measured on Node 20). */
const FEW_DIGESTS = 8;

/**
 * Whether every value is a `HexDigest` (64 lowercase hex characters). Up to eight values are
 * tested one by one; more are checked together: the values are joined once and the text must be
 * ASCII (its UTF-8 length is its length), decode as hex to 32 bytes per value (Node's decoder
 * stops at the first character that is not hex) and hold no uppercase digit, at about 0.4× the
 * cost per digest of the pattern test on the project's machine. The same answer as
 * {@link isHexDigest} on each, holes included (a property test compares them on mutated digests).
 */
export function areHexDigests(values: readonly unknown[]): boolean {
  // A few digests (a record's own, a small manifest's) cost less tested one by one than joined.
  // A loop, not `every`, which would skip holes.
  if (values.length <= FEW_DIGESTS) {
    for (let i = 0; i < values.length; i++) if (!isHexDigest(values[i])) return false;
    return true;
  }
  for (const value of values) if (typeof value !== 'string' || value.length !== 64) return false;
  const text = values.join('');
  return (
    Buffer.byteLength(text, 'utf8') === text.length &&
    Buffer.from(text, 'hex').byteLength === 32 * values.length &&
    !UPPERCASE_HEX.test(text)
  );
}

/** A `safeRecord(HexDigest)` map whose keys are all {@link isAsciiMapKey} (a manifest's `baselineKeyHashes`). */
export function acceptsDigestMap(map: unknown): boolean {
  if (!isPlainRecord(map)) return false;
  const keys = Object.keys(map);
  const values: unknown[] = new Array(keys.length);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    if (!isAsciiMapKey(key)) return false;
    values[i] = map[key];
  }
  return areHexDigests(values);
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

/** Exactly these own keys (and no others) on a {@link isPlainRecord}: a strict object's key set. */
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

/** A `NonNegativeInt`: a safe integer ≥ 0. */
export function isNonNegativeInt(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}
