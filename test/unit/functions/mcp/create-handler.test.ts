import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryCheckpointStore } from '../../../../client/memory-checkpoint-store';
import { createMcpHttpHandler, MAX_MCP_BODY_BYTES, RemoteRpcError } from '../../../../functions/mcp/create-handler';
import { remoteFreshnessPolicy } from '../../../../functions/mcp/remote-freshness-policy';
import { writeRequestFor } from '../../../../mcp/tools/write';
import { verifyRecordProof } from '../../../../shared/log/record-proof';
import { openCheckpoint } from '../../../../shared/log/verified-checkpoint';
import type { ResidualWriteRequest } from '../../../../shared/write/write-request';
import { fakeLogger } from '../../../helpers/factories';
import { InMemoryLineageStore } from '../../../helpers/in-memory-lineage-store';
import { inProcessStack } from '../../../helpers/in-process-stack';
import { cosignedByTestWitness, integratedStack, witnessedTestPolicy } from '../../../helpers/integrated-stack';
import { MCP_ENV as env, MCP_FIRST_WRITE, MCP_TOOL_NAMES } from '../../../helpers/mcp-fixtures';
import { TEST_LOG_KEY, TEST_LOG_NAME } from '../../../helpers/pipeline-keys';
import { TEST_NOW_MS } from '../../../helpers/seal-factories';
import { signWriteSync, TEST_POLICY, testLineageId } from '../../../helpers/writer-factories';

const CALLER = {
  accessKey: 'ASIAEXAMPLE',
  accountId: '123456789012',
  callerId: 'AROAEXAMPLE:agent-7',
  principalOrgId: null,
  userArn: 'arn:aws:sts::123456789012:assumed-role/agent/agent-7',
  userId: 'AROAEXAMPLE:agent-7',
};
const LINEAGE = testLineageId('agent-7');

/** The remote handler over the in-process pipeline; its client holds no writer key. */
function remote() {
  const store = new InMemoryLineageStore();
  const clock = { now: TEST_NOW_MS };
  const logger = fakeLogger();
  const handler = createMcpHttpHandler({
    logger,
    deps: async () => ({
      client: inProcessStack({ store, clock, writer: null, checkpointStore: new MemoryCheckpointStore() }).client,
      snapshots: null,
      nowMs: () => clock.now,
    }),
  });
  return { handler, logger, clock, store };
}

type Handler = ReturnType<typeof remote>['handler'];

/** An HTTP API payload-2.0 event for `request`, with `iam` as the gateway's authorizer block (none: `null`). */
async function eventOf(request: Request, iam: Record<string, unknown> | null = CALLER) {
  const url = new URL(request.url);
  const body = request.method === 'POST' ? await request.text() : undefined;
  return {
    version: '2.0',
    routeKey: `${request.method} /mcp`,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    headers: Object.fromEntries(request.headers.entries()),
    ...(body === undefined ? {} : { body }),
    isBase64Encoded: false,
    requestContext: {
      accountId: '123456789012',
      apiId: 'abc123',
      domainName: url.host,
      http: { method: request.method, path: url.pathname, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 't' },
      requestId: 'req-1',
      routeKey: `${request.method} /mcp`,
      stage: '$default',
      ...(iam ? { authorizer: { iam } } : {}),
    },
  };
}

const responseOf = (result: APIGatewayProxyStructuredResultV2) =>
  new Response(result.statusCode === 202 || result.body === '' ? null : (result.body ?? null), {
    status: result.statusCode ?? 200,
    headers: result.headers as Record<string, string>,
  });

/** A fetch that hands each request to `handler` as API Gateway would. */
const viaGateway =
  (handler: Handler, iam: Record<string, unknown> | null = CALLER) =>
  async (url: string | URL, init?: RequestInit) =>
    responseOf(await handler(await eventOf(new Request(url, init), iam)));

let close: (() => Promise<void>) | null = null;
afterEach(async () => {
  await close?.();
  close = null;
});

async function connect(handler: Handler): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(
    new URL('https://abc123.execute-api.eu-west-1.amazonaws.com/mcp'),
    {
      fetch: viaGateway(handler),
    },
  );
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(transport);
  close = () => client.close();
  return client;
}

