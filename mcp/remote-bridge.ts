import type { Readable, Writable } from 'node:stream';
import { SdkHttpError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  type InitializeResult,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type RequestId,
} from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import type { FetchLike } from '../adapters/sigv4-fetch';
import { describeError } from '../shared/describe-error';
import { strictJsonLines } from './strict-lines';
import { transportErrorLine } from './transport-error-line';

/** JSON-RPC error code of a request the bridge could not deliver to the remote server. */
export const BRIDGE_DELIVERY_ERROR = -32603;

/** Options of {@link bridgeToRemote}. */
export interface RemoteBridgeOptions {
  /** The remote MCP endpoint (the stack's `McpUrl`). */
  readonly url: URL;
  /** Sends each HTTP request: `sigV4Fetch` for the stack's `AWS_IAM` route. */
  readonly fetch: FetchLike;
  /** The host's side: its requests come in on `input`, every answer goes out on `output`. */
  readonly input: Readable;
  readonly output: Writable;
  /** Where the bridge says what went wrong, never on `output` (default: standard error). */
  readonly log?: (line: string) => void;
}

/**
 * `reseal mcp --remote URL` (docs/mcp.md, "Remote MCP"): relays MCP messages between a host on
 * stdio and the remote server over Streamable HTTP, each request sent with `options.fetch` (SigV4
 * signed). Messages pass unchanged, so the host sees the remote server's tools and answers as they
 * are; the bridge holds no key and no checkpoint. It sets the negotiated protocol version on its
 * HTTP requests after `initialize`. A request the remote server does not answer with JSON-RPC (a
 * 403 from the gateway, a network failure) is answered to the host with a JSON-RPC error
 * ({@link BRIDGE_DELIVERY_ERROR}) naming the URL and the HTTP failure, so the host never waits
 * forever. A message that repeats a member name, or a line that is not JSON, is refused as the
 * local server refuses it ({@link strictJsonLines}); a line that is JSON but no JSON-RPC message is
 * named on `log`, in one escaped line, as `reseal mcp` names it.
 *
 * @returns when the host closes `input`
 */
export async function bridgeToRemote(options: RemoteBridgeOptions): Promise<void> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const host = new StdioServerTransport(strictJsonLines(options.input, options.output, log), options.output);
  const remote = new StreamableHTTPClientTransport(options.url, { fetch: options.fetch });
  const initializeIds = new Set<RequestId>();
  const toHost = (message: JSONRPCMessage) =>
    host.send(message).catch((error: unknown) => log(`reseal mcp --remote: cannot answer the host: ${String(error)}`));

  remote.onmessage = (message) => {
    if (isJSONRPCResultResponse(message) && initializeIds.delete(message.id)) {
      const version = (message.result as Partial<InitializeResult>).protocolVersion;
      if (typeof version === 'string') remote.setProtocolVersion(version);
    }
    void toHost(message);
  };
  remote.onerror = (error) => log(`reseal mcp --remote: ${options.url.href}: ${error.message}`);
  host.onmessage = (message) => {
    if (isJSONRPCRequest(message) && message.method === 'initialize') initializeIds.add(message.id);
    remote.send(message).catch((error: unknown) => {
      const status = error instanceof SdkHttpError ? `HTTP ${error.status}: ` : '';
      const reason = `${status}${describeError(error)}`;
      log(`reseal mcp --remote: ${options.url.href}: ${reason}`);
      if (!isJSONRPCRequest(message)) return;
      void toHost({
        jsonrpc: '2.0',
        id: message.id,
        error: { code: BRIDGE_DELIVERY_ERROR, message: `remote MCP server ${options.url.href}: ${reason}` },
      });
    });
  };
  // A line the host sent that is JSON but no JSON-RPC message: the SDK's read buffer reports it
  // here and relays nothing, so it is named on the log (as `reseal mcp` names it), not dropped in silence.
  host.onerror = (error) => log(`reseal mcp --remote: ${transportErrorLine(error)}`);
  const closed = new Promise<void>((resolve) => {
    host.onclose = resolve;
  });
  await remote.start();
  await host.start();
  await closed;
  await remote.close();
}
