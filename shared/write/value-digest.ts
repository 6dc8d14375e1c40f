import type { HexDigest } from '../canonical/digest';
import { hashCanonical } from '../canonical/hash-canonical';
import { FORMAT_VERSION, HashDomain } from '../canonical/hash-domain';

/**
 * Digest of a session variable's value, the one a freshness probe receipt must name
 * (docs/guard.md, "valueDigest" and rule R2).
 *
 * Layout: `SHA-256( "reseal/v1/value" || 0x00 || JCS({ "v": 1, "value": value }) )`, 64
 * lowercase hex characters, where JCS is the RFC 8785 canonical UTF-8 form.
 *
 * @example
 * ```ts
 * valueDigest('i-0abc'); // 64 hex chars, the same in every run and every language
 * ```
 * @param value - the variable's value, exactly as written (no trimming, no normalization)
 * @throws {CanonicalizationError} when `value` holds a lone UTF-16 surrogate
 */
export function valueDigest(value: string): HexDigest {
  return hashCanonical(HashDomain.VALUE, { v: FORMAT_VERSION, value });
}
