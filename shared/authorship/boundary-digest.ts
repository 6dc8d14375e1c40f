import { FORMAT_VERSION, HashDomain, type HexDigest, hashCanonical } from '../canonical/digest';
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
