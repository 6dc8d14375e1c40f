import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import type { McpClient } from '../../mcp/reseal-mcp-deps';
import { createResealMcpServer } from '../../mcp/server';

/**
 * Calls tool `name` with `args` on a Reseal MCP server over `client` (a `ResealClient`, or one
 * wrapped as the servers wrap it; no snapshot providers),
 * through the official MCP client on an in-memory transport; both ends are closed after the call.
 * Returns the structured answer and whether the tool answered an error (docs/mcp.md).
 */
export async function inMemoryMcpCall(
  client: McpClient,
  name: string,
  args: Record<string, unknown>,
): Promise<{ readonly isError: boolean; readonly out: Record<string, unknown> }> {
  const server = createResealMcpServer({ client, snapshots: null });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const mcp = new Client({ name: 'test', version: '1.0.0' });
  await mcp.connect(clientSide);
  try {
    const result = await mcp.callTool({ name, arguments: args });
    return { isError: result.isError === true, out: result.structuredContent as Record<string, unknown> };
  } finally {
    await mcp.close();
    await server.close();
  }
}
