import { ManifestFormatVersion } from './manifest-format-version';
import type { SealedDependencyManifest } from './sealed-dependency-manifest';

/** The keys a manifest declares absent: `absentKeys` of format 2, none in format 1. */
export function declaredAbsentKeys(manifest: SealedDependencyManifest): readonly string[] {
  return manifest.formatVersion === ManifestFormatVersion.V2 ? manifest.absentKeys : [];
}
