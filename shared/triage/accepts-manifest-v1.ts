import type { HexDigest } from '../canonical/digest';
import { hasExactKeys } from '../schemas/has-exact-keys';
import { acceptsAsciiMap, acceptsSortedAsciiKeys } from '../schemas/is-ascii-map-key';
import { acceptsDigestMap, areHexDigests, isHexDigest } from '../schemas/is-hex-digest';
import { isPlainRecord } from '../schemas/is-plain-record';
import { markValidated, type Validated } from '../schemas/validated';
import { WireFields } from '../schemas/wire-fields';
import { COMPOSITE_FRAME } from './composite-seal';
import { type BaselineVisitor, hashDigestMap } from './hash-digest-map';
import { ManifestFormatVersion } from './manifest-format-version';
import { manifestFrame } from './manifest-frame';
import type { SealedDependencyManifest } from './sealed-dependency-manifest';

const V1_FIELDS = WireFields.manifestV1.required;
const isClaimKeys = (keys: unknown) => acceptsSortedAsciiKeys(keys, 1);

/**
 * Whether `raw` is a format-1 manifest {@link SealedDependencyManifestSchema} accepts, by the
 * hand-written checks of shared/schemas/is-ascii-map-key.ts and is-hex-digest.ts (one
 * regular-expression test per key; zod costs about 0.9 µs per key on a 10,000-key manifest).
 * `false` means "ask the schema": it is also the answer for a valid manifest with a non-ASCII
 * key, and for every format-2 manifest.
 */
export function acceptsManifestV1(raw: unknown): boolean {
  return acceptsV1AroundBaseline(raw) && acceptsDigestMap(raw.baselineKeyHashes);
}

/**
 * For triage alone (`isolateDelta`): when `raw` passes every check of {@link acceptsManifestV1}
 * except that its `baselineKeyHashes` values are only known to be 64-character strings (not yet
 * lowercase hex), the {@link compositeSeal} of `baselineKeyHashes` hashed in the same pass as
 * those checks, and the number of its keys; else `null`. Triage finishes the check where it is
 * cheap: a baseline value equal to a key hash it computed is hex, so only the values of drifted
 * keys need the pattern test; on any failure it calls {@link parseManifest}, which words the
 * error. (With a value that is not hex the seal is still that of the text written, which cannot
 * match a manifest that is valid; triage then calls {@link parseManifest} before reporting.)
 */
export function acceptManifestAwaitingBaseline(
  raw: unknown,
  visit?: BaselineVisitor,
): { manifest: SealedDependencyManifest; compositeSeal: HexDigest; size: number } | null {
  if (!acceptsV1AroundBaseline(raw)) return null;
  const hashed = hashDigestMap(raw.baselineKeyHashes, true, [COMPOSITE_FRAME], visit);
  if (hashed === null) return null;
  return {
    manifest: raw as SealedDependencyManifest,
    compositeSeal: hashed.digests[0] as HexDigest,
    size: hashed.size,
  };
}

/** {@link acceptsManifestV1} but for `baselineKeyHashes`, which the caller checks in its own pass. */
function acceptsV1AroundBaseline(raw: unknown): raw is Record<string, unknown> {
  return (
    isPlainRecord(raw) &&
    hasExactKeys(raw, V1_FIELDS) &&
    raw.formatVersion === ManifestFormatVersion.V1 &&
    isHexDigest(raw.preconditionSeal) &&
    acceptsSortedAsciiKeys(raw.structuralKeys) &&
    acceptsAsciiMap(raw.claimDependencyMap, isClaimKeys)
  );
}

/**
 * For the sealer's boundary: a format-1 manifest checked by hand and digested in the same pass
 * over `baselineKeyHashes` (each member checked as it is written into both hashes, the digests'
 * hex checked together after), with {@link manifestDigests}' two digests and the map's number of
 * keys; else `null` (a format-2 manifest, a non-ASCII key, anything to refuse), and the caller
 * asks {@link isManifest} or the schema. Accepts exactly what {@link acceptsManifestV1} accepts.
 */
export function acceptManifestWithDigests(raw: unknown): {
  manifest: Validated<SealedDependencyManifest>;
  compositeSeal: HexDigest;
  manifestDigest: HexDigest;
  size: number;
} | null {
  if (!acceptsV1AroundBaseline(raw)) return null;
  const manifest = raw as SealedDependencyManifest;
  const digests: string[] = [];
  const collect = (_key: string, digest: string): boolean => digests.push(digest) > 0;
  const hashed = hashDigestMap(raw.baselineKeyHashes, true, [COMPOSITE_FRAME, manifestFrame(manifest)], collect);
  if (hashed === null || !areHexDigests(digests)) return null;
  const [compositeSeal, manifestDigest] = hashed.digests as [HexDigest, HexDigest];
  return { manifest: markValidated(manifest), compositeSeal, manifestDigest, size: hashed.size };
}
