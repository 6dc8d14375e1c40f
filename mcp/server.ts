import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import type { ResealMcpDeps } from './reseal-mcp-deps';
import { strictJsonLines } from './strict-lines';
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
 * transport (`server.connect(transport)`); {@link serveStdio} connects it to this process's
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

/**
 * Serves {@link createResealMcpServer} on stdio until the host closes standard input. Nothing else
 * may write to standard output meanwhile (it carries the JSON-RPC messages). A message that
 * repeats a member name is answered with a JSON-RPC error and never reaches a tool
 * ({@link strictJsonLines}).
 *
 * @returns when the transport has closed
 */
export async function serveStdio(deps: ResealMcpDeps): Promise<void> {
  const server = createResealMcpServer(deps);
  const transport = new StdioServerTransport(strictJsonLines(process.stdin, process.stdout), process.stdout);
  // Set before connect(), which chains it: resolves when the host closes standard input.
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve;
  });
  await server.connect(transport);
  await closed;
  await server.close();
}