const post = (body: string, headers: Record<string, string> = {}) =>
  new Request('https://abc123.execute-api.eu-west-1.amazonaws.com/mcp', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body,
  });

/** The first write of {@link LINEAGE}, signed by the test writer key at `signedAtMs`. */
function signedFirstWrite(signedAtMs: number): ResidualWriteRequest {
  const unsigned = writeRequestFor(
    { ...MCP_FIRST_WRITE, lineageId: LINEAGE, residualId: 'r-1' },
    env,
    signedAtMs,
    signedAtMs - 60_000,
  );
  return signWriteSync({ ...unsigned, policy: TEST_POLICY }, undefined, signedAtMs);
}

describe('remote MCP handler (docs/mcp.md, "Remote MCP")', () => {
  it('serves the four tools to the official client over Streamable HTTP, statelessly', async () => {
    const { handler, logger } = remote();
    const client = await connect(handler);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...MCP_TOOL_NAMES]);
    const write = tools.find((t) => t.name === 'reseal_write');
    expect(Object.keys((write?.inputSchema as { properties?: object } | undefined)?.properties ?? {}).sort()).toEqual([
      'request',
      'timeoutMs',
    ]);
    // Each request was logged with its caller and its JSON-RPC method.
    expect(logger.keys.caller).toEqual({
      userArn: CALLER.userArn,
      accountId: CALLER.accountId,
      userId: CALLER.userId,
    });
    expect(logger.info).toHaveBeenCalledWith('remote MCP request', { calls: ['tools/list'] });
  });

  it('seals a write its caller signed and answers with what a host checks offline: the signed checkpoint and the inclusion proof', async () => {
    const { handler, clock, store } = remote();
    const client = await connect(handler);
    const request = signedFirstWrite(clock.now);
    const result = await client.callTool({ name: 'reseal_write', arguments: { request } });
    const out = result.structuredContent as {
      outcome: string;
      seq: number;
      recordHash: string;
      checkpoint: { note: string };
      proof: { leafIndex: number; treeSize: number; inclusionProof: string[] };
    };
    expect(result.isError).not.toBe(true);
    expect(out.outcome).toBe('SEALED');
    expect(out.seq).toBe(0);
    // The answer holds up with the log's public key alone: the note, and the record's proof in it.
    const checkpoint = openCheckpoint(out.checkpoint.note, TEST_LOG_KEY, `${TEST_LOG_NAME}/${LINEAGE}`);
    const proven = verifyRecordProof(await store.readRecord(LINEAGE, 0), out.proof, checkpoint, LINEAGE);
    expect(proven).toMatchObject({ verdict: 'VERIFIED_INTACT', record: { recordHash: out.recordHash } });

    const recall = await client.callTool({ name: 'reseal_recall', arguments: { lineageId: LINEAGE, env } });
    expect(recall.isError).not.toBe(true);
    const kept = (recall.structuredContent as { keptClaims: { claimId: string }[] }).keptClaims;
    expect(kept.map((c) => c.claimId)).toEqual(['node-builds', 'npm-ci-works']);
  });

  it('never signs for the caller: a write without a writer block is INVALID_INPUT, a forged signature is refused', async () => {
    const { handler, clock } = remote();
    const client = await connect(handler);
    const { writer: _none, ...unsigned } = signedFirstWrite(clock.now);
    const missing = await client.callTool({ name: 'reseal_write', arguments: { request: unsigned } });
    expect(missing.isError).toBe(true);
    expect(missing.structuredContent).toMatchObject({ error: 'INVALID_INPUT' });
    expect(JSON.stringify(missing.structuredContent)).toContain('request.writer');

    const signed = signedFirstWrite(clock.now);
    const forged = { ...signed, writer: { ...signed.writer, signature: Buffer.alloc(64, 7).toString('base64') } };
    const refused = await client.callTool({ name: 'reseal_write', arguments: { request: forged } });
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toMatchObject({ error: 'INVALID_INPUT' });
    expect(JSON.stringify(refused.structuredContent)).toContain('writer');
  });

  it('refuses a request with no caller identity: 403 with a JSON-RPC error naming the AWS_IAM route', async () => {
    const { handler } = remote();
    const transport = new StreamableHTTPClientTransport(
      new URL('https://abc123.execute-api.eu-west-1.amazonaws.com/mcp'),
      {
        fetch: viaGateway(handler, null),
      },
    );
    const client = new Client({ name: 'test', version: '1.0.0' });
    await expect(client.connect(transport)).rejects.toThrow(/no caller identity/);

    const result = await handler(await eventOf(post('{"jsonrpc":"2.0","id":1,"method":"tools/list"}'), null));
    expect(result.statusCode).toBe(403);
    const body = JSON.parse(result.body ?? '') as { error: { code: number; message: string } };
    expect(body.error.code).toBe(RemoteRpcError.FORBIDDEN);
    expect(body.error.message).toMatch(/no caller identity.*AWS_IAM route/);
    // A gateway block without a principal is no identity either.
    const partial = await handler(await eventOf(post('{}'), { accountId: '123456789012' }));
    expect(partial.statusCode).toBe(403);
  });

  it('answers malformed JSON with a JSON-RPC parse error (-32700)', async () => {
    const { handler } = remote();
    const result = await handler(await eventOf(post('{"jsonrpc": "2.0", "id": 1, "method": ')));
    expect(result.statusCode).toBe(400);
    expect((JSON.parse(result.body ?? '') as { error: { code: number } }).error.code).toBe(-32700);
  });

  it('refuses a body that repeats a member name as reseal mcp refuses the line: 400, -32600 naming the name, its id kept, no server run', async () => {
    const logger = fakeLogger();
    let built = 0;
    const handler = createMcpHttpHandler({
      logger,
      deps: async () => {
        built++;
        throw new Error('no server may run for a refused body');
      },
    });
    const refusedAs = async (body: string): Promise<Record<string, unknown>> => {
      const result = await handler(await eventOf(post(body)));
      return { status: result.statusCode, ...(JSON.parse(result.body ?? '') as Record<string, unknown>) };
    };
    expect(await refusedAs('{"jsonrpc":"2.0","id":7,"method":"tools/list","method":"ping"}')).toEqual({
      status: 400,
      jsonrpc: '2.0',
      id: 7,
      error: {
        code: RemoteRpcError.UNCHECKED_NAMES,
        message: expect.stringMatching(/^Invalid Request: .*duplicate key "method"/),
      },
    });
    // Deep in a tool's arguments: the env a recall would be triaged against.
    const recall = await refusedAs(
      '{"jsonrpc":"2.0","id":"r-1","method":"tools/call","params":{"name":"reseal_recall","arguments":{"lineageId":"agent-7","env":{"tool:node":"v20.0.0","tool:node":"v22.0.0"}}}}',
    );
    expect(recall).toMatchObject({ status: 400, id: 'r-1', error: { code: -32600 } });
    expect((recall.error as { message: string }).message).toMatch(
      /params\.arguments\.env\.tool:node: duplicate key "tool:node"/,
    );
    // A notification has no id to answer with; over HTTP it is still answered, id null.
    expect(
      await refusedAs('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9,"requestId":10}}'),
    ).toMatchObject({ status: 400, id: null, error: { code: -32600 } });
    // Nested deeper than the strict parser checks: JSON.parse would take it, a repeated name unseen.
    const deep = `${'['.repeat(600)}${']'.repeat(600)}`;
    expect(
      await refusedAs(`{"jsonrpc":"2.0","id":8,"method":"tools/list","params":{"pad":${deep},"a":1,"a":2}}`),
    ).toMatchObject({ status: 400, id: 8, error: { code: -32600 } });
    expect(built).toBe(0);
    expect(logger.warn).toHaveBeenCalledWith(
      'remote MCP: refused a body that repeats a member name or is nested too deep to check',
      expect.objectContaining({ calls: ['tools/list'] }),
    );
  });

  it('serves a body whose names are all distinct as before, and leaves a body that is not JSON to the SDK', async () => {
    const { handler } = remote();
    const listed = await handler(await eventOf(post('{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}')));
    expect(listed.statusCode).toBe(200);
    expect((JSON.parse(listed.body ?? '') as { result: { tools: unknown[] } }).result.tools).toHaveLength(4);
    const unparsed = await handler(await eventOf(post('{"a":1,"a":')));
    expect(unparsed.statusCode).toBe(400);
    expect((JSON.parse(unparsed.body ?? '') as { error: { code: number } }).error.code).toBe(-32700);
  });

  it('refuses a body over MAX_MCP_BODY_BYTES with 413 and the limit, before any server runs', async () => {
    const { handler } = remote();
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/list',
      params: { pad: 'x'.repeat(MAX_MCP_BODY_BYTES) },
    });
    const result = await handler(await eventOf(post(big)));
    expect(result.statusCode).toBe(413);
    const body = JSON.parse(result.body ?? '') as { error: { code: number; message: string } };
    expect(body.error.code).toBe(RemoteRpcError.TOO_LARGE);
    expect(body.error.message).toContain('at most 1,048,576');
  });

  it('counts a base64 body in decoded bytes: at the limit it is read, one byte past it 413', async () => {
    const { handler } = remote();
    const base64Event = async (body: string) => {
      const event = await eventOf(post(body));
      return { ...event, body: Buffer.from(body).toString('base64'), isBase64Encoded: true };
    };
    const message = '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"pad":""}}}';
    const padded = (bytes: number) => message.replace('"pad":""', `"pad":"${'x'.repeat(bytes - message.length)}"`);
    const atLimit = await handler(await base64Event(padded(MAX_MCP_BODY_BYTES)));
    expect(atLimit.statusCode).toBe(200);
    const past = await handler(await base64Event(padded(MAX_MCP_BODY_BYTES + 1)));
    expect(past.statusCode).toBe(413);
    expect((JSON.parse(past.body ?? '') as { error: { message: string } }).error.message).toBe(
      'request body is 1,048,577 bytes; the remote MCP server reads at most 1,048,576',
    );
  });

  it('answers GET and DELETE 405 with Allow: POST (no session, no stream)', async () => {
    const { handler } = remote();
    for (const method of ['GET', 'DELETE']) {
      const result = await handler(
        await eventOf(new Request('https://abc123.execute-api.eu-west-1.amazonaws.com/mcp', { method })),
      );
      expect(result.statusCode).toBe(405);
      expect(result.headers?.allow).toBe('POST');
      expect((JSON.parse(result.body ?? '') as { error: { code: number } }).error.code).toBe(
        RemoteRpcError.METHOD_NOT_ALLOWED,
      );
    }
  });

  it('answers an event that is not an HTTP API event with 400', async () => {
    const { handler } = remote();
    const result = await handler({ Records: [] });
    expect(result.statusCode).toBe(400);
  });
});

