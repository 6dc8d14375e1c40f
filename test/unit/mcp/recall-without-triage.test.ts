import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { MemoryCheckpointStore } from '../../../client/memory-checkpoint-store';
import type { McpClient } from '../../../mcp/reseal-mcp-deps';
import { createResealMcpServer } from '../../../mcp/server';
import { tenantScopedClient } from '../../../mcp/tenant-scoped-client';
import { RECALL_TOOL } from '../../../mcp/tools/recall';
import { WRITE_TOOL } from '../../../mcp/tools/write';
import { inProcessRecallClient } from '../../helpers/factories';
import { inMemoryMcpCall } from '../../helpers/in-memory-mcp-call';
import { MCP_ENV as ENV, MCP_FIRST_WRITE as FIRST_WRITE, MCP_LINEAGE as LINEAGE } from '../../helpers/mcp-fixtures';
import { pipeline } from './pipeline';

const DRIFTED = { ...ENV, 'tool:npm': '11.0.0' };

/**
 * {@link FIRST_WRITE} sealed through the pipeline, then two clients of its table: one whose bus
 * runs triage in process, and one whose bus counts its puts and refuses them.
 */
async function sealed() {
  const p = pipeline();
  const server = createResealMcpServer(p.deps(ENV));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const mcp = new Client({ name: 'test', version: '1.0.0' });
  await mcp.connect(clientSide);
  const written = await mcp.callTool({ name: WRITE_TOOL, arguments: FIRST_WRITE });
  await mcp.close();
  await server.close();
  expect(written.structuredContent).toMatchObject({ outcome: 'SEALED' });
  const puts = { count: 0 };
  const bus = {
    send: async () => {
      puts.count++;
      throw new Error('a recall without triage puts no event');
    },
  };
  const viaTriage = inProcessRecallClient(p.store, { checkpointStore: new MemoryCheckpointStore() });
  const direct = inProcessRecallClient(p.store, {
    checkpointStore: new MemoryCheckpointStore(),
    eventBridge: bus as never,
  });
  return { p, viaTriage, direct, puts };
}

/** An answer without what names the request or when it was answered. */
function answered(out: Record<string, unknown>): Record<string, unknown> {
  const { requestId: _r, completedAt: _c, ...rest } = out;
  return rest;
}

// docs/mcp.md, `reseal_recall`, "Without triage": the server's client answers the recall itself.
describe('reseal_recall with triage: false', () => {
  it('answers VERIFIED_INTACT for an honest table as the triage path does, with no event put and no report stored', async () => {
    const { p, viaTriage, direct, puts } = await sealed();
    const own = await inMemoryMcpCall(direct, RECALL_TOOL, { lineageId: LINEAGE, env: DRIFTED, triage: false });
    expect(own.isError).toBe(false);
    expect(own.out).toMatchObject({
      outcome: 'TRIAGED',
      seq: 0,
      verification: { verdict: 'VERIFIED_INTACT' },
      delta: { verdict: 'PARTIAL_REPROBE_REQUIRED', changed: ['tool:npm'] },
      keptClaims: [{ claimId: 'node-builds', content: 'npm run build passes' }],
      reprobeClaims: [{ claimId: 'npm-ci-works', driftedKeys: ['tool:npm'], previousContent: { exit: 0 } }],
    });
    expect(puts.count).toBe(0);
    expect(p.store.triageReports.size).toBe(0);
    const triaged = await inMemoryMcpCall(viaTriage, RECALL_TOOL, { lineageId: LINEAGE, env: DRIFTED });
    expect(p.store.triageReports.size).toBe(1);
    expect(answered(own.out)).toEqual(answered(triaged.out));
  });

  it('the default is still a recall through triage', async () => {
    const { p, direct, puts } = await sealed();
    const triaged = await inMemoryMcpCall(direct, RECALL_TOOL, { lineageId: LINEAGE, env: ENV });
    expect(triaged.out).toMatchObject({ error: 'UNEXPECTED' });
    expect(puts.count).toBe(1);
    expect(p.store.triageReports.size).toBe(0);
  });

  it('a tampered record gives the refusal the triage path gives: TAMPER_DETECTED, nothing of its content', async () => {
    const { p, viaTriage, direct, puts } = await sealed();
    p.store.tamperRecord(LINEAGE, 0, (record) => {
      (record.payload as { claims: Record<string, unknown> }).claims['node-builds'] = 'nothing went wrong';
    });
    const own = await inMemoryMcpCall(direct, RECALL_TOOL, { lineageId: LINEAGE, env: ENV, triage: false });
    const triaged = await inMemoryMcpCall(viaTriage, RECALL_TOOL, { lineageId: LINEAGE, env: ENV });
    expect(own.isError).toBe(true);
    expect(own.out).toMatchObject({ error: 'TAMPER_DETECTED', lineageId: LINEAGE, verdict: 'HASH_MISMATCH' });
    expect(JSON.stringify(own.out)).not.toContain('nothing went wrong');
    // Who found it, the unproven words quoted (the answerer's own) and whose claim the reason says
    // it passes on are all that differ.
    const whose = (text: unknown) =>
      String(text)
        .replace("[this client's reading of the table, not proven]", '[ANSWERER]')
        .replace("[triage's finding, not proven to this client]", '[ANSWERER]');
    const { detectedBy, untrusted, message, firstFailure, ...own_ } = answered(own.out);
    const { detectedBy: _d, untrusted: _u, message: m, firstFailure: f, ...triaged_ } = answered(triaged.out);
    expect(own_).toEqual(triaged_);
    expect(whose(message)).toBe(whose(m));
    expect(String(message)).toContain("[this client's reading of the table, not proven]");
    const failure = firstFailure as { reason: string };
    expect({ ...failure, reason: whose(failure.reason) }).toEqual({
      ...(f as { reason: string }),
      reason: whose((f as { reason: string }).reason),
    });
    expect(detectedBy).toBe('client');
    expect(untrusted).toMatchObject({
      note: expect.any(String),
      refusalReason: expect.stringContaining('payloadHash'),
    });
    expect(puts.count).toBe(0);
  });

  it("a tenant-scoped server refuses another tenant's lineage TENANT_MISMATCH before anything is read", async () => {
    const calls: string[] = [];
    const reads = new Proxy({} as McpClient, {
      get: (_target, method) => async () => {
        calls.push(String(method));
        throw new Error(`${String(method)} reached the stack`);
      },
    });
    const scoped = tenantScopedClient(reads, 'other-tenant');
    const refused = await inMemoryMcpCall(scoped, RECALL_TOOL, { lineageId: LINEAGE, env: ENV, triage: false });
    expect(refused).toMatchObject({
      isError: true,
      out: { error: 'TENANT_MISMATCH', lineageId: LINEAGE, tenantId: 'other-tenant' },
    });
    expect(calls).toEqual([]);
  });
});
