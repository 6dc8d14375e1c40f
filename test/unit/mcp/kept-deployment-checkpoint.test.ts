import { describe, expect, it } from 'vitest';
import type { CheckpointStore } from '../../../client/checkpoint-store';
import { MemoryCheckpointStore } from '../../../client/memory-checkpoint-store';
import { inMemoryMcpCall } from '../../helpers/in-memory-mcp-call';
import type { integratedStack } from '../../helpers/integrated-stack';
import { rolledBackTable } from '../../helpers/rolled-back-table';
import { testLineageId } from '../../helpers/writer-factories';

const LINEAGE = testLineageId('lin-mcp-kept-deploy');

/** Calls `name` on a server whose client keeps checkpoints in `kept` (as `RESEAL_CHECKPOINTS`). */
async function callOn(s: ReturnType<typeof integratedStack>, kept: CheckpointStore | null, name: string) {
  return inMemoryMcpCall(s.client(kept ? { deps: { checkpointStore: kept } } : {}), name, { lineageId: LINEAGE });
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
