import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import type { CheckpointStore } from '../../../client/checkpoint-store';
import { MemoryCheckpointStore } from '../../../client/memory-checkpoint-store';
import { createResealMcpServer } from '../../../mcp/server';
import type { integratedStack } from '../../helpers/integrated-stack';
import { rolledBackTable } from '../../helpers/rolled-back-table';
import { testLineageId } from '../../helpers/writer-factories';

const LINEAGE = testLineageId('lin-mcp-kept-deploy');

/** Calls `name` on a server whose client keeps checkpoints in `kept` (as `RESEAL_CHECKPOINTS`). */
async function callOn(s: ReturnType<typeof integratedStack>, kept: CheckpointStore | null, name: string) {
  const client = s.client(kept ? { deps: { checkpointStore: kept } } : {});
  const server = createResealMcpServer({ client, snapshots: null });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const mcp = new Client({ name: 'test', version: '1.0.0' });
  await mcp.connect(clientSide);
  try {
    const result = await mcp.callTool({ name, arguments: { lineageId: LINEAGE } });
    return { isError: result.isError === true, out: result.structuredContent as Record<string, unknown> };
  } finally {
    await mcp.close();
    await server.close();
  }
}

// The server's checkpoint store keeps the deployment checkpoint its tools read (docs/mcp.md,
// "Checkpoints"; docs/verifiable-log.md, "Checkpoints the client keeps"): a table put back whole
// behind it answers no tool as intact, heads MAC'd or not.
describe('MCP tools with a checkpoint store that kept a newer deployment checkpoint', () => {
  it('reseal_verify and reseal_inspect: a TAMPER_DETECTED tool error citing DEPLOYMENT_ROLLBACK; a cold server is shown the rollback', async () => {
    const kept = new MemoryCheckpointStore();
    const s = await rolledBackTable(LINEAGE, async (newest) => {
      expect((await callOn(newest, kept, 'reseal_verify')).out).toMatchObject({ verdict: 'VERIFIED_INTACT' });
    });
    for (const tool of ['reseal_verify', 'reseal_inspect']) {
      expect((await callOn(s, null, tool)).out, tool).toMatchObject({ verdict: 'VERIFIED_INTACT' });
      const { isError, out } = await callOn(s, kept, tool);
      expect(isError, tool).toBe(true);
      expect(out, tool).toMatchObject({ error: 'TAMPER_DETECTED', verdict: 'UNVERIFIED_TAMPER_RISK' });
      expect(JSON.stringify(out), tool).toMatch(/DEPLOYMENT_ROLLBACK/);
    }
  });
});
