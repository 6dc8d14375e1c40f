/**
 * Manifest format versions. A verifier tells them apart by `formatVersion` alone, and refuses
 * any other value instead of guessing the layout (docs/canonical-form.md, "Manifest versions").
 * - `V1`: every structural and causal key was present at write time (a key hash each).
 * - `V2`: adds `absentKeys`, keys declared absent at write time that structural keys or claims
 *   rest on. Written only when at least one key is declared absent, so a manifest without one
 *   keeps the exact `V1` bytes and digest it always had.
 *
 * Only the manifest moves on: record headers, reports and every other hashed structure keep
 * `FORMAT_VERSION` 1.
 */
export const ManifestFormatVersion = { V1: 1, V2: 2 } as const;
/** One of {@link ManifestFormatVersion}. */
export type ManifestFormatVersion = (typeof ManifestFormatVersion)[keyof typeof ManifestFormatVersion];
/** The newest manifest format this code reads and writes. */
export const MANIFEST_FORMAT_VERSION = ManifestFormatVersion.V2;
