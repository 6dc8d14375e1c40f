import { McpServer } from '@modelcontextprotocol/server';
import type { ResealMcpDeps } from './reseal-mcp-deps';
import { registerInspectTool } from './tools/inspect';
import { registerRecallTool } from './tools/recall';
import { registerVerifyTool } from './tools/verify';
import { registerWriteTool } from './tools/write';

/** Name and version the server announces to MCP hosts. */
export const SERVER_INFO = { name: 'reseal', version: '0.1.0' } as const;

const INSTRUCTIONS =
  'Reseal is tamper-evident memory that knows when it went stale. Remember conclusions with reseal_write (each claim with the environment keys it rests on). ' +
  'Before acting on a memory in a new session, call reseal_recall: use keptClaims, re-probe reprobeClaims, then reseal_write again with supersedes. ' +
  'A TAMPER_DETECTED error means the memory must not be acted on. reseal_verify and reseal_inspect check and show a lineage.';

/**
 * The Reseal MCP server (docs/mcp.md): the tools `reseal_write`, `reseal_recall`,
 * `reseal_verify` and `reseal_inspect` over one client of the deployed stack. Connect it to any
 * transport (`server.connect(transport)`); `serveStdio` (mcp/serve-stdio.ts) connects it to this process's
 * standard input and output.
 */
export function createResealMcpServer(deps: ResealMcpDeps): McpServer {
  const resolved: ResealMcpDeps = { ...deps, sessionStartMs: deps.sessionStartMs ?? (deps.nowMs ?? Date.now)() };
  const server = new McpServer(SERVER_INFO, { instructions: INSTRUCTIONS });
  registerWriteTool(server, resolved);
  registerRecallTool(server, resolved);
  registerVerifyTool(server, resolved);
  registerInspectTool(server, resolved);
  return server;
}
