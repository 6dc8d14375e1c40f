import { type CallToolResult, Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryCheckpointStore } from '../../../../client/memory-checkpoint-store';
import { createMcpHttpHandler, RemoteRpcError } from '../../../../functions/mcp/create-handler';
import { type RelayTenant, relayTenantsFrom } from '../../../../functions/mcp/relay-tenants';
import { writeRequestFor } from '../../../../mcp/tools/write';
import { lineageIdFor } from '../../../../shared/authorship/lineage-policy';
import { InvalidInputError } from '../../../../shared/errors';
import { fakeLogger } from '../../../helpers/factories';
import { expectGuarantee } from '../../../helpers/guarantees';
import { InMemoryLineageStore } from '../../../helpers/in-memory-lineage-store';
import { inProcessStack } from '../../../helpers/in-process-stack';
import { MCP_ENV as env, MCP_FIRST_WRITE } from '../../../helpers/mcp-fixtures';
import { TEST_NOW_MS } from '../../../helpers/seal-factories';
import { signWriteSync, TEST_POLICY } from '../../../helpers/writer-factories';

// docs/mcp.md, "Tenants": with tenants, each remote MCP caller acts for the tenant whose
// senderPrincipals name it and reads and writes that tenant's lineages only.
const ACCOUNT = '123456789012';
const TENANTS: RelayTenant[] = [
  {
    id: 'acme',
    senderPrincipals: [`arn:aws:iam::${ACCOUNT}:role/agents/acme-agent`],
    queueUrl: 'https://sqs.eu-west-1.amazonaws.com/123456789012/acme-writes',
  },
  {
    id: 'beta',
    senderPrincipals: [`arn:aws:iam::${ACCOUNT}:user/beta-agent`],
    queueUrl: 'https://sqs.eu-west-1.amazonaws.com/123456789012/beta-writes',
  },
];
const iam = (userArn: string) => ({ accessKey: 'AKIAEXAMPLE', accountId: ACCOUNT, userArn, userId: 'AIDAEXAMPLE' });
/** A session of acme's role (the role's path is not in a session ARN). */
const ACME_CALLER = iam(`arn:aws:sts::${ACCOUNT}:assumed-role/acme-agent/agent-7`);
const BETA_CALLER = iam(`arn:aws:iam::${ACCOUNT}:user/beta-agent`);
const STRANGER = iam(`arn:aws:sts::${ACCOUNT}:assumed-role/someone-else/s`);
const ACME_LINEAGE = lineageIdFor('acme/agent-7', TEST_POLICY);
const URL_ = 'https://abc123.execute-api.eu-west-1.amazonaws.com/mcp';

/** The remote handler with tenants over one in-process pipeline; records which tenant each request's deps were built for. */
function remote() {
  const store = new InMemoryLineageStore();
  const clock = { now: TEST_NOW_MS };
  const depsFor: (string | null)[] = [];
  const handler = createMcpHttpHandler({
    logger: fakeLogger(),
    tenants: TENANTS,
    deps: async (_caller, tenant) => {
      depsFor.push(tenant?.id ?? null);
      return {
        client: inProcessStack({ store, clock, writer: null, checkpointStore: new MemoryCheckpointStore() }).client,
        snapshots: null,
        nowMs: () => clock.now,
      };
    },
  });
  return { handler, store, clock, depsFor };
}
type Handler = ReturnType<typeof remote>['handler'];

async function eventOf(request: Request, caller: Record<string, unknown>) {
  const url = new URL(request.url);
  return {
    version: '2.0',
    rawPath: url.pathname,
    rawQueryString: '',
    headers: Object.fromEntries(request.headers.entries()),
    body: await request.text(),
    isBase64Encoded: false,
    requestContext: {
      domainName: url.host,
      http: { method: request.method },
      requestId: 'req-1',
      authorizer: { iam: caller },
    },
  };
}
const responseOf = (result: APIGatewayProxyStructuredResultV2) =>
  new Response(result.statusCode === 202 || result.body === '' ? null : (result.body ?? null), {
    status: result.statusCode ?? 200,
    headers: result.headers as Record<string, string>,
  });

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function connectAs(handler: Handler, caller: Record<string, unknown>): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(URL_), {
    fetch: async (url, init) => responseOf(await handler(await eventOf(new Request(url, init), caller))),
  });
  const client = new Client({ name: 'tenant-test', version: '1.0.0' });
  await client.connect(transport);
  closers.push(() => client.close());
  return client;
}

function signedFirstWrite(lineageId: string, signedAtMs: number) {
  const unsigned = writeRequestFor(
    { ...MCP_FIRST_WRITE, lineageId, residualId: 'r-1' },
    env,
    signedAtMs,
    signedAtMs - 60_000,
  );
  return signWriteSync({ ...unsigned, policy: TEST_POLICY }, undefined, signedAtMs);
}

