import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { type CallToolResult, Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DynamoDBLineageStore } from '../../adapters/dynamodb-lineage-store';
import { sigV4Fetch } from '../../adapters/sigv4-fetch';
import { writeRequestFor } from '../../mcp/tools/write';
import { clientConfig, EMULATOR_REGION, emulatorEnv } from '../../scripts/emulator/deploy';
import { checkpointOrigin } from '../../shared/log/checkpoint-origin';
import { verifyRecordProof } from '../../shared/log/record-proof';
import type { ResidualWriteRequest } from '../../shared/write/write-request';
import { expectConforming } from '../helpers/mcp-conformance';
import { MCP_TOOL_NAMES } from '../helpers/mcp-fixtures';
import { signWriteSync, TEST_POLICY, testLineageId } from '../helpers/writer-factories';

// The remote MCP server of the deployed stack (docs/mcp.md, "Remote MCP"): the official client
// over Streamable HTTP through the HTTP API's AWS_IAM route, each request signed with SigV4 by the
// bridge's signer, and `reseal mcp --remote` over stdio. The emulator serves the API at
// /_aws/execute-api/<api id>/<path>; it names the caller from the signature's access key but
// checks signatures only with AUTH=true, so an unsigned request is what it refuses here.
const stack = inject('stack');
const endpoint = inject('endpoint');
const ROOT = join(import.meta.dirname, '..', '..');
const URL_ = new URL(`${endpoint}/_aws/execute-api/${stack.McpApiId}/mcp`);
const CREDENTIALS = { accessKeyId: 'test', secretAccessKey: 'test' };
const ENV = { 'tool:node': 'v20.0.0', 'tool:npm': '10.0.0', 'tool:os': 'ubuntu-24.04' };
const CLAIMS = {
  'node-builds': { content: 'npm run build passes', causalKeys: ['tool:node'] },
  'npm-ci-works': { content: { exit: 0 }, causalKeys: ['tool:npm'] },
};
const table = new DynamoDBLineageStore(new DynamoDBClient(clientConfig(endpoint)), stack.TableName);

type Structured = Record<string, unknown> & { error?: string };
const structured = (result: CallToolResult) => ({
  isError: result.isError === true,
  out: result.structuredContent as Structured,
  result,
});

let mcp: Client;

beforeAll(async () => {
  mcp = new Client({ name: 'reseal-remote-integration', version: '1.0.0' });
  await mcp.connect(
    new StreamableHTTPClientTransport(URL_, {
      fetch: sigV4Fetch({ region: EMULATOR_REGION, credentials: CREDENTIALS }),
    }),
  );
}, 120_000);
afterAll(async () => {
  await mcp?.close();
});

/** The first write of a fresh test lineage, signed by the test writer key now (the caller's own key). */
function signedFirstWrite(lineageId: string): ResidualWriteRequest {
  const now = Date.now();
  const unsigned = writeRequestFor(
    {
      lineageId,
      residualId: 'r-1',
      sessionId: 's-1',
      generationEpoch: 1,
      claims: CLAIMS,
      structuralKeys: ['tool:os'],
    },
    ENV,
    now,
    now - 60_000,
  );
  return signWriteSync({ ...unsigned, policy: TEST_POLICY }, undefined, now);
}

/**
 * Calls `name`; a call the remote server's 25 s wait ended (`TIMEOUT`) is made again, as a host
 * would, a few times. Every answer must be as `tools/list` declared it.
 */
async function callPatiently(name: string, args: Record<string, unknown>) {
  const tool = (await mcp.listTools()).tools.find((t) => t.name === name);
  if (!tool) throw new Error(`no tool ${name}`);
  const once = async () => {
    const answer = structured((await mcp.callTool({ name, arguments: args })) as CallToolResult);
    expectConforming(tool, answer.result);
    return answer;
  };
  let last = await once();
  for (let attempt = 1; attempt < 4 && last.isError && last.out.error === 'TIMEOUT'; attempt++) last = await once();
  return last;
}

