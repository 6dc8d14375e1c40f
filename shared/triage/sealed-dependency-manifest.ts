import { z } from 'zod';
import { HexDigest as HexDigestSchema } from '../schemas/hex-digest';
import { safeRecord } from '../schemas/safe-record';
import { ManifestFormatVersion } from './manifest-format-version';
import { presenceConflict, presenceIndex } from './presence-conflict';
import { SortedUniqueKeys } from './sorted-unique-keys';

const manifestFields = {
  preconditionSeal: HexDigestSchema,
  baselineKeyHashes: safeRecord(HexDigestSchema),
  structuralKeys: SortedUniqueKeys,
  claimDependencyMap: safeRecord(SortedUniqueKeys.min(1, 'a claim must name at least one causal key')),
};

/**
 * Schema of a format-1 manifest (strict: unknown fields, `absentKeys` included, are refused).
 *
 * The four recorded elements (docs/triage.md, "The four recorded elements"):
 * - `baselineKeyHashes` (element 1): env key → {@link envKeyHash} at write time.
 * - `structuralKeys` (element 2): keys whose drift invalidates the whole record; sorted, unique.
 * - `claimDependencyMap` (element 3): claim id → its `causal_keys`; each list sorted, unique,
 *   non-empty (a claim that depends on nothing could never be quarantined, so it is refused).
 * - element 4, the fail-closed `unattributed_drift_policy`, is not a field: it is the rule
 *   {@link isolateDelta} applies when `baselineKeyHashes` or `claimDependencyMap` is empty
 *   (a record written without granular data) on a broken seal.
 *
 * `preconditionSeal` is {@link compositeSeal} of `baselineKeyHashes`; for an empty
 * `baselineKeyHashes` it is taken as an opaque seal that cannot be self-checked.
 */
export const SealedDependencyManifestV1Schema = z.strictObject({
  formatVersion: z.literal(ManifestFormatVersion.V1),
  ...manifestFields,
});

/**
 * Schema of a format-2 manifest: the format-1 fields plus `absentKeys` (sorted, unique,
 * non-empty), the keys declared absent from the environment at write time. Structural keys and
 * claims name them like any other key; a declared-absent key that appears later is drift on
 * them. `absentKeys` is not part of `preconditionSeal` (an absent key has no value to hash; its
 * appearance breaks the composite anyway) but is covered by {@link manifestDigest}, hence by the
 * record's MAC. Refused, naming `absentKeys.<i>`: a key that also has a baseline key hash (or
 * whose other Unicode normal form has one), `__proto__` (never part of an environment), and a key
 * no structural key or claim names (it could invalidate nothing).
 */
export const SealedDependencyManifestV2Schema = z
  .strictObject({
    formatVersion: z.literal(ManifestFormatVersion.V2),
    preconditionSeal: manifestFields.preconditionSeal,
    baselineKeyHashes: manifestFields.baselineKeyHashes,
    absentKeys: SortedUniqueKeys.min(1, 'a format-2 manifest declares at least one absent key (else it is format 1)'),
    structuralKeys: manifestFields.structuralKeys,
    claimDependencyMap: manifestFields.claimDependencyMap,
  })
  .superRefine((manifest, ctx) => {
    // Refinements may run after element issues were reported; skip what is not well formed.
    if (!Array.isArray(manifest.absentKeys)) return;
    const present = presenceIndex(Object.keys(manifest.baselineKeyHashes ?? {}));
    const named = new Set<unknown>(Array.isArray(manifest.structuralKeys) ? manifest.structuralKeys : []);
    for (const keys of Object.values(manifest.claimDependencyMap ?? {})) {
      if (Array.isArray(keys)) for (const key of keys) named.add(key);
    }
    manifest.absentKeys.forEach((key, i) => {
      if (typeof key !== 'string' || !key.isWellFormed()) return;
      const conflict = presenceConflict(key, present, 'baselineKeyHashes');
      const message =
        conflict !== null
          ? `key ${JSON.stringify(key)} ${conflict}`
          : named.has(key)
            ? null
            : `key ${JSON.stringify(key)} is declared absent but no structural key or claim names it`;
      if (message !== null) ctx.addIssue({ code: 'custom', path: ['absentKeys', i], message });
    });
  });

/**
 * Schema of a {@link SealedDependencyManifest}: format 1 or 2, told apart by `formatVersion`
 * ({@link ManifestFormatVersion}); any other version is refused at `formatVersion`.
 */
export const SealedDependencyManifestSchema = z.discriminatedUnion('formatVersion', [
  SealedDependencyManifestV1Schema,
  SealedDependencyManifestV2Schema,
]);

/** A format-1 manifest: no key declared absent. */
export type SealedDependencyManifestV1 = z.infer<typeof SealedDependencyManifestV1Schema>;
/** A format-2 manifest: at least one key declared absent (`absentKeys`). */
export type SealedDependencyManifestV2 = z.infer<typeof SealedDependencyManifestV2Schema>;

/**
 * The precondition manifest stored with a sealed record (docs/triage.md, "The four recorded elements"), format
 * 1 or 2. Wire format: camelCase JSON, see {@link SealedDependencyManifestSchema}.
 */
export type SealedDependencyManifest = z.infer<typeof SealedDependencyManifestSchema>;
