import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateSchemas, SCHEMAS_DIR } from '../../../scripts/gen-schemas';

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
});
