import type { StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import { z } from 'zod';

type JsonSchemaTarget = NonNullable<Parameters<typeof z.toJSONSchema>[1]>['target'];

/**
 * A zod schema as the MCP SDK takes tool schemas (Standard Schema with JSON Schema): arguments
 * are validated by the zod schema itself, and `tools/list` advertises its JSON Schema as
 * `npm run gen:schemas` writes it (`unrepresentable: 'any'`), so the wire-format schemas can be
 * used as they are: a free-form payload (`z.custom`) is advertised as `{}` (any JSON), and the
 * refinements JSON Schema cannot state are still enforced when a call arrives.
 */
export function toolSchema<S extends z.ZodType>(schema: S): StandardSchemaWithJSON<z.input<S>, z.output<S>> {
  const standard = schema['~standard'];
  const convert = (io: 'input' | 'output') => (options: { readonly target: string }) =>
    z.toJSONSchema(schema, { io, unrepresentable: 'any', target: options.target as JsonSchemaTarget }) as Record<
      string,
      unknown
    >;
  return {
    '~standard': {
      version: 1,
      vendor: standard.vendor,
      validate: standard.validate,
      jsonSchema: { input: convert('input'), output: convert('output') },
    },
  } as StandardSchemaWithJSON<z.input<S>, z.output<S>>;
}
