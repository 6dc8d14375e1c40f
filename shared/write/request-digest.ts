import type { HexDigest } from '../canonical/digest';
import { hashCanonical } from '../canonical/hash-canonical';
import { HashDomain } from '../canonical/hash-domain';
import type { ResidualWriteRequest } from './write-request';

/**
 * Digest of a write request as published: `SHA-256("reseal/v1/write-request" || 0x00 || JCS(request))`.
 * The client computes it from the request it sent; the guard and the sealer from the request they parsed.
 */
export function requestDigest(request: ResidualWriteRequest): HexDigest {
  return hashCanonical(HashDomain.WRITE_REQUEST, request);
}
