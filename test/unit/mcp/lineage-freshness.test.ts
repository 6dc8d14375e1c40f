import { describe, expect, it } from 'vitest';
import { inMemoryMcpCall } from '../../helpers/in-memory-mcp-call';
import { integratedStack } from '../../helpers/integrated-stack';
import { rolledBackLineage } from '../../helpers/rolled-back-lineage';
import { testLineageId } from '../../helpers/writer-factories';

const LINEAGE = testLineageId('lin-mcp-walk-fresh');

/** Calls `name` on a server over `s`'s client; the structured answer and whether it is a tool error. */
async function callOn(s: ReturnType<typeof integratedStack>, name: string) {
  return inMemoryMcpCall(s.client(), name, { lineageId: LINEAGE });
}

// reseal_verify and reseal_inspect place the verified head against the deployment log
// (docs/mcp.md, "Freshness"), as reseal_recall does: a rolled-back lineage is never intact.
describe('reseal_verify / reseal_inspect: freshness of the verified head', () => {
  it('a lineage rolled back behind the index is a TAMPER_DETECTED tool error citing NOT_NEWEST', async () => {
    const s = await rolledBackLineage(LINEAGE);
    for (const tool of ['reseal_verify', 'reseal_inspect']) {
      const { isError, out } = await callOn(s, tool);
      expect(isError, tool).toBe(true);
      expect(out, tool).toMatchObject({ error: 'TAMPER_DETECTED', verdict: 'UNVERIFIED_TAMPER_RISK' });
      expect(JSON.stringify(out), tool).toMatch(/not the newest/);
    }
  });

  it('an intact lineage the index covers is VERIFIED_INTACT with freshness PROVEN', async () => {
    const s = integratedStack();
    await s.send({ lineageId: LINEAGE, residualId: 'r-0' });
    await s.integrate();
    for (const tool of ['reseal_verify', 'reseal_inspect']) {
      const { isError, out } = await callOn(s, tool);
      expect(isError, tool).toBe(false);
      expect(out, tool).toMatchObject({
        verdict: 'VERIFIED_INTACT',
        freshness: { state: 'PROVEN', checkpointSize: 1, witnessing: 'UNWITNESSED' },
      });
    }
  });
});
