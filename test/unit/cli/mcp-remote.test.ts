import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { sigV4Fetch } from '../../../adapters/sigv4-fetch';
import { remoteMcpUrl, remoteSigningRegion } from '../../../cli/remote-mcp';
import { createMcpHttpHandler } from '../../../functions/mcp/create-handler';
import { BRIDGE_DELIVERY_ERROR, bridgeToRemote } from '../../../mcp/remote-bridge';
import { fakeLogger } from '../../helpers/factories';
import { MCP_TOOL_NAMES } from '../../helpers/mcp-fixtures';
import { runCli } from './run-cli';

const URL_ = new URL('https://abc123.execute-api.eu-west-1.amazonaws.com/mcp');
const CREDENTIALS = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };

/**
 * A stand-in for API Gateway's AWS_IAM route: a request without a SigV4 Authorization header for
 * execute-api in eu-west-1 is refused 403 as the gateway refuses it; a signed one reaches the
 * remote handler with the access key's principal as `requestContext.authorizer.iam`.
 */
function gateway() {
  const seen: string[] = [];
  const handler = createMcpHttpHandler({
    logger: fakeLogger(),
    deps: async () => ({ client: {} as never, snapshots: null }),
  });
  const fetch = async (url: string | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(url, init);
    const authorization = request.headers.get('authorization') ?? '';
    seen.push(authorization);
    const credential =
      /^AWS4-HMAC-SHA256 Credential=(\w+)\/\d{8}\/eu-west-1\/execute-api\/aws4_request, SignedHeaders=[^,]*host[^,]*, Signature=[0-9a-f]{64}$/.exec(
        authorization,
      );
    if (!credential) return new Response('{"message":"Forbidden"}', { status: 403 });
    const target = new URL(request.url);
    const result: APIGatewayProxyStructuredResultV2 = await handler({
      rawPath: target.pathname,
      rawQueryString: '',
      headers: Object.fromEntries(request.headers.entries()),
      body: request.method === 'POST' ? await request.text() : undefined,
      isBase64Encoded: false,
      requestContext: {
        requestId: 'r',
        domainName: target.host,
        http: { method: request.method },
        authorizer: { iam: { userArn: `arn:aws:iam::123456789012:user/${credential[1]}`, accountId: '123456789012' } },
      },
    });
    return new Response(result.body === '' ? null : (result.body ?? null), {
      status: result.statusCode ?? 200,
      headers: result.headers as Record<string, string>,
    });
  };
  return { fetch, seen };
}

/** A host on the bridge's stdio: sends JSON-RPC lines and reads the answers. */
function hostOn(fetch: (url: string | URL, init?: RequestInit) => Promise<Response>) {
  const input = new PassThrough();
  const output = new PassThrough();
  const logged: string[] = [];
  const done = bridgeToRemote({ url: URL_, fetch, input, output, log: (line) => logged.push(line) });
  let buffered = '';
  const lines: string[] = [];
  output.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    let end = buffered.indexOf('\n');
    while (end >= 0) {
      lines.push(buffered.slice(0, end));
      buffered = buffered.slice(end + 1);
      end = buffered.indexOf('\n');
    }
  });
  const request = async (id: number, method: string, params: Record<string, unknown> = {}) => {
    input.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    for (;;) {
      const answer = lines.map((l) => JSON.parse(l) as { id?: number }).find((m) => m.id === id);
      if (answer)
        return answer as { id: number; result?: Record<string, unknown>; error?: { code: number; message: string } };
      await once(output, 'data');
    }
  };
  const close = async () => {
    input.end();
    await done;
  };
  return { input, request, close, logged };
}

const INITIALIZE = {
  protocolVersion: '2025-06-18',
  capabilities: {},
  clientInfo: { name: 'host', version: '1.0.0' },
};

