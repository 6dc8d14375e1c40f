import { parseInput } from '../schemas/parse';
import { markValidated, type Validated } from '../schemas/validated';
import { acceptsManifestV1 } from './accepts-manifest-v1';
import { type SealedDependencyManifest, SealedDependencyManifestSchema } from './sealed-dependency-manifest';

/**
 * Validates an untrusted manifest once: the checked entry point every consumer of a manifest
 * goes through (triage, sealing, verification), after which it passes the
 * {@link Validated} value inward.
 *
 * @param what - what the manifest is, for the error message
 * @throws {InvalidInputError} naming each bad field, as {@link SealedDependencyManifestSchema} words it
 */
export function parseManifest(raw: unknown, what = 'sealed dependency manifest'): Validated<SealedDependencyManifest> {
  if (acceptsManifestV1(raw)) return markValidated(raw as SealedDependencyManifest);
  return markValidated(parseInput(SealedDependencyManifestSchema, raw, what));
}

/** Whether {@link SealedDependencyManifestSchema} accepts `raw` (the fast checks first, the schema when they cannot tell). */
export function isManifest(raw: unknown): raw is SealedDependencyManifest {
  return acceptsManifestV1(raw) || SealedDependencyManifestSchema.safeParse(raw).success;
}
