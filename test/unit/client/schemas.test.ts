import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { generateSchemas, SCHEMAS_DIR } from '../../../scripts/gen-schemas';
import { MAX_EVENT_ENTRY_BYTES } from '../../../shared/pipeline/event-entry-bytes';
import { EnvSnapshot } from '../../../shared/schemas/env-snapshot';
import { MAX_ENV_SNAPSHOT_BYTES, MAX_ENV_SNAPSHOT_KEYS } from '../../../shared/schemas/env-snapshot-limits';
import { groupedCount } from '../../../shared/schemas/grouped-count';

const ROOT = join(import.meta.dirname, '..', '..', '..');

describe('committed JSON Schemas (schemas/)', () => {
  it('every committed schema equals what the zod schemas generate now (run npm run gen:schemas)', async () => {
    const generated = generateSchemas();
    const committed = (await readdir(join(ROOT, SCHEMAS_DIR))).filter((f) => f.endsWith('.schema.json')).sort();
    expect(committed).toEqual([...generated.keys()].sort());
    for (const [file, text] of generated) {
      expect(await readFile(join(ROOT, SCHEMAS_DIR, file), 'utf8'), file).toBe(text);
    }
  });

  it('covers every event and record shape of the wire contract', () => {
    expect([...generateSchemas().keys()].sort()).toEqual(
      [
        'DeltaIsolationReport',
        'LineageExport',
        'LineageHead',
        'RecallRequested',
        'ResidualRejected',
        'ResidualSealed',
        'ResidualWriteRequest',
        'SealRequest',
        'SealedDependencyManifest',
        'SealedRecord',
        'TriageCompleted',
        'WriteVerdict',
      ].map((name) => `${name}.schema.json`),
    );
  });

  it('ResidualWriteRequest refuses unknown fields and requires the elements docs/guard.md "Input" lists, as the zod schema does', () => {
    const schema = JSON.parse(generateSchemas().get('ResidualWriteRequest.schema.json') as string);
    expect(schema.additionalProperties).toBe(false);
    expect(schema.required).toEqual(
      expect.arrayContaining(['formatVersion', 'residualId', 'lineageId', 'variablesUsed', 'boundary', 'manifest']),
    );
    expect(schema.required).not.toContain('supersedes');
  });

  it('SealedDependencyManifest is one of format 1 (no absentKeys) and format 2 (absentKeys required)', () => {
    const schema = JSON.parse(generateSchemas().get('SealedDependencyManifest.schema.json') as string);
    const [v1, v2] = schema.oneOf;
    expect([v1.properties.formatVersion.const, v2.properties.formatVersion.const]).toEqual([1, 2]);
    expect(v1.properties.absentKeys).toBeUndefined();
    expect(v1.additionalProperties).toBe(false);
    expect(v2.required).toContain('absentKeys');
    expect(v2.properties.absentKeys.minItems).toBe(1);
  });

  it('an environment snapshot states the limits of docs/cli.md "Input limits" from the same constants (maxProperties, the byte limit in words)', () => {
    const generated = z.toJSONSchema(EnvSnapshot, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' });
    expect(generated.maxProperties).toBe(MAX_ENV_SNAPSHOT_KEYS);
    expect(generated.description).toContain(`${groupedCount(MAX_ENV_SNAPSHOT_KEYS)} keys`);
    expect(generated.description).toContain(`${groupedCount(MAX_ENV_SNAPSHOT_BYTES)} bytes`);
    // The published file carries it where a snapshot travels: a recall's current environment.
    const recall = JSON.parse(generateSchemas().get('RecallRequested.schema.json') as string);
    expect(recall.properties.currentEnv.maxProperties).toBe(MAX_ENV_SNAPSHOT_KEYS);
    expect(recall.properties.currentEnv.description).toBe(generated.description);
    expect(recall.description).toContain(`${groupedCount(MAX_EVENT_ENTRY_BYTES)} bytes (MAX_EVENT_ENTRY_BYTES`);
    // And the zod schema refuses one key past the number the JSON Schema states.
    const over = Object.fromEntries(
      Array.from({ length: recall.properties.currentEnv.maxProperties + 1 }, (_, i) => [`K${i}`, 'v']),
    );
    expect(EnvSnapshot.safeParse(over).success).toBe(false);
  }, 120_000);
});
