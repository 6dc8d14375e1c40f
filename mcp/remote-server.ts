import { McpServer } from '@modelcontextprotocol/server';
import type { ResealMcpDeps } from './reseal-mcp-deps';
import { SERVER_INFO } from './server';
import { registerInspectTool } from './tools/inspect';
import { registerRecallTool } from './tools/recall';
import { registerRemoteWriteTool } from './tools/remote-write';
import { registerVerifyTool } from './tools/verify';

const REMOTE_INSTRUCTIONS =
  'Reseal is tamper-evident memory that knows when it went stale, served remotely. reseal_write takes a write request you signed with your own writer key; this server never signs for you. ' +
  'Before acting on a memory in a new session, call reseal_recall with env (the environment now): use keptClaims, re-probe reprobeClaims. ' +
  'A TAMPER_DETECTED error means the memory must not be acted on. Keep the signed checkpoints the answers carry: this server keeps none between calls.';

/**
 * The remote Reseal MCP server (docs/mcp.md, "Remote MCP"): `reseal_recall`, `reseal_verify` and
 * `reseal_inspect` as the local server serves them, and a `reseal_write` that takes a request its
 * caller signed (`registerRemoteWriteTool`). One instance serves one HTTP request; `deps.client`
 * holds no writer key and `deps.snapshots` is `null` (the caller passes `env`).
 */
export function createRemoteMcpServer(deps: ResealMcpDeps): McpServer {
  const resolved: ResealMcpDeps = { ...deps, sessionStartMs: deps.sessionStartMs ?? (deps.nowMs ?? Date.now)() };
  const server = new McpServer(SERVER_INFO, { instructions: REMOTE_INSTRUCTIONS });
  registerRemoteWriteTool(server, resolved);
  registerRecallTool(server, resolved);
  registerVerifyTool(server, resolved);
  registerInspectTool(server, resolved);
  return server;
}
