import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { SealRequestSchema } from '../../../../shared/pipeline/seal-request';
import { RecordRefSchema } from '../../../../shared/schemas/record-ref';
import { WireFields } from '../../../../shared/schemas/wire-fields';
import { AnchorSignatureSchema } from '../../../../shared/seal/anchor-signature';
import { encodeHeader, RecordHeaderSchema } from '../../../../shared/seal/record-header';
import { SealInputSchema } from '../../../../shared/seal/seal-input';
import { SealedRecordSchema } from '../../../../shared/seal/sealed-record';
import { SealedDependencyManifestV1Schema } from '../../../../shared/triage/sealed-dependency-manifest';
import { SessionVariableSchema } from '../../../../shared/write/session-variable';
import { buildChain } from '../../../helpers/seal-factories';

/** The zod schema each field list stands for. */
const SCHEMAS: Record<keyof typeof WireFields, z.ZodObject> = {
  sealedRecord: SealedRecordSchema,
  recordHeader: RecordHeaderSchema,
  anchorSignature: AnchorSignatureSchema,
  recordRef: RecordRefSchema,
  sessionVariable: SessionVariableSchema,
  sealInput: SealInputSchema,
  manifestV1: SealedDependencyManifestV1Schema,
  sealRequest: SealRequestSchema,
};

/**
 * A schema's keys split by whether the key may be absent: its field schema accepts `undefined`
 * (`.optional()`, `.default()`), which is what a strict object applies to an absent key.
 */
function keysOf(schema: z.ZodObject): { required: string[]; optional: string[] } {
  const entries = Object.entries(schema.shape) as [string, z.ZodType][];
  const mayBeAbsent = (field: z.ZodType) => field.safeParse(undefined).success;
  const optional = entries.filter(([, field]) => mayBeAbsent(field)).map(([key]) => key);
  const required = entries.filter(([, field]) => !mayBeAbsent(field)).map(([key]) => key);
  return { required: required.sort(), optional: optional.sort() };
}

describe('WireFields: one field list per wire type, checked against its zod schema', () => {
  it.each(Object.keys(SCHEMAS) as (keyof typeof WireFields)[])(
    "%s: the required keys are the schema's required keys, the optional ones its optional keys",
    (name) => {
      const fields = WireFields[name];
      const schema = keysOf(SCHEMAS[name]);
      expect([...fields.required].sort()).toEqual(schema.required);
      expect([...fields.optional, ...fields.leftToSchema].sort()).toEqual(schema.optional);
      expect(new Set([...fields.required, ...fields.optional, ...fields.leftToSchema]).size).toBe(
        fields.required.length + fields.optional.length + fields.leftToSchema.length,
      );
    },
  );

  it('every list is checked here', () => {
    expect(Object.keys(SCHEMAS).sort()).toEqual(Object.keys(WireFields).sort());
  });

  it('the header byte template writes exactly the header fields, in RFC 8785 order', async () => {
    const { records } = await buildChain(2);
    for (const record of records) {
      const members = Object.keys(JSON.parse(new TextDecoder().decode(encodeHeader(record.header))));
      expect(members).toEqual([...WireFields.recordHeader.required].sort());
    }
  });
});
