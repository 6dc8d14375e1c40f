import type { CallToolResult, McpServer, StandardSchemaWithJSON, ToolAnnotations } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { InvalidInputError } from '../shared/errors';
import { parseInput } from '../shared/schemas/parse';
import { errorResult } from './error-result';

type JsonSchemaTarget = NonNullable<Parameters<typeof z.toJSONSchema>[1]>['target'];

/** `schema`'s JSON Schemas as `npm run gen:schemas` writes them (`unrepresentable: 'any'`). */
function jsonSchemas(schema: z.ZodType) {
  const convert = (io: 'input' | 'output') => (options: { readonly target: string }) =>
    z.toJSONSchema(schema, { io, unrepresentable: 'any', target: options.target as JsonSchemaTarget }) as Record<
      string,
      unknown
    >;
  return { input: convert('input'), output: convert('output') };
}

/**
 * A zod schema as the MCP SDK takes tool schemas (Standard Schema with JSON Schema): validated
 * by the zod schema itself, and advertised in `tools/list` as its JSON Schema, so the wire-format
 * schemas can be used as they are: a free-form payload (`z.custom`) is advertised as `{}` (any
 * JSON), and the refinements JSON Schema cannot state are still enforced.
 */
function toolSchema<S extends z.ZodType>(schema: S): StandardSchemaWithJSON<z.input<S>, z.output<S>> {
  const standard = schema['~standard'];
  return {
    '~standard': { version: 1, vendor: standard.vendor, validate: standard.validate, jsonSchema: jsonSchemas(schema) },
  } as StandardSchemaWithJSON<z.input<S>, z.output<S>>;
}

/** A tool's arguments as its handler gets them: parsed, or why they are not. */
type CheckedArguments<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: InvalidInputError };

/**
 * The input schema of a tool: advertised as {@link toolSchema} advertises it, but arguments that
 * fail it reach the handler as an {@link InvalidInputError} naming each field (unknown fields each
 * at their path), rather than being refused by the SDK with a text-only error, so that the caller
 * gets the structured `INVALID_INPUT` every other refusal of its arguments gets (docs/mcp.md,
 * "Errors").
 */
function checkedInputSchema<S extends z.ZodType>(
  schema: S,
  toolName: string,
): StandardSchemaWithJSON<z.input<S>, CheckedArguments<z.output<S>>> {
  const validate = (value: unknown): { value: CheckedArguments<z.output<S>> } => {
    try {
      return {
        value: { ok: true, value: parseInput(schema, value, `${toolName} arguments`, { unknownFieldPerKey: true }) },
      };
    } catch (error) {
      if (error instanceof InvalidInputError) return { value: { ok: false, error } };
      throw error;
    }
  };
  return {
    '~standard': { version: 1, vendor: schema['~standard'].vendor, validate, jsonSchema: jsonSchemas(schema) },
  } as StandardSchemaWithJSON<z.input<S>, CheckedArguments<z.output<S>>>;
}

/** How a Reseal tool is listed to MCP hosts (`tools/list`; docs/mcp.md, "Tools"), with zod schemas. */
export interface ResealToolSpec<I extends z.ZodType, O extends z.ZodType> {
  readonly title: string;
  readonly description: string;
  /** The arguments, validated when a call arrives. */
  readonly input: I;
  /** The shape of a success's `structuredContent` (a tool error has its own, `ToolErrorSchema`). */
  readonly output: O;
  readonly annotations: ToolAnnotations;
}

/**
 * Registers the tool `name` on `server`: `spec` with both schemas advertised as JSON Schema, each
 * call answered by `run` with the validated arguments (`run` answers failures as tool errors), or
 * by an `INVALID_INPUT` tool error naming each field when they fail `spec.input`.
 */
export function registerResealTool<I extends z.ZodType, O extends z.ZodType>(
  server: McpServer,
  name: string,
  spec: ResealToolSpec<I, O>,
  run: (input: z.output<I>) => Promise<CallToolResult>,
): void {
  server.registerTool(
    name,
    {
      title: spec.title,
      description: spec.description,
      inputSchema: checkedInputSchema(spec.input, name),
      outputSchema: toolSchema(spec.output),
      annotations: spec.annotations,
    },
    (input) => (input.ok ? run(input.value) : Promise.resolve(errorResult(input.error))),
  );
}
