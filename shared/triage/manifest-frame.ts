import { canonicalJson } from '../canonical/canonical-json';
import { HashDomain } from '../canonical/hash-domain';
import type { HashFrame } from './hash-digest-map';
import { ManifestFormatVersion } from './manifest-format-version';
import type { SealedDependencyManifest } from './sealed-dependency-manifest';

/**
 * The {@link manifestDigest} frame of a validated manifest: the domain tag, NUL and the
 * manifest's canonical text before and after the canonical text of its `baselineKeyHashes`.
 */
export function manifestFrame(manifest: SealedDependencyManifest): HashFrame {
  const absent =
    manifest.formatVersion === ManifestFormatVersion.V2 ? `"absentKeys":${canonicalJson(manifest.absentKeys)},` : '';
  return [
    `${HashDomain.MANIFEST}\0{${absent}"baselineKeyHashes":`,
    `,"claimDependencyMap":${canonicalJson(manifest.claimDependencyMap)},"formatVersion":${manifest.formatVersion},"preconditionSeal":"${manifest.preconditionSeal}","structuralKeys":${canonicalJson(manifest.structuralKeys)}}`,
  ];
}