describe('reseal mcp --remote (docs/mcp.md, "Remote MCP")', () => {
  it('relays a host on stdio to the remote server, every request signed with SigV4 for execute-api', async () => {
    const gate = gateway();
    const host = hostOn(sigV4Fetch({ region: 'eu-west-1', credentials: CREDENTIALS, fetch: gate.fetch }));
    const init = await host.request(1, 'initialize', INITIALIZE);
    expect(init.result).toMatchObject({ serverInfo: { name: 'reseal' } });
    const list = await host.request(2, 'tools/list');
    expect(((list.result?.tools ?? []) as { name: string }[]).map((t) => t.name).sort()).toEqual([...MCP_TOOL_NAMES]);
    await host.close();
    expect(gate.seen.length).toBeGreaterThanOrEqual(2);
    expect(gate.seen.every((a) => a.includes('Credential=AKIDEXAMPLE/'))).toBe(true);
  });

  it('answers the host with a JSON-RPC error naming the URL when the gateway refuses (no hanging request)', async () => {
    const gate = gateway();
    const host = hostOn(gate.fetch); // unsigned: the gateway refuses with 403
    const init = await host.request(1, 'initialize', INITIALIZE);
    expect(init.error?.code).toBe(BRIDGE_DELIVERY_ERROR);
    expect(init.error?.message).toContain(URL_.href);
    expect(init.error?.message).toContain('403');
    await host.close();
    expect(host.logged.join('\n')).toContain('403');
  });

  it('names a host line that is JSON but no JSON-RPC message on its log, escaped in one line, and keeps relaying', async () => {
    const gate = gateway();
    const host = hostOn(sigV4Fetch({ region: 'eu-west-1', credentials: CREDENTIALS, fetch: gate.fetch }));
    host.input.write('{"hello":"world\\u001b[2J"}\n');
    const init = await host.request(1, 'initialize', INITIALIZE);
    expect(init.result).toMatchObject({ serverInfo: { name: 'reseal' } });
    await host.close();
    const reported = host.logged.filter(
      (line) => line.startsWith('reseal mcp --remote: ') && !line.includes(URL_.href),
    );
    expect(reported).toHaveLength(1);
    expect([...(reported[0] ?? '')].every((c) => c >= ' ')).toBe(true);
    expect(reported[0]?.length).toBeLessThanOrEqual('reseal mcp --remote: '.length + 301);
  });

  it('takes https URLs, and http only to a loopback emulator; the signing region comes from the host name or AWS_REGION', async () => {
    expect(remoteMcpUrl(URL_.href).href).toBe(URL_.href);
    expect(remoteMcpUrl('http://127.0.0.1:4566/_aws/execute-api/abc123/mcp').host).toBe('127.0.0.1:4566');
    expect(() => remoteMcpUrl('http://mcp.example.com/mcp')).toThrow(/https/);
    expect(() => remoteMcpUrl('not a url')).toThrow(/not a URL/);
    expect(remoteSigningRegion(URL_, {}, 'eu-west-1')).toBe('eu-west-1');
    expect(remoteSigningRegion(new URL('https://mcp.example.com/mcp'), { AWS_REGION: 'us-east-2' }, null)).toBe(
      'us-east-2',
    );
    expect(() => remoteSigningRegion(new URL('https://mcp.example.com/mcp'), {}, null)).toThrow(/set AWS_REGION/);
  });

  it('refuses a bad URL and local-server options with exit 2, before reaching anything', async () => {
    const plain = await runCli(['mcp', '--remote', 'http://mcp.example.com/mcp'], { cwd: process.cwd() });
    expect(plain.exitCode).toBe(2);
    expect(plain.stderr).toContain('https://');
    const mixed = await runCli(['mcp', '--remote', URL_.href, '--stack', 'Other', '--outputs-file', 'o.json'], {
      cwd: process.cwd(),
    });
    expect(mixed.exitCode).toBe(2);
    expect(mixed.stderr).toContain('drop --stack, --outputs-file');
  });
});
