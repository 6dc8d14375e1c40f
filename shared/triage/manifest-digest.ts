import type { HexDigest } from '../canonical/digest';
import type { Validated } from '../schemas/validated';
import { COMPOSITE_FRAME } from './composite-seal';
import { type HashedDigestMap, hashDigestMap } from './hash-digest-map';
import { manifestFrame } from './manifest-frame';
import { parseManifest } from './parse-manifest';
import type { SealedDependencyManifest } from './sealed-dependency-manifest';

/**
 * Digest of a whole manifest, named by the record header as `manifestDigest`.
 *
 * `SHA-256("reseal/v1/manifest" || 0x00 || JCS(manifest))`, the manifest exactly as
 * {@link SealedDependencyManifestSchema} parses it (it carries `formatVersion`).
 *
 * @throws {InvalidInputError} when `manifest` does not match the schema
 */
export function manifestDigest(manifest: unknown): HexDigest {
  return manifestDigestOf(parseManifest(manifest));
}

/** {@link manifestDigest} of a manifest already validated (no second validation). */
export function manifestDigestOf(manifest: Validated<SealedDependencyManifest>): HexDigest {
  return (hashDigestMap(manifest.baselineKeyHashes, false, [manifestFrame(manifest)]) as HashedDigestMap)
    .digests[0] as HexDigest;
}

/**
 * The two digests a manifest's `baselineKeyHashes` goes into, from one pass over it:
 * {@link compositeSeal} of `baselineKeyHashes` (to compare with `preconditionSeal`) and
 * {@link manifestDigest}, each piece of the map's canonical text hashed into both. The
 * manifest's canonical text is written member by member in RFC 8785 order (`absentKeys` <
 * `baselineKeyHashes` < `claimDependencyMap` < `formatVersion` < `preconditionSeal` <
 * `structuralKeys`), the same bytes `canonicalJson(manifest)` gives.
 */
export function manifestDigests(manifest: Validated<SealedDependencyManifest>): {
  compositeSeal: HexDigest;
  manifestDigest: HexDigest;
} {
  const [compositeSeal, manifestDigest] = (
    hashDigestMap(manifest.baselineKeyHashes, false, [COMPOSITE_FRAME, manifestFrame(manifest)]) as HashedDigestMap
  ).digests as [HexDigest, HexDigest];
  return { compositeSeal, manifestDigest };
}
