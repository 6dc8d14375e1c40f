/**
 * The check every MCP answer must pass (docs/mcp.md, "Conformance"), for tests that drive the
 * server through the SDK's own client: `structuredContent` always there, valid against what
 * `tools/list` declared (a success against the tool's `outputSchema`, a tool error against the
 * documented error shape, `ToolErrorSchema`), checked with the SDK's JSON Schema validator, and
 * the same JSON as the text after the summary line.
 */
import type { CallToolResult, Tool } from '@modelcontextprotocol/client';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/client/validators/ajv';
import { expect } from 'vitest';
import { z } from 'zod';
import { ToolErrorSchema } from '../../mcp/outputs/tool-error-schema';

const validator = new AjvJsonSchemaValidator();
const errorShape = validator.getValidator(z.toJSONSchema(ToolErrorSchema, { io: 'output' }) as never);

/** Asserts that `result`, an answer of `tool` (as `tools/list` lists it), is as declared. */
export function expectConforming(tool: Tool, result: CallToolResult): void {
  const structured = result.structuredContent;
  expect(structured, `${tool.name}: structuredContent`).toBeTypeOf('object');
  expect(JSON.parse((result.content[1] as { text: string }).text)).toEqual(structured);
  const check = result.isError ? errorShape : validator.getValidator(tool.outputSchema as never);
  const verdict = check(structured);
  expect(verdict.errorMessage ?? null, `${tool.name} ${result.isError ? 'error' : 'output'} schema`).toBeNull();
  expect(verdict.valid).toBe(true);
}
