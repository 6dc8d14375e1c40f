import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import type { ResealMcpDeps } from './reseal-mcp-deps';
import { createResealMcpServer } from './server';
import { strictJsonLines } from './strict-lines';
import { transportErrorLine } from './transport-error-line';

/**
 * Serves {@link createResealMcpServer} on stdio until the host closes standard input. Nothing else
 * may write to standard output meanwhile (it carries the JSON-RPC messages). A message that
 * repeats a member name, or a line that is not JSON, is answered with a JSON-RPC error (a line
 * that is not JSON also named on standard error) and never reaches a tool ({@link strictJsonLines}).
 *
 * @returns when the transport has closed
 */
export async function serveStdio(deps: ResealMcpDeps): Promise<void> {
  const server = createResealMcpServer(deps);
  const transport = new StdioServerTransport(strictJsonLines(process.stdin, process.stdout), process.stdout);
  // Set before connect(), which chains them ahead of the SDK's own: resolves when the host closes
  // standard input; and a message the SDK cannot read (JSON, but no JSON-RPC message) is named on
  // standard error, escaped in one line, not dropped in silence.
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve;
  });
  transport.onerror = (error) => process.stderr.write(`reseal mcp: ${transportErrorLine(error)}\n`);
  await server.connect(transport);
  await closed;
  await server.close();
}
