import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import type { WriteOutcome } from '../../../client/reseal-client';
import { MemoryCheckpoints } from '../../../mcp/checkpoint-file';
import type { McpClient, ResealMcpDeps } from '../../../mcp/context';
import { createResealMcpServer } from '../../../mcp/server';
import type { ResidualWriteRequest } from '../../../shared/guard/write-request';
import type { RecallRequestedDetail, TriageCompletedDetail } from '../../../shared/schemas/messages';
import { lineageHeadOf, type SealedRecord } from '../../../shared/seal/sealed-record';
import { isolateDelta } from '../../../shared/triage/delta-isolator';
import { InMemoryLineageStore } from '../../helpers/in-memory-lineage-store';
import { buildChain, TEST_LINEAGE_ID, TEST_NOW_MS, testAnchor } from '../../helpers/seal-factories';

/** A fake of the client calls the tools make: records what was published and requested. */
function fakeClient(answers: {
  outcome?: (request: ResidualWriteRequest) => WriteOutcome;
  report?: TriageCompletedDetail;
}) {
  const published: ResidualWriteRequest[] = [];
  const recalls: RecallRequestedDetail[] = [];
  const client: McpClient = {
    publishWrite: async (request) => {
      published.push(request);
      return { messageId: 'm-1', publishedAtMs: TEST_NOW_MS };
    },
    waitForOutcome: async (_lineageId, _residualId, options) => {
      if (!answers.outcome || !options?.request) throw new Error('no outcome configured');
      return answers.outcome(options.request);
    },
    requestRecall: async (detail) => {
      recalls.push({ ...detail, requestId: 'req-1' });
      return 'req-1';
    },
    waitForTriageReport: async () => {
      if (!answers.report) throw new Error('no report configured');
      return answers.report;
    },
    verifyLineage: async () => {
      throw new Error('not used');
    },
    exportLineage: async () => {
      throw new Error('not used');
    },
    verifyExport: async () => {
      throw new Error('not used');
    },
    readRefusals: async () => ({ rejections: [], conflicts: [] }),
  };
  return { client, published, recalls };
}

let close: (() => Promise<void>) | null = null;
afterEach(async () => {
  await close?.();
  close = null;
});

async function connected(deps: ResealMcpDeps): Promise<Client> {
  const server = createResealMcpServer(deps);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(clientSide);
  close = async () => {
    await client.close();
    await server.close();
  };
  return client;
}

const env = { 'tool:node': 'v20.0.0', 'tool:npm': '10.0.0', 'tool:os': 'ubuntu-24.04' };
const baseDeps = (client: McpClient, store = new InMemoryLineageStore()): ResealMcpDeps => ({
  client,
  store,
  anchor: testAnchor(),
  snapshots: { take: async () => ({ env, notes: [] }) },
  checkpoints: new MemoryCheckpoints(),
  nowMs: () => TEST_NOW_MS,
  sessionStartMs: TEST_NOW_MS - 60_000,
});

