import { z } from 'zod';
import { Identifier } from '../../shared/schemas/identifier';

/** `format` of a {@link LineageIdShape}: bumped only when a field changes meaning or goes away. */
export const LINEAGE_ID_FORMAT = 'reseal.lineage-id/1';

/**
 * A self-certifying lineage id (docs/authorship.md, "Self-certifying lineage ids"; docs/cli.md, `reseal
 * lineage-id`): the shape `reseal lineage-id --json` prints (camelCase, `format`
 * `reseal.lineage-id/1`): `<label>.<policy digest>`, and the id of the writer key whose inception
 * policy it names.
 */
export const LineageIdShape = z.object({
  format: z.literal(LINEAGE_ID_FORMAT),
  lineageId: Identifier,
  keyId: z.string(),
});
/** Type of {@link LineageIdShape}. */
export type LineageIdShape = z.infer<typeof LineageIdShape>;

/** The {@link LineageIdShape} of a lineage id and the writer key it was made for. */
export function lineageIdShape(lineageId: string, keyId: string): LineageIdShape {
  return { format: LINEAGE_ID_FORMAT, lineageId, keyId };
}
