import type { HexDigest } from '../canonical/digest';
import { hashCanonical } from '../canonical/hash-canonical';
import { HashDomain } from '../canonical/hash-domain';

/**
 * The record's payload hash (docs/sealing.md, "Byte layouts"): domain-separated SHA-256 (`HashDomain.PAYLOAD`) of the RFC 8785
 * canonical UTF-8 form of the payload.
 *
 * @param payload - any JSON value
 * @returns 64 lowercase hex characters, independent of key order
 * @throws {CanonicalizationError} when `payload` is not exactly representable as JSON
 */
export function payloadHash(payload: unknown): HexDigest {
  return hashCanonical(HashDomain.PAYLOAD, payload);
}
