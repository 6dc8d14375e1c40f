import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CallToolResult, Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { expectConforming } from '../../helpers/mcp-conformance';
import { MCP_TOOL_NAMES } from '../../helpers/mcp-fixtures';
import { noAwsEnv } from '../../helpers/no-aws-env';

// `reseal mcp` as a host starts it, on a machine with no AWS set up: no region, no credentials,
// nothing deployed. It must still start and list its tools; each call answers UNAVAILABLE naming
// what is missing (docs/mcp.md, "Start-up and an unreachable stack"). Nothing here reaches the
// network: the region and the credentials are checked before any AWS call.
const ROOT = join(import.meta.dirname, '..', '..', '..');

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'reseal-mcp-start-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

let client: Client | null = null;
afterEach(async () => {
  await client?.close();
  client = null;
});

/** `reseal mcp` over stdio with only `env` (plus PATH and an AWS configuration that is nowhere). */
async function serve(env: Record<string, string>): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(ROOT, 'bin', 'reseal.mjs'), 'mcp'],
    cwd: dir,
    env: { ...noAwsEnv(dir), ...env },
    stderr: 'ignore',
  });
  client = new Client({ name: 'reseal-start', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

async function unavailable(mcp: Client, name: string, args: Record<string, unknown>) {
  const tool = (await mcp.listTools()).tools.find((t) => t.name === name);
  if (!tool) throw new Error(`${name} is not listed`);
  const result = (await mcp.callTool({ name, arguments: args })) as CallToolResult;
  expect(result.isError).toBe(true);
  expectConforming(tool, result);
  return result.structuredContent as Record<string, unknown>;
}

describe('reseal mcp starts and lists its tools with no stack reachable', () => {
  it('no region and no credentials: tools/list answers; every tool answers UNAVAILABLE, region missing', async () => {
    const mcp = await serve({});
    const { tools } = await mcp.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...MCP_TOOL_NAMES]);
    const args: Record<string, Record<string, unknown>> = {
      reseal_write: { lineageId: 'agent-7', sessionId: 's-1', generationEpoch: 1, env: { 'tool:node': 'v20' } },
      reseal_recall: { lineageId: 'agent-7', env: { 'tool:node': 'v20' } },
      reseal_verify: { lineageId: 'agent-7' },
      reseal_inspect: { lineageId: 'agent-7' },
    };
    for (const [name, input] of Object.entries(args)) {
      expect(await unavailable(mcp, name, input)).toMatchObject({
        error: 'UNAVAILABLE',
        missing: 'region',
        stackName: 'ResealStack',
        region: null,
        message: expect.stringContaining('Region is missing'),
        action: expect.stringContaining('AWS_REGION'),
      });
    }
  });

  it('a region but no credentials: UNAVAILABLE, credentials missing, call after call', async () => {
    const mcp = await serve({ AWS_REGION: 'eu-west-1', RESEAL_STACK: 'AgentMemory' });
    for (let attempt = 0; attempt < 2; attempt++) {
      expect(await unavailable(mcp, 'reseal_verify', { lineageId: 'agent-7' })).toMatchObject({
        missing: 'credentials',
        stackName: 'AgentMemory',
        region: 'eu-west-1',
        action: expect.stringContaining('credentials'),
      });
    }
  });
});