describe('remote MCP on the deployed stack (HTTP API, AWS_IAM, SigV4)', () => {
  it('the official client lists the four tools over Streamable HTTP', async () => {
    const { tools } = await mcp.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...MCP_TOOL_NAMES]);
  });

  it('seals a write the caller signed, its record proven offline in the tree head it was sealed in; recall keeps both claims; inspect shows the record', async () => {
    const lineageId = testLineageId(`remote-${randomUUID().slice(0, 8)}`);
    const write = await callPatiently('reseal_write', { request: signedFirstWrite(lineageId) });
    expect(write.isError, JSON.stringify(write.out)).toBe(false);
    expect(write.out).toMatchObject({ outcome: 'SEALED', lineageId, seq: 0 });
    // What a host checks offline: the record's inclusion proof in the tree head the answer gives
    // (no signed lineage checkpoint: docs/deployment-log.md, "What changes for the sealer", step 3).
    const sealedIn = write.out.checkpoint as { size: number; rootHash: string; note: string | null };
    expect(sealedIn.note).toBeNull();
    const checkpoint = {
      origin: checkpointOrigin(stack.LogName, lineageId),
      size: sealedIn.size,
      rootHash: Buffer.from(sealedIn.rootHash, 'hex'),
    };
    const proven = verifyRecordProof(await table.readRecord(lineageId, 0), write.out.proof, checkpoint, lineageId);
    expect(proven).toMatchObject({ verdict: 'VERIFIED_INTACT' });

    // The write waited until PROVEN within the server's wait, or ran out first (docs/mcp.md, "Freshness").
    const writeFreshness = (write.out.freshness as { state: string } | null)?.state;
    expect(['PROVEN', 'SEALED_AWAITING_INTEGRATION']).toContain(writeFreshness);

    // Recalled as a host would: a record past the tree head the index holds is sealed, awaiting
    // integration (docs/mcp.md, "Errors": not tampering, nothing of it acted on), and the host
    // recalls again after the next integration; once the index holds it, the claims come back.
    let recall = await callPatiently('reseal_recall', { lineageId, env: ENV });
    const recallDeadline = Date.now() + 180_000;
    while (recall.isError && recall.out.error === 'AWAITING_INTEGRATION' && Date.now() < recallDeadline) {
      expect(writeFreshness, 'a write PROVEN through the deployment log is not awaiting integration').toBe(
        'SEALED_AWAITING_INTEGRATION',
      );
      expect(recall.out).toMatchObject({ proven: false, verdict: null });
      expect(recall.out).not.toHaveProperty('keptClaims');
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      recall = await callPatiently('reseal_recall', { lineageId, env: ENV });
    }
    expect(recall.isError, JSON.stringify(recall.out)).toBe(false);
    expect((recall.out.keptClaims as { claimId: string }[]).map((c) => c.claimId).sort()).toEqual([
      'node-builds',
      'npm-ci-works',
    ]);

    const inspect = await callPatiently('reseal_inspect', { lineageId });
    expect(inspect.isError, JSON.stringify(inspect.out)).toBe(false);
    expect(inspect.out).toMatchObject({ lineageId, verdict: 'VERIFIED_INTACT' });
    expect((inspect.out.records as unknown[]).length).toBe(1);
  }, 300_000);

  it('an unsigned request is refused by the gateway with 403 and never reaches a tool', async () => {
    const response = await fetch(URL_, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(response.status).toBe(403);
    expect(await response.text()).not.toContain('reseal_write');
  });

  it('GET and DELETE are answered 405 by the stateless server', async () => {
    const signed = sigV4Fetch({ region: EMULATOR_REGION, credentials: CREDENTIALS });
    for (const method of ['GET', 'DELETE']) {
      const response = await signed(URL_, { method, headers: { accept: 'text/event-stream' } });
      expect(response.status, method).toBe(405);
    }
  });

  it('reseal mcp --remote: a host on stdio reaches the remote tools through the SigV4 bridge', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [join(ROOT, 'bin', 'reseal.mjs'), 'mcp', '--remote', URL_.href],
      env: { PATH: process.env.PATH ?? '', ...emulatorEnv(endpoint) },
      stderr: 'ignore',
    });
    const host = new Client({ name: 'reseal-bridge-integration', version: '1.0.0' });
    await host.connect(transport);
    try {
      const { tools } = await host.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual([...MCP_TOOL_NAMES]);
      const unknown = structured(
        (await host.callTool({
          name: 'reseal_inspect',
          arguments: { lineageId: testLineageId('remote-none') },
        })) as CallToolResult,
      );
      expect(unknown.isError).toBe(true);
      expect(unknown.out.error).toBe('NOT_FOUND');
    } finally {
      await host.close();
    }
  }, 120_000);
});