describe('remote MCP handler: freshness under the stack\'s policy (docs/mcp.md, "Freshness")', () => {
  /** The remote handler over an integrated in-memory stack, its client under `policy` (`null`: the default). */
  async function remoteUnder(policy: string | null) {
    const s = integratedStack();
    await s.send({ lineageId: LINEAGE, residualId: 'r-0' });
    await s.integrate();
    const head = s.deployment.head;
    if (!head) throw new Error('nothing integrated');
    // The test witness cosigns the published checkpoint now, as a witnessed deployment's would be.
    s.deployment.head = {
      ...head,
      published: await cosignedByTestWitness(head.checkpoint, Math.floor(s.clock.now / 1000)),
    };
    const resolved = remoteFreshnessPolicy(
      { policy: policy ?? undefined, maxAgeSeconds: '120', intervalSeconds: '3' },
      TEST_LOG_NAME,
    );
    const handler = createMcpHttpHandler({
      logger: fakeLogger(),
      deps: async () => ({
        client: s.client(resolved ? { deps: { policy: resolved } } : {}),
        snapshots: null,
        nowMs: () => s.clock.now,
      }),
    });
    const client = await connect(handler);
    const result = await client.callTool({ name: 'reseal_verify', arguments: { lineageId: LINEAGE } });
    return result.structuredContent as { freshness: Record<string, unknown> };
  }

  it('a witnessed policy set for the stack: the answer is proven under it, with its window', async () => {
    const witnessed = (await witnessedTestPolicy()).text;
    expect((await remoteUnder(witnessed)).freshness).toMatchObject({
      state: 'PROVEN',
      witnessing: 'WITNESSED',
      windowSeconds: 123,
    });
  });

  it("no policy set: the stack's default, the log key alone (unwitnessed, no window)", async () => {
    expect((await remoteUnder(null)).freshness).toMatchObject({
      state: 'PROVEN',
      witnessing: 'UNWITNESSED',
      windowSeconds: null,
    });
  });
});
