import { z } from 'zod';
import { FORMAT_VERSION } from '../shared/canonical/hash-domain';
import { EpochMillis } from '../shared/schemas/epoch-millis';
import { Identifier } from '../shared/schemas/identifier';
import { LineageHeadSchema } from '../shared/seal/lineage-head';
import { SealedRecordSchema } from '../shared/seal/sealed-record';

/**
 * Schema of a {@link LineageExport}: a whole lineage written to a file, as
 * `ResealClient.exportLineage` produces it and `reseal verify --export` reads it. Strict.
 * Committed as JSON Schema in `schemas/LineageExport.schema.json`.
 */
export const LineageExportSchema = z.strictObject({
  formatVersion: z.literal(FORMAT_VERSION),
  lineageId: Identifier,
  /** When the export was read from the table, ms since the Unix epoch (UTC). */
  exportedAtMs: EpochMillis,
  /**
   * The head item as read with the records (`null` for an empty lineage). It comes from the same
   * table, so it is not an independent checkpoint: keep a head from a `ResidualSealed` event for that.
   */
  head: LineageHeadSchema.nullable(),
  /** Every record of the lineage in sequence order, from seq 0. */
  records: z.array(SealedRecordSchema),
});

/**
 * A lineage exported to a file (camelCase JSON):
 * `{ formatVersion: 1; lineageId; exportedAtMs; head: LineageHead | null; records: SealedRecord[] }`.
 */
export type LineageExport = z.infer<typeof LineageExportSchema>;

/**
 * The envelope of a lineage export as a verifier reads it: the records stay untyped, so a
 * tampered or malformed record becomes a verification verdict (`HASH_MISMATCH`, …) rather than
 * a refusal to read the file.
 */
export const LineageExportEnvelopeSchema = z.strictObject({
  formatVersion: z.literal(FORMAT_VERSION),
  lineageId: Identifier,
  exportedAtMs: EpochMillis,
  head: z.unknown(),
  records: z.array(z.unknown()),
});
/** Type of {@link LineageExportEnvelopeSchema}. */
export type LineageExportEnvelope = z.infer<typeof LineageExportEnvelopeSchema>;