const call = async (client: Client, name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as CallToolResult;

describe('remote MCP tenancy (docs/mcp.md, "Tenants")', () => {
  it("a tenant's caller writes and reads its own lineages; another tenant's caller is refused TENANT_MISMATCH on every tool, and nothing is read or sent", async (context) => {
    const { handler, store, clock, depsFor } = remote();
    const acme = await connectAs(handler, ACME_CALLER);
    const sealed = await call(acme, 'reseal_write', { request: signedFirstWrite(ACME_LINEAGE, clock.now) });
    expect(sealed.isError, JSON.stringify(sealed.structuredContent)).not.toBe(true);
    expect(sealed.structuredContent).toMatchObject({ outcome: 'SEALED', seq: 0 });
    const own = await call(acme, 'reseal_inspect', { lineageId: ACME_LINEAGE });
    expect(own.isError).not.toBe(true);

    const beta = await connectAs(handler, BETA_CALLER);
    const rejectionsBefore = store.rejections.length;
    const headBefore = JSON.stringify(store.heads.get(ACME_LINEAGE));
    const attempts = {
      reseal_inspect: { lineageId: ACME_LINEAGE },
      reseal_verify: { lineageId: ACME_LINEAGE },
      reseal_recall: { lineageId: ACME_LINEAGE, env },
      reseal_write: {
        request: { ...signedFirstWrite(ACME_LINEAGE, clock.now), residualId: 'r-2' },
      },
    };
    const answers: Record<string, unknown> = {};
    for (const [tool, args] of Object.entries(attempts)) {
      const answer = await call(beta, tool, args);
      answers[tool] = answer.structuredContent;
      expect(answer.isError, tool).toBe(true);
      expect(answer.structuredContent, tool).toMatchObject({
        error: 'TENANT_MISMATCH',
        lineageId: ACME_LINEAGE,
        tenantId: 'beta',
        message: expect.stringContaining(`lineage ${ACME_LINEAGE} is not of tenant beta`),
      });
      // Nothing of acme's lineage reaches beta's caller.
      expect(JSON.stringify(answer.structuredContent)).not.toContain('node-builds');
    }
    expectGuarantee(
      context,
      {
        section: 'fuzzing',
        target: 'remote MCP',
        attack: "tenant beta's caller calls each tool on tenant acme's lineage",
        reader: 'reseal_inspect, reseal_verify, reseal_recall, reseal_write',
        expected: 'TENANT_MISMATCH ×4, nothing read or sent',
      },
      `${Object.values(answers)
        .map((a) => (a as { error?: string }).error ?? 'served')
        .join(' ')
        .replace(
          /^(TENANT_MISMATCH )*TENANT_MISMATCH$/,
          'TENANT_MISMATCH ×4',
        )}, ${store.rejections.length === rejectionsBefore && JSON.stringify(store.heads.get(ACME_LINEAGE)) === headBefore ? 'nothing read or sent' : 'sent'}`,
    );
    expect(store.rejections.length).toBe(rejectionsBefore);
    expect(depsFor.every((id) => id === 'acme' || id === 'beta')).toBe(true);
    expect(depsFor).toContain('beta');
  });

  it('a caller no tenant names is refused at the door: 403 with a JSON-RPC error naming its ARN', async () => {
    const { handler, depsFor } = remote();
    const result = await handler(
      await eventOf(
        new Request(URL_, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
        }),
        STRANGER,
      ),
    );
    expect(result.statusCode).toBe(403);
    const body = JSON.parse(result.body ?? '') as { error: { code: number; message: string } };
    expect(body.error.code).toBe(RemoteRpcError.FORBIDDEN);
    expect(body.error.message).toContain(`caller ${STRANGER.userArn} is not a sender of any tenant`);
    expect(depsFor).toEqual([]);
    // The account root and a federated user are no tenant's callers either.
    for (const arn of [`arn:aws:iam::${ACCOUNT}:root`, `arn:aws:sts::${ACCOUNT}:federated-user/bob`]) {
      const refused = await handler(await eventOf(new Request(URL_, { method: 'POST', body: '{}' }), iam(arn)));
      expect(refused.statusCode).toBe(403);
    }
  });

  it('TENANTS: empty is one tenant; a list is checked as the stack checks its tenants', () => {
    expect(relayTenantsFrom(undefined)).toBeUndefined();
    expect(relayTenantsFrom('')).toBeUndefined();
    expect(relayTenantsFrom(JSON.stringify(TENANTS))).toEqual(TENANTS);
    expect(() => relayTenantsFrom('[')).toThrow(InvalidInputError);
    const shared = [TENANTS[0], { ...TENANTS[1], senderPrincipals: TENANTS[0]?.senderPrincipals }];
    expect(() => relayTenantsFrom(JSON.stringify(shared))).toThrow(/sender of tenant acme too/);
    expect(() => relayTenantsFrom(JSON.stringify([{ ...TENANTS[0], queueUrl: 'not a url' }]))).toThrow(
      InvalidInputError,
    );
  });
});
