/**
 * A time (ms since the Unix epoch) as ISO 8601 UTC, the one way the CLI and the MCP tools show a
 * time (docs/cli.md, "One shape per concept"; docs/mcp.md, "Times"). A time no `Date` holds (NaN,
 * ±Infinity, beyond ±8.64e15 ms, not a number) is shown as `(invalid time <ms>)` and never
 * throws: times come from stored items a table writer can forge, and one of them must neither
 * crash a command or the MCP server nor hide the rest of an answer.
 */
export function isoTime(ms: number): string {
  const date = typeof ms === 'number' ? new Date(ms) : new Date(Number.NaN);
  return Number.isNaN(date.getTime()) ? `(invalid time ${String(ms)})` : date.toISOString();
}
