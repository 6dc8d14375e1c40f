import type { CallToolResult } from '@modelcontextprotocol/server';

/**
 * A tool's answer (docs/mcp.md, "Tools"): `structured` as `structuredContent`, and the same JSON
 * as text after the one-line `summary`, for clients that only read `content`; `isError` marks a
 * tool error.
 */
export function toolResult(summary: string, structured: Record<string, unknown>, isError = false): CallToolResult {
  return {
    content: [
      { type: 'text', text: summary },
      { type: 'text', text: JSON.stringify(structured, null, 2) },
    ],
    structuredContent: structured,
    ...(isError ? { isError: true } : {}),
  };
}