describe('the Reseal MCP server in process, through the SDK client', () => {
  it('lists the four tools with JSON Schemas from the wire-format zod schemas', async () => {
    const mcp = await connected(baseDeps(fakeClient({}).client));
    const { tools } = await mcp.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      'reseal_inspect',
      'reseal_recall',
      'reseal_verify',
      'reseal_write',
    ]);
    const write = tools.find((t) => t.name === 'reseal_write');
    expect(write?.inputSchema).toMatchObject({
      type: 'object',
      required: ['lineageId', 'sessionId', 'generationEpoch'],
    });
    const properties = write?.inputSchema.properties as Record<string, { items?: { properties?: object } }>;
    // The variables are the wire format's SessionVariable (with freshness and receipt), plus reprobe.
    expect(Object.keys(properties.variables?.items?.properties ?? {})).toEqual(
      expect.arrayContaining(['name', 'value', 'freshness', 'sourceEpoch', 'receipt', 'reprobe']),
    );
    expect(write?.outputSchema).toMatchObject({ type: 'object' });
  });

  it('reseal_write: builds the request (claims layout, reprobe receipts, provider snapshot), keeps the checkpoint', async () => {
    const fake = fakeClient({
      outcome: (request) => ({
        kind: 'SEALED',
        head: {
          lineageId: request.lineageId,
          seq: 0,
          recordHash: 'a'.repeat(64),
          generationEpoch: request.generationEpoch,
          mac: 'AAAA',
          keyId: 'k',
        },
      }),
    });
    const deps = baseDeps(fake.client);
    const mcp = await connected(deps);
    const result = await mcp.callTool({
      name: 'reseal_write',
      arguments: {
        lineageId: 'agent-7',
        sessionId: 's-3',
        generationEpoch: 3,
        predecessor: { sessionId: 's-2', epoch: 2 },
        claims: { 'node-builds': { content: 'npm run build passes', causalKeys: ['tool:node'] } },
        structuralKeys: ['tool:os'],
        variables: [
          {
            name: 'INSTANCE',
            value: 'i-0abc',
            freshness: 'VERIFIED_INHERITED',
            sourceEpoch: 2,
            reprobe: { probe: 'ec2:DescribeInstances' },
          },
        ],
      },
    });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      outcome: 'SEALED',
      seq: 0,
      snapshot: { source: 'providers', keys: 3 },
    });
    const [request] = fake.published;
    expect(request?.payload).toEqual({ claims: { 'node-builds': 'npm run build passes' } });
    expect(request?.residualId).toMatch(/^r-[0-9a-f-]{36}$/);
    expect(request?.boundary).toEqual({
      activeSessionId: 's-3',
      predecessorSessionId: 's-2',
      predecessorEpoch: 2,
      boundaryAtMs: TEST_NOW_MS - 60_000,
    });
    expect(request?.variablesUsed[0]?.receipt).toMatchObject({
      probe: 'ec2:DescribeInstances',
      sessionId: 's-3',
      probedAtMs: TEST_NOW_MS,
    });
    expect(request?.manifest.claimDependencyMap).toEqual({ 'node-builds': ['tool:node'] });
    expect(await deps.checkpoints.get('agent-7')).toEqual({ seq: 0, recordHash: 'a'.repeat(64) });
  });

  it('reseal_write: a causal key missing from the snapshot → INVALID_INPUT naming it; nothing published', async () => {
    const fake = fakeClient({});
    const mcp = await connected(baseDeps(fake.client));
    const result = await mcp.callTool({
      name: 'reseal_write',
      arguments: {
        lineageId: 'agent-7',
        sessionId: 's-3',
        generationEpoch: 3,
        claims: { 'git-works': { content: 'ok', causalKeys: ['tool:git'] } },
      },
    });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ error: 'INVALID_INPUT' });
    expect(JSON.stringify(result.structuredContent)).toContain('tool:git');
    expect(fake.published).toEqual([]);
  });

  it('arguments that fail the wire schema are refused before anything runs', async () => {
    const fake = fakeClient({});
    const mcp = await connected(baseDeps(fake.client));
    const result = await mcp.callTool({
      name: 'reseal_write',
      arguments: { lineageId: 'has spaces', sessionId: 's', generationEpoch: -1 },
    });
    expect(result.isError).toBe(true);
    expect(fake.published).toEqual([]);
  });

  it('reseal_recall: sends the snapshot and the kept checkpoint, checks the record itself, returns the claims', async () => {
    const store = new InMemoryLineageStore();
    const manifest = (await import('../../../shared/triage/manifest')).buildManifest({
      env,
      structuralKeys: ['tool:os'],
      claimDependencyMap: { 'node-builds': ['tool:node'], 'npm-ci-works': ['tool:npm'] },
    });
    const { records } = await buildChain(1, {
      inputs: () => ({ manifest, payload: { claims: { 'node-builds': 'passes', 'npm-ci-works': 'passes' } } }),
    });
    const record = records[0] as SealedRecord;
    await store.append(record, null);
    const drifted = { ...env, 'tool:npm': '11.0.0' };
    const fake = fakeClient({
      report: {
        formatVersion: 1,
        requestId: 'req-1',
        lineageId: TEST_LINEAGE_ID,
        seq: 0,
        residualId: record.header.residualId,
        outcome: 'TRIAGED',
        verification: { verdict: 'VERIFIED_INTACT', firstFailure: null },
        report: isolateDelta(manifest, drifted),
        refusalReason: null,
        refusalCode: null,
        completedAtMs: TEST_NOW_MS,
      },
    });
    const deps = { ...baseDeps(fake.client, store), snapshots: { take: async () => ({ env: drifted, notes: [] }) } };
    await deps.checkpoints.keep(TEST_LINEAGE_ID, lineageHeadOf(record));
    const mcp = await connected(deps);
    const result = await mcp.callTool({ name: 'reseal_recall', arguments: { lineageId: TEST_LINEAGE_ID } });
    expect(result.isError).toBeFalsy();
    expect(fake.recalls[0]).toMatchObject({
      target: { latest: true },
      currentEnv: drifted,
      checkpoint: { seq: 0, recordHash: record.recordHash },
    });
    expect(result.structuredContent).toMatchObject({
      delta: { verdict: 'PARTIAL_REPROBE_REQUIRED' },
      keptClaims: [{ claimId: 'node-builds', content: 'passes' }],
      reprobeClaims: [{ claimId: 'npm-ci-works', driftedKeys: ['tool:npm'], previousContent: 'passes' }],
      verification: { checkpoint: { seq: 0 } },
    });
  });

  it('no env and no snapshot providers → INVALID_INPUT at env', async () => {
    const mcp = await connected({ ...baseDeps(fakeClient({}).client), snapshots: null });
    const result = await mcp.callTool({ name: 'reseal_recall', arguments: { lineageId: 'agent-7' } });
    expect(result.structuredContent).toMatchObject({ error: 'INVALID_INPUT', issues: [{ path: 'env' }] });
  });
});
