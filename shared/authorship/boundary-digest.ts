import type { HexDigest } from '../canonical/digest';
import { hashCanonical } from '../canonical/hash-canonical';
import { FORMAT_VERSION, HashDomain } from '../canonical/hash-domain';
import type { SessionSnapshotBoundary } from '../write/session-boundary';

/**
 * `boundaryDigest` of a write and of its format-2 record: `hashCanonical("reseal/v1/boundary",
 * { v: 1, boundary, declaredImmutableConstants })` (array order counts). It puts the session
 * snapshot boundary the guard judged into the sealed record (docs/authorship.md).
 *
 * @throws {CanonicalizationError} when a field is not exactly representable as JSON
 */
export function boundaryDigest(
  boundary: SessionSnapshotBoundary,
  declaredImmutableConstants: readonly string[],
): HexDigest {
  return hashCanonical(HashDomain.BOUNDARY, { v: FORMAT_VERSION, boundary, declaredImmutableConstants });
}
