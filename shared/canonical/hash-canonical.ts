import { hash } from 'node:crypto';
import { CanonicalizationError } from '../errors';
import { canonicalJson } from './canonical-json';
import type { HexDigest } from './digest';
import type { HashDomainTag } from './hash-domain';

/**
 * Domain-separated SHA-256 of the RFC 8785 canonical form of `value`:
 * `SHA-256(ASCII(tag) || 0x00 || UTF-8(canonicalJson(value)))`.
 *
 * The tag, the NUL and the canonical text are hashed as one string, which `crypto.hash` encodes
 * as UTF-8: the same bytes as {@link hashBytes} of `canonicalBytes(value)`, since the tag is ASCII
 * and the canonical text is well-formed (no lone surrogate to replace), without building them.
 *
 * @throws {CanonicalizationError} when `value` is not exactly representable as JSON
 */
export function hashCanonical(domain: HashDomainTag, value: unknown): HexDigest {
  return hash('sha256', `${domain}\0${canonicalJson(value)}`, 'hex');
}

/**
 * {@link hashCanonical} for a caller that already holds the canonical text (from
 * `canonicalJson`, e.g. after measuring its size): the same digest without serializing again.
 * The text is hashed as given; only its UTF-8 form must exist.
 *
 * @param canonicalText - RFC 8785 text as `canonicalJson` returns it
 * @throws {CanonicalizationError} when the text holds a lone UTF-16 surrogate (it has no UTF-8
 *   form, and hashing would silently substitute U+FFFD)
 */
export function hashCanonicalText(domain: HashDomainTag, canonicalText: string): HexDigest {
  if (!canonicalText.isWellFormed()) throw new CanonicalizationError('', 'text holds a lone UTF-16 surrogate');
  return hash('sha256', `${domain}\0${canonicalText}`, 'hex');
}

/**
 * {@link hashCanonicalText} of a text `canonicalJson` has just returned (or a writer of the same
 * bytes over validated strings): well-formed by construction, since the writer refuses lone
 * surrogates, so it is hashed without scanning it again.
 */
export function hashWrittenCanonical(domain: HashDomainTag, canonicalText: string): HexDigest {
  return hash('sha256', `${domain}\0${canonicalText}`, 'hex');
}
