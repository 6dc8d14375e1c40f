import { describe, expect, it } from 'vitest';
import type { McpClient } from '../../../mcp/reseal-mcp-deps';
import { tenantScopedClient } from '../../../mcp/tenant-scoped-client';
import { TenantMismatchError } from '../../../shared/errors';

// docs/mcp.md, "Tenants": every client call that names a lineage is checked before it reaches the stack.
const OWN = 'acme/agent-7.0123456789abcdef0123456789abcdef';
const OTHER = 'beta/agent-7.0123456789abcdef0123456789abcdef';

/** A client that records each call and answers `'served'`. */
function recording() {
  const calls: string[] = [];
  const answer =
    (name: string) =>
    async (..._args: unknown[]) => {
      calls.push(name);
      return 'served';
    };
  const names = [
    'publishWrite',
    'waitForOutcome',
    'recall',
    'recallDirect',
    'latestCheckpoint',
    'provenRecord',
    'logKey',
    'verifyLineage',
    'lineageFreshness',
    'exportLineage',
    'verifyExport',
    'readRefusals',
  ] as const;
  return { calls, client: Object.fromEntries(names.map((n) => [n, answer(n)])) as unknown as McpClient };
}

/** Each method called for `lineageId`. */
const callsFor = (client: McpClient, lineageId: string): [string, () => Promise<unknown>][] => [
  ['publishWrite', () => client.publishWrite({ lineageId } as never)],
  ['waitForOutcome', () => client.waitForOutcome(lineageId, 'r-1')],
  ['recall', () => client.recall({ lineageId } as never)],
  ['recallDirect', () => client.recallDirect({ lineageId } as never)],
  ['latestCheckpoint', () => client.latestCheckpoint(lineageId)],
  ['provenRecord', () => client.provenRecord(lineageId, 0)],
  ['verifyLineage', () => client.verifyLineage(lineageId)],
  ['lineageFreshness', () => client.lineageFreshness(lineageId, {} as never)],
  ['exportLineage', () => client.exportLineage(lineageId)],
  ['verifyExport', () => client.verifyExport({ lineageId } as never)],
  ['readRefusals', () => client.readRefusals(lineageId)],
];

describe('tenantScopedClient', () => {
  it("refuses every call naming another tenant's lineage before the client is called, and passes its own", async () => {
    const { calls, client } = recording();
    const scoped = tenantScopedClient(client, 'acme');
    for (const [name, run] of callsFor(scoped, OTHER)) {
      await expect(run(), name).rejects.toThrow(TenantMismatchError);
      await expect(run(), name).rejects.toMatchObject({ lineageId: OTHER, tenantId: 'acme', retryable: false });
    }
    expect(calls).toEqual([]);
    for (const [name, run] of callsFor(scoped, OWN)) expect(await run(), name).toBe('served');
    expect(await scoped.logKey()).toBe('served');
    expect(calls).toEqual([...callsFor(scoped, OWN).map(([name]) => name), 'logKey']);
  });
});
