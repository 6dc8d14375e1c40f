import { z } from 'zod';

/** Longest a tool waits for a write's outcome or a recall's report by default, in ms (below MCP's 60 s request timeout). */
export const DEFAULT_TOOL_WAIT_MS = 45_000;
/** Longest a caller may ask a tool to wait, in ms. */
export const MAX_TOOL_WAIT_MS = 600_000;

/**
 * The `timeoutMs` argument of a tool that waits for `what`: ms, 1 to {@link MAX_TOOL_WAIT_MS},
 * absent for {@link DEFAULT_TOOL_WAIT_MS} ({@link waitMs}).
 */
export function waitTimeoutArg(what: string) {
  return z
    .number()
    .int()
    .min(1)
    .max(MAX_TOOL_WAIT_MS)
    .optional()
    .describe(`how long to wait for ${what} (default ${DEFAULT_TOOL_WAIT_MS.toLocaleString('en-US')})`);
}

/** The wait of a tool call: `timeoutMs` when given, else {@link DEFAULT_TOOL_WAIT_MS}. */
export function waitMs(timeoutMs: number | undefined): number {
  return timeoutMs ?? DEFAULT_TOOL_WAIT_MS;
}
