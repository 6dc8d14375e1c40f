import type { CallToolResult, McpServer, StandardSchemaWithJSON, ToolAnnotations } from '@modelcontextprotocol/server';
import { z } from 'zod';

type JsonSchemaTarget = NonNullable<Parameters<typeof z.toJSONSchema>[1]>['target'];

/**
 * A zod schema as the MCP SDK takes tool schemas (Standard Schema with JSON Schema): arguments
 * are validated by the zod schema itself, and `tools/list` advertises its JSON Schema as
 * `npm run gen:schemas` writes it (`unrepresentable: 'any'`), so the wire-format schemas can be
 * used as they are: a free-form payload (`z.custom`) is advertised as `{}` (any JSON), and the
 * refinements JSON Schema cannot state are still enforced when a call arrives.
 */
function toolSchema<S extends z.ZodType>(schema: S): StandardSchemaWithJSON<z.input<S>, z.output<S>> {
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
 * Registers the tool `name` on `server`: `spec` with both schemas made {@link toolSchema}s, each
 * call answered by `run` with the validated arguments (`run` answers failures as tool errors).
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
      inputSchema: toolSchema(spec.input),
      outputSchema: toolSchema(spec.output),
      annotations: spec.annotations,
    },
    run,
  );
}
