import type { CallToolResult } from '@modelcontextprotocol/server';
import type { ToolErrorCode } from './outputs/tool-error-code';
import type { ToolError } from './outputs/tool-error-schema';
import { toolResult } from './tool-result';

/**
 * A tool error (docs/mcp.md, "Errors"): `{ error, message, action, …details }` as
 * `structuredContent`, `isError: true`, summarised as `<error>: <message>` and `what to do: <action>`.
 */
export function toolError(
  error: ToolErrorCode,
  message: string,
  action: string,
  details: Record<string, unknown> = {},
): CallToolResult {
  const structured: ToolError = { error, message, action, ...details };
  return toolResult(`${error}: ${message}\nwhat to do: ${action}`, structured, true);
}
