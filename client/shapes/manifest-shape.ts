import { z } from 'zod';
import {
  type SealedDependencyManifest,
  SealedDependencyManifestSchema,
} from '../../shared/triage/sealed-dependency-manifest';

/** `format` of a {@link ManifestShape}: bumped only when a field changes meaning or goes away. */
export const MANIFEST_FORMAT = 'reseal.manifest/1';

/**
 * A sealed dependency manifest as `reseal manifest --json` prints it (docs/cli.md, `reseal
 * manifest`; docs/triage.md, "The four recorded elements"), tagged like every other `--json`
 * output (`format` `reseal.manifest/1`). `manifest` is the wire format itself, unchanged
 * (`schemas/SealedDependencyManifest.schema.json`, its own `formatVersion` 1 or 2): the file
 * `triage --manifest` and a write request take. Without `--json` the command prints that manifest alone.
 */
export const ManifestShape = z.object({
  format: z.literal(MANIFEST_FORMAT),
  manifest: SealedDependencyManifestSchema,
});
/** Type of {@link ManifestShape}. */
export type ManifestShape = z.infer<typeof ManifestShape>;

/** The {@link ManifestShape} of a built manifest. */
export function manifestShape(manifest: SealedDependencyManifest): ManifestShape {
  return { format: MANIFEST_FORMAT, manifest };
}
