/**
 * Writes one JSON Schema (draft 2020-12) per Reseal wire shape into `schemas/`, generated from the
 * zod schemas with `z.toJSONSchema` (input side), so agents in other languages can build and
 * check messages. Run `npm run gen:schemas` after changing a schema; a unit test
 * (test/unit/client/schemas.test.ts) fails when the committed files are stale.
 *
 * Refinements zod cannot express in JSON Schema (sorted key lists, NFC collisions, `__proto__`,
 * payload size and depth, `isSafe` consistency) are not in the files: the zod schemas stay the
 * authority, and the pipeline refuses what they refuse.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { LineageExportSchema } from '../client/lineage-export';
import { WriteVerdictSchema } from '../shared/guard/verdict';
import { DetailType } from '../shared/pipeline/detail-type';
import { MAX_EVENT_ENTRY_BYTES } from '../shared/pipeline/event-entry-bytes';
import { RecallRequestedDetailSchema } from '../shared/pipeline/recall-requested-detail';
import { ResidualRejectedDetailSchema } from '../shared/pipeline/residual-rejected-detail';
import {
  MAX_RESIDUAL_SEALED_RUNS,
  RESIDUAL_SEALED_VERSION,
  ResidualSealedDetailSchema,
} from '../shared/pipeline/residual-sealed-detail';
import { SealRequestSchema } from '../shared/pipeline/seal-request';
import { TriageCompletedDetailSchema } from '../shared/pipeline/triage-completed-detail';
import { groupedCount } from '../shared/schemas/grouped-count';
import { LineageHeadSchema } from '../shared/seal/lineage-head';
import { SealedRecordSchema } from '../shared/seal/sealed-record';
import { DeltaIsolationReportSchema } from '../shared/triage/delta-isolation-report';
import { SealedDependencyManifestSchema } from '../shared/triage/sealed-dependency-manifest';
import { ResidualWriteRequestSchema } from '../shared/write/write-request';

/** Where the schemas are committed, relative to the repository root. */
export const SCHEMAS_DIR = 'schemas';

/**
 * Each shape with what it is; the file is `<name>.schema.json`, its `$id`
 * `urn:reseal:schemas:<name>:v<version>` (version 1 unless a shape changed incompatibly).
 */
const SHAPES: readonly { name: string; schema: z.ZodType; description: string; version?: number }[] = [
  {
    name: 'ResidualWriteRequest',
    schema: ResidualWriteRequestSchema,
    description: 'Body of an SQS residual-writes message (docs/guard.md, "Input").',
  },
  {
    name: 'SealRequest',
    schema: SealRequestSchema,
    description: 'Body of a FIFO seal-requests message: a write the guard accepted.',
  },
  {
    name: 'SealedRecord',
    schema: SealedRecordSchema,
    description: 'A sealed residual as stored (docs/sealing.md, "Record layout").',
  },
  { name: 'LineageHead', schema: LineageHeadSchema, description: 'Head of a lineage: the checkpoint a client keeps.' },
  {
    name: 'SealedDependencyManifest',
    schema: SealedDependencyManifestSchema,
    description:
      'Precondition manifest of a record (docs/triage.md): format 1, or format 2 when it declares absentKeys.',
  },
  {
    name: 'DeltaIsolationReport',
    schema: DeltaIsolationReportSchema,
    description: 'Result of differential seal triage (docs/triage.md, "The report").',
  },
  {
    name: 'WriteVerdict',
    schema: WriteVerdictSchema,
    description: "The stale-state guard's verdict on a write (docs/guard.md).",
  },
  {
    name: DetailType.RecallRequested,
    schema: RecallRequestedDetailSchema,
    description:
      'detail of a RecallRequested event (source reseal). EventBridge caps the PutEvents entry ' +
      `(Source, DetailType and this detail, UTF-8) at ${groupedCount(MAX_EVENT_ENTRY_BYTES)} bytes ` +
      '(MAX_EVENT_ENTRY_BYTES, docs/cli.md "Input limits"); the client refuses a larger one before sending.',
  },
  {
    name: DetailType.ResidualSealed,
    schema: ResidualSealedDetailSchema,
    description:
      'detail of a ResidualSealed event (source reseal): one event per sealer invocation, carrying each ' +
      'run it sealed or re-announced (its lineage head, tree head and residuals), split only past ' +
      `EventBridge's ${groupedCount(MAX_EVENT_ENTRY_BYTES)}-byte entry (docs/pipeline.md, "Message shapes"). ` +
      "Version 2: version 1 was one event per record. Runs' residual seqs ascend, the last one the head's record. " +
      `At most ${MAX_RESIDUAL_SEALED_RUNS} runs (the sealer's batch size). Checked beyond this JSON schema ` +
      '(ResidualSealedDetailSchema): within a lineage one record hash and one residual id per seq, one seq per ' +
      "residual id and one root hash per tree size; a run's sealedTreeHead.treeSize at least its seq + 1.",
    version: RESIDUAL_SEALED_VERSION,
  },
  {
    name: DetailType.ResidualRejected,
    schema: ResidualRejectedDetailSchema,
    description: 'detail of a ResidualRejected event (source reseal).',
  },
  {
    name: DetailType.TriageCompleted,
    schema: TriageCompletedDetailSchema,
    description: 'detail of a TriageCompleted event, also the stored triage report.',
  },
  {
    name: 'LineageExport',
    schema: LineageExportSchema,
    description: 'A whole lineage exported to a file (reseal export).',
  },
];

/**
 * The JSON Schema files, file name → text (2-space JSON with a trailing newline), in memory.
 * Deterministic: the same zod schemas give the same bytes.
 */
export function generateSchemas(): Map<string, string> {
  const files = new Map<string, string>();
  for (const { name, schema, description, version = 1 } of SHAPES) {
    const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' });
    const document = {
      $schema: json.$schema,
      $id: `urn:reseal:schemas:${name}:v${version}`,
      title: name,
      description,
      ...Object.fromEntries(Object.entries(json).filter(([key]) => key !== '$schema')),
    };
    files.set(`${name}.schema.json`, `${JSON.stringify(document, null, 2)}\n`);
  }
  return files;
}

/** Writes {@link generateSchemas} into `<root>/schemas/`. */
export async function writeSchemas(root: string): Promise<string[]> {
  const dir = join(root, SCHEMAS_DIR);
  await mkdir(dir, { recursive: true });
  const written: string[] = [];
  for (const [file, text] of generateSchemas()) {
    await writeFile(join(dir, file), text);
    written.push(join(SCHEMAS_DIR, file));
  }
  return written;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const written = await writeSchemas(process.cwd());
  process.stdout.write(`wrote ${written.length} schemas:\n${written.map((f) => `  ${f}`).join('\n')}\n`);
}
