import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { z } from 'zod';
import { INVALID_REQUEST_CODE, jsonRpcRefusal } from '../../mcp/json-rpc-refusal';
import { createRemoteMcpServer } from '../../mcp/remote-server';
import type { ResealMcpDeps } from '../../mcp/reseal-mcp-deps';
import { tenantScopedClient } from '../../mcp/tenant-scoped-client';
import { tenantOfCaller } from '../../shared/tenancy/tenants';
import type { ServiceLogger } from '../common/service-logger';
import { type CallerIdentity, callerIdentityOf } from './caller-identity';
import type { RelayTenant } from './relay-tenants';

/** Largest request body the remote MCP function reads, in bytes (decoded): a write's 256 KiB payload with room for its manifest and variables. */
export const MAX_MCP_BODY_BYTES = 1_048_576;

/** JSON-RPC error codes of the answers the handler gives before the MCP server sees a request (docs/mcp.md, "Remote MCP"). */
export const RemoteRpcError = {
  /** No caller identity on the event, or (with tenants) a caller of no tenant (HTTP 403). */
  FORBIDDEN: -32001,
  /** GET or DELETE: a stateless server has no stream and no session (HTTP 405). */
  METHOD_NOT_ALLOWED: -32000,
  /** The body is larger than {@link MAX_MCP_BODY_BYTES} (HTTP 413). */
  TOO_LARGE: -32600,
  /** The event is not an HTTP API payload-2.0 event (HTTP 400). */
  INVALID_REQUEST: -32600,
  /** The body repeats a member name, or is nested too deep to check (HTTP 400), as `reseal mcp` refuses it. */
  UNCHECKED_NAMES: INVALID_REQUEST_CODE,
} as const;

/** The fields of an HTTP API (payload format 2.0) event the handler reads, checked once here. */
const HttpApiEventSchema = z.object({
  rawPath: z.string(),
  rawQueryString: z.string().optional(),
  headers: z.record(z.string(), z.string()).optional(),
  body: z.string().optional(),
  isBase64Encoded: z.boolean().optional(),
  requestContext: z.object({
    requestId: z.string().optional(),
    domainName: z.string().optional(),
    http: z.object({ method: z.string() }),
    authorizer: z.unknown().optional(),
  }),
});

/** What {@link createMcpHttpHandler} needs. */
export interface McpHttpHandlerOptions {
  /**
   * The tools' dependencies for one request (a fresh client, holding no writer key, no checkpoint
   * kept between requests), for the caller and, in a stack with tenants, the caller's tenant (its
   * client must send to that tenant's queue; the handler scopes it to the tenant's lineages).
   */
  readonly deps: (caller: CallerIdentity, tenant: RelayTenant | null) => Promise<ResealMcpDeps>;
  /** The stack's tenants (docs/mcp.md, "Tenants"): a caller none names is refused. @default none: one tenant */
  readonly tenants?: readonly RelayTenant[] | undefined;
  readonly logger: ServiceLogger;
}

/** Headers the web `Request` is not built with: they describe the gateway's connection, not the MCP message. */
const HOP_HEADERS = new Set(['host', 'content-length', 'connection', 'transfer-encoding']);

const rpcError = (
  statusCode: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): APIGatewayProxyStructuredResultV2 => ({
  statusCode,
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }),
});

/** The JSON-RPC methods (and tool names) of a body, for the log line; `unparsed` when it is not JSON. */
function callsIn(body: string): string[] | 'unparsed' {
  try {
    const parsed: unknown = JSON.parse(body);
    const messages = Array.isArray(parsed) ? parsed : [parsed];
    return messages.map((m) => {
      const message = (m ?? {}) as { method?: unknown; params?: { name?: unknown } };
      const method = typeof message.method === 'string' ? message.method : 'response';
      return method === 'tools/call' && typeof message.params?.name === 'string'
        ? `${method} ${message.params.name}`
        : method;
    });
  } catch {
    return 'unparsed';
  }
}

/**
 * The remote MCP function (docs/mcp.md, "Remote MCP"): an HTTP API (payload format 2.0) event on
 * the `AWS_IAM` route `/mcp` → the MCP Streamable HTTP answer, stateless: a new server
 * (`createRemoteMcpServer`) and transport (`sessionIdGenerator: undefined`, JSON responses) per
 * request. Before the server sees a request: GET and DELETE → 405 (no session, no stream); no
 * caller identity in `requestContext.authorizer.iam`, or with tenants a caller that no tenant's
 * `senderPrincipals` names → 403; a body over {@link MAX_MCP_BODY_BYTES} → 413; a body that
 * repeats a member name, or is nested too deep to check (`jsonRpcRefusal`, the check `reseal mcp`
 * applies to each line) → 400, its id kept when it has one, as the SDK's `JSON.parse` would serve
 * one of the repeated values without a word; each with a JSON-RPC error naming why. A tenant's caller gets a client scoped to its tenant
 * (`tenantScopedClient`: another tenant's lineage is `FORBIDDEN`). Every request's caller
 * and JSON-RPC methods are logged. Malformed JSON-RPC is answered by the SDK's transport (400,
 * parse error `-32700`).
 */
