import type { TruncationHints } from '../client/truncation-check-text';

/**
 * The MCP server's names for what checks a rollback (docs/mcp.md): `RESEAL_CHECKPOINTS` and the
 * tools' `checkpoint` argument. The server always keeps checkpoints (in memory without the file),
 * so the first is named only where a tool's answer says what would check it.
 */
export const MCP_TRUNCATION_HINTS: TruncationHints = {
  keep: 'set RESEAL_CHECKPOINTS',
  head: "the tool's checkpoint argument",
};
