import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import type { ResealMcpDeps } from './reseal-mcp-deps';
import { createResealMcpServer } from './server';
import { strictJsonLines } from './strict-lines';

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