export function createMcpHttpHandler(options: McpHttpHandlerOptions) {
  return async (raw: unknown): Promise<APIGatewayProxyStructuredResultV2> => {
    const parsed = HttpApiEventSchema.safeParse(raw);
    if (!parsed.success) {
      options.logger.error('remote MCP: not an HTTP API payload-2.0 event', { issues: parsed.error.issues.length });
      return rpcError(400, RemoteRpcError.INVALID_REQUEST, 'not an API Gateway HTTP API (payload format 2.0) event');
    }
    const event = parsed.data;
    const method = event.requestContext.http.method.toUpperCase();
    const caller = callerIdentityOf(event.requestContext.authorizer);
    options.logger.appendKeys({ requestId: event.requestContext.requestId, caller });
    if (!caller) {
      options.logger.warn('remote MCP: refused a request with no caller identity', { method });
      return rpcError(
        403,
        RemoteRpcError.FORBIDDEN,
        'no caller identity: the request did not come through the AWS_IAM route of the Reseal HTTP API (requestContext.authorizer.iam is missing); sign it with SigV4 (service execute-api) and send it to the API, for example with reseal mcp --remote URL',
      );
    }
    // With tenants, the caller acts for the tenant whose senders name it, or is refused.
    const tenant = options.tenants === undefined ? null : tenantOfCaller(options.tenants, caller.userArn);
    if (options.tenants !== undefined && tenant === null) {
      options.logger.warn('remote MCP: refused a caller of no tenant', { method });
      return rpcError(
        403,
        RemoteRpcError.FORBIDDEN,
        `caller ${caller.userArn} is not a sender of any tenant of this stack: the remote MCP server serves each tenant's own principals (an IAM user, or a role of an assumed-role session) only`,
      );
    }
    if (tenant !== null) options.logger.appendKeys({ tenantId: tenant.id });
    if (method !== 'POST') {
      options.logger.info('remote MCP: method not allowed', { method });
      return rpcError(
        405,
        RemoteRpcError.METHOD_NOT_ALLOWED,
        `Method not allowed: ${method}. This MCP server is stateless: POST each JSON-RPC message to /mcp; there is no session to open with GET or close with DELETE.`,
        { allow: 'POST' },
      );
    }
    const encoding = event.isBase64Encoded ? 'base64' : 'utf8';
    // Counted before it is decoded: a body over the limit is never copied.
    const bytes = event.body === undefined ? 0 : Buffer.byteLength(event.body, encoding);
    if (bytes > MAX_MCP_BODY_BYTES) {
      options.logger.warn('remote MCP: request body too large', { bytes });
      return rpcError(
        413,
        RemoteRpcError.TOO_LARGE,
        `request body is ${bytes.toLocaleString('en-US')} bytes; the remote MCP server reads at most ${MAX_MCP_BODY_BYTES.toLocaleString('en-US')}`,
      );
    }
    const text = event.body === undefined ? '' : Buffer.from(event.body, encoding).toString('utf8');
    const refusal = jsonRpcRefusal(text);
    if (refusal?.kind === 'UNCHECKED_NAMES') {
      options.logger.warn('remote MCP: refused a body that repeats a member name or is nested too deep to check', {
        calls: callsIn(text),
        reason: refusal.answer.error.message,
      });
      return {
        statusCode: 400,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(refusal.answer),
      };
    }
    options.logger.info('remote MCP request', { calls: callsIn(text) });

    const headers = new Headers();
    for (const [name, value] of Object.entries(event.headers ?? {})) {
      if (!HOP_HEADERS.has(name.toLowerCase())) headers.set(name, value);
    }
    const query = event.rawQueryString ? `?${event.rawQueryString}` : '';
    // The URL only names the request to the SDK's transport; an emulator's domain name may not parse.
    const origin = `https://${event.requestContext.domainName ?? 'localhost'}`;
    const url = `${URL.canParse(origin) ? origin : 'https://localhost'}${event.rawPath}${query}`;
    const request = new Request(url, { method, headers, body: text });
    const deps = await options.deps(caller, tenant);
    // A tenant's caller reaches only its tenant's lineages, whatever the tool (docs/mcp.md, "Tenants").
    const server = createRemoteMcpServer(
      tenant === null ? deps : { ...deps, client: tenantScopedClient(deps.client, tenant.id) },
    );
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
      maxRequestBodySize: MAX_MCP_BODY_BYTES,
    });
    try {
      await server.connect(transport);
      const response = await transport.handleRequest(request);
      return {
        statusCode: response.status,
        headers: Object.fromEntries(response.headers.entries()),
        body: await response.text(),
      };
    } finally {
      await server.close();
    }
  };
}
