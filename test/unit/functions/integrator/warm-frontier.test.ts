import { describe, expect, it, vi } from 'vitest';
import { FACTORY_LINEAGE_ID } from '../../../helpers/guard-factories';
import {
  attackedBetweenIntegrations,
  type WarmIntegrationStack,
  warmIntegrationStack,
} from '../../../helpers/warm-integration';
import { testLineageId } from '../../../helpers/writer-factories';

// A warm integrator proves a lineage's new records by extending the frontier it kept for the
// indexed head, reading no tree node (docs/deployment-log.md, "Integration", "A warm integrator");
// anything the extension does not prove falls back to the proofs from the table, with the same
// evidence a cold integrator raises.
const [A, B] = [FACTORY_LINEAGE_ID, testLineageId('lin-b')];

const stack = warmIntegrationStack;

describe('a warm integrator extends the frontier it kept (docs/deployment-log.md, "A warm integrator")', () => {
  it('a warm second integration of a lineage reads no tree node; a cold one reads them; both index the stored head', async () => {
    const s = stack();
    await s.write(A, 'r-0');
    await s.write(A, 'r-1');
    // A lineage the index does not hold is extended from the empty tree: no node, warm or cold.
    expect(await s.integrate()).toMatchObject({ integrated: [A], evidence: [] });
    expect(s.nodeReads()).toBe(0);
    await s.write(A, 'r-2');
    await s.write(A, 'r-3');
    await s.write(A, 'r-4');
    expect(await s.integrate()).toMatchObject({ integrated: [A], evidence: [] });
    expect(s.nodeReads()).toBe(0);
    expect(s.frontiers.size).toBe(1);

    await s.write(A, 'r-5');
    const cold = s.integrator();
    expect(await s.integrate(cold)).toMatchObject({ integrated: [A], evidence: [] });
    expect(s.nodeReads()).toBeGreaterThan(0);
    // The cold instance kept the frontier of what it committed: it is warm now.
    await s.write(A, 'r-6');
    expect(await s.integrate(cold)).toMatchObject({ integrated: [A], evidence: [] });
    expect(s.nodeReads()).toBe(0);
  });

  it('a lost commit leaves no frontier; the next integration proves from the table and goes on', async () => {
    const s = stack();
    await s.write(A, 'r-0');
    await s.integrate();
    await s.write(A, 'r-1');
    const append = vi.spyOn(s.deployment, 'append').mockResolvedValueOnce(false);
    await expect(s.integrate()).rejects.toThrow(/head changed/);
    append.mockRestore();
    await s.write(A, 'r-2');
    s.nodeReads();
    // The kept frontier is still the committed size 1 (not the lost 2): it still extends.
    expect(await s.integrate()).toMatchObject({ integrated: [A], evidence: [] });
    expect(s.nodeReads()).toBe(0);
  });

  it('a frontier edited in memory (its size and root as the index holds them) is not used: proofs from the table, no wrong decision', async () => {
    const s = stack();
    await s.write(A, 'r-0');
    await s.write(A, 'r-1');
    await s.write(A, 'r-2');
    await s.write(B, 'r-0');
    await s.integrate();
    const kept = s.frontiers.frontierOf(A, await heldValue(s, A));
    expect(kept).toHaveLength(2);
    const edited = [...(kept ?? [])];
    edited[0] = 'ab'.repeat(32);
    const { treeSize, rootHash } = await heldValue(s, A);
    s.frontiers.remember(A, { treeSize, rootHash, frontier: edited });
    await s.write(A, 'r-3');
    await s.write(B, 'r-1');
    const report = await s.integrate();
    expect(report).toMatchObject({ evidence: [] });
    expect([...report.integrated].sort()).toEqual([A, B].sort());
    expect(s.nodeReads()).toBeGreaterThan(0); // A's proofs, from the table
    expect((await heldValue(s, A)).treeSize).toBe(4);
  });
});

describe('the records since the indexed head, read as an eventually consistent copy first', () => {
  it('asks for a copy rechecked strongly when it misses a seq (never `recheck: false`), from the indexed size to the stored head', async () => {
    const s = stack();
    await s.write(A, 'r-0');
    await s.integrate();
    await s.write(A, 'r-1');
    await s.write(A, 'r-2');
    const readChain = vi.spyOn(s.store, 'readChain');
    expect(await s.integrate()).toMatchObject({ integrated: [A], evidence: [] });
    expect(readChain.mock.calls).toEqual([[A, 1, 2, { eventual: true, keptManifests: true }]]);
  });
});

describe('what the table writer does between two integrations: the evidence a cold integrator raises, warm too', () => {
  const attacked = (attack: (s: WarmIntegrationStack) => Promise<void> | void) =>
    attackedBetweenIntegrations(A, attack);

  it('a record since the indexed head edited: RECORD_UNPROVEN', async () => {
    const { kinds, warmNodeReads } = await attacked((s) =>
      s.store.tamperRecord(A, 2, (record) => {
        (record.header as Record<string, unknown>).residualId = 'r-forged';
      }),
    );
    expect(kinds).toEqual(['RECORD_UNPROVEN']);
    expect(warmNodeReads).toBeGreaterThan(0);
  });

  it('a record since the indexed head deleted: RECORD_UNPROVEN', async () => {
    const { kinds, warmNodeReads } = await attacked((s) => s.store.deleteRecord(A, 3));
    expect(kinds).toEqual(['RECORD_UNPROVEN']);
    expect(warmNodeReads).toBeGreaterThan(0);
  });

  it('the head rewound to an earlier snapshot, then sealed past the indexed size by a cold sealer: HEAD_INCONSISTENT', async () => {
    const s = stack();
    await s.write(A, 'r-0');
    const restore = s.store.lineageSnapshot(A);
    await s.write(A, 'r-1');
    await s.write(A, 'r-2');
    await s.integrate();
    restore();
    s.coldSealer();
    for (const id of ['x-1', 'x-2', 'x-3']) await s.write(A, id);
    const batch = s.notices.splice(0);
    s.nodeReads();
    const warm = await s.warm.integrate(batch);
    expect(warm.evidence.map((e) => e.kind)).toEqual(['HEAD_INCONSISTENT']);
    expect(s.nodeReads()).toBeGreaterThan(0);
    const cold = await s.integrator().integrate(batch);
    expect(cold.evidence.map((e) => e.kind)).toEqual(['HEAD_INCONSISTENT']);
  });

  it('the head rewound below the indexed size, then sealed on by a cold sealer: LINEAGE_ROLLBACK', async () => {
    const s = stack();
    await s.write(A, 'r-0');
    await s.write(A, 'r-1');
    const restore = s.store.lineageSnapshot(A);
    await s.write(A, 'r-2');
    await s.write(A, 'r-3');
    await s.integrate();
    restore();
    s.coldSealer();
    await s.write(A, 'r-2b');
    const batch = s.notices.splice(0);
    const warm = await s.warm.integrate(batch);
    const cold = await s.integrator().integrate(batch);
    expect(warm.evidence.map((e) => e.kind)).toEqual(['LINEAGE_ROLLBACK']);
    expect(cold.evidence.map((e) => e.kind)).toEqual(['LINEAGE_ROLLBACK']);
  });
});

/** The entry the index holds for `lineageId` under the deployment head. */
async function heldValue(s: WarmIntegrationStack, lineageId: string) {
  const value = await s.held(lineageId);
  if (!value) throw new Error(`the index holds no ${lineageId}`);
  return value;
}
