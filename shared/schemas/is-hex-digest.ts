import { HEX_DIGEST_PATTERN } from '../canonical/digest';
import { isAsciiMapKey } from './is-ascii-map-key';
import { isPlainRecord } from './is-plain-record';

/**
 * Hex digests and maps of them, checked by hand on the hot paths (docs/canonical-form.md,
 * "Validate once at each trust boundary"): the fast half of `HexDigest` and of a manifest's
 * `safeRecord(HexDigest)`, where a long chain or a large manifest holds one digest per record or
 * key. A value these do not accept goes to its schema, which decides and words the error.
 */

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
