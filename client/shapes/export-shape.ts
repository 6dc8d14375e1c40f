import { z } from 'zod';
import { NonNegativeInt } from '../../shared/schemas/non-negative-int';

/** `format` of an {@link ExportShape}: bumped only when a field changes meaning or goes away. */
export const EXPORT_FORMAT = 'reseal.export/1';

/**
 * What `reseal export --out FILE --json` wrote (docs/cli.md, `reseal export`), camelCase, `format`
 * `reseal.export/1`: a summary on stdout; the file keeps its own format (a `LineageExport`,
 * `formatVersion` 1, or a receipt of `receiptFormat` 1 or 2, docs/verifiable-log.md, "Receipts").
 */
export const ExportShape = z.object({
  format: z.literal(EXPORT_FORMAT),
  /** `lineage` (the whole lineage, records as stored, unverified) or `receipt` (one record, proven). */
  kind: z.enum(['lineage', 'receipt']),
  lineageId: z.string(),
  /** The file written, as given to `--out`. */
  file: z.string(),
  /** The file's own format: `LineageExport` or `reseal-receipt`. */
  fileFormat: z.enum(['LineageExport', 'reseal-receipt']),
  /** Its `formatVersion`: 1 for a `LineageExport`; the receipt format, 1 or 2, for a receipt. */
  fileFormatVersion: z.union([z.literal(1), z.literal(2)]),
  /** Records in the file: every record of the lineage, or 1 for a receipt. */
  records: NonNegativeInt,
  /** The seq of the receipt's record; `null` for a lineage. */
  seq: NonNegativeInt.nullable(),
});
/** Type of {@link ExportShape}. */
export type ExportShape = z.infer<typeof ExportShape>;
