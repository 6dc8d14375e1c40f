import { describe, expect, it } from 'vitest';
import { applyIndexUpdates } from '../../../../shared/index/apply-index-updates';
import { emptyIndexHash, isEmptyIndexHash } from '../../../../shared/index/index-hash';
import { IndexNodeReader } from '../../../../shared/index/index-node-reader';
import { MemoryIndexNodeStore } from '../../../../shared/index/memory-index-node-store';
import { type RebuildLineage, rebuildIndex } from '../../../../shared/integrator/rebuild-index';
import { updatesFor } from '../../../helpers/index-factories';
import { FakeLineage } from '../../../helpers/integrator-factories';

/** The lineage's records as the rebuild reads them. */
const rebuildOf = (l: FakeLineage): RebuildLineage => ({
  lineageId: l.lineageId,
  records: l.records.map((r) => ({ ...r, generationEpoch: l.generationEpoch, policyDigest: null })),
});

/** An index of `lineages` at the given sizes (residual ids at their first sealing), as the integrator builds it. */
async function indexOf(store: MemoryIndexNodeStore, at: readonly [FakeLineage, number][]) {
  const entries = at.flatMap(([l, size]) => {
    const seen = new Set<string>();
    const residuals = l.records.slice(0, size).flatMap((r, seq) => {
      if (seen.has(r.residualId)) return [];
      seen.add(r.residualId);
      return [
        {
          kind: 'residual' as const,
          lineageId: l.lineageId,
          residualId: r.residualId,
          value: { seq, recordHash: r.recordHash },
        },
      ];
    });
    return [{ kind: 'lineage' as const, lineageId: l.lineageId, value: l.head(size) }, ...residuals];
  });
  return (await applyIndexUpdates(store, emptyIndexHash(), updatesFor(entries))).root;
}

/** Every node hash under `root`, breadth first (read in one walk, so through tiles of any height). */
async function nodesUnder(store: MemoryIndexNodeStore, root: Uint8Array): Promise<Uint8Array[]> {
  const reader = new IndexNodeReader(store);
  const all: Uint8Array[] = [];
  let level = [root];
  while (level.length > 0) {
    const next: Uint8Array[] = [];
    for (const hash of level) {
      all.push(hash);
      const node = await reader.read(hash);
      if (node.kind === 'interior') next.push(...[node.left, node.right].filter((h) => !isEmptyIndexHash(h)));
    }
    level = next;
  }
  return all;
}

describe('rebuildIndex (docs/deployment-log.md, "Index rebuild")', () => {
  it('restores every lost node of a committed index, the lineages ahead of it and with a residual id sealed twice', async () => {
    const a = new FakeLineage('lin-a').seal('r-0', 'r-1', 'r-0', 'r-3');
    const b = new FakeLineage('lin-b').seal('x', 'y');
    const c = new FakeLineage('lin-c').seal('z');
    const store = new MemoryIndexNodeStore();
    const root = await indexOf(store, [
      [a, 3],
      [b, 2],
    ]);
    const nodes = await nodesUnder(store, root);
    expect(nodes.length).toBeGreaterThan(4);
    // Lose one node in three (the root included): several lineages' indexed sizes are then read from residual ids.
    const lost = nodes.filter((_, i) => i % 3 === 0);
    for (const hash of lost) store.tamper(hash, undefined);
    const writes = store.writes;
    const result = await rebuildIndex(store, root, [a, b, c].map(rebuildOf));
    expect(result.kind).toBe('REBUILT');
    expect(result.kind === 'REBUILT' && Object.fromEntries(result.sizes)).toEqual({
      'lin-a': 3,
      'lin-b': 2,
      'lin-c': 0,
    });
    expect(result.kind === 'REBUILT' && result.tilesWritten).toBe(lost.length);
    expect(store.writes).toBe(writes + lost.length);
    expect(await nodesUnder(store, root)).toHaveLength(nodes.length);
    expect((await rebuildIndex(store, root, [a, b, c].map(rebuildOf))).kind).toBe('INTACT');
  });

  it('restores a lost tile of 4 levels, and writes an index of one-node items again as tiles (docs/deployment-log.md, "Index rebuild")', async () => {
    const a = new FakeLineage('lin-a').seal('r-0', 'r-1', 'r-2', 'r-3', 'r-4', 'r-5');
    const b = new FakeLineage('lin-b').seal('x', 'y', 'z');
    const store = new MemoryIndexNodeStore({ tileLevels: 1 });
    const root = await indexOf(store, [
      [a, 6],
      [b, 3],
    ]);
    const nodes = await nodesUnder(store, root);
    // One-node items, one of them lost: the rebuild writes the whole index as tiles of 4 levels.
    store.tileLevels = 4;
    store.tamper(nodes.at(-1) as Uint8Array, undefined);
    const migrated = await rebuildIndex(store, root, [a, b].map(rebuildOf));
    expect(migrated.kind).toBe('REBUILT');
    const tiles = new MemoryIndexNodeStore({ tileLevels: 4 });
    await indexOf(tiles, [
      [a, 6],
      [b, 3],
    ]);
    // Every tile of the index is now stored as tiles of 4 levels store it; a lone leaf's tile is
    // the same bytes in both forms, so it was not written again.
    const wanted = [...tiles.entries()];
    const stored = await store.getTiles(wanted.map((t) => t.root));
    for (const [i, { tile }] of wanted.entries())
      expect(Buffer.from(stored[i] ?? []).equals(Buffer.from(tile))).toBe(true);
    expect(migrated.kind === 'REBUILT' && migrated.tilesWritten).toBeGreaterThan(0);
    expect(tiles.size).toBeLessThan(nodes.length);
    expect(await nodesUnder(store, root)).toHaveLength(nodes.length);
    // A tile of 4 levels lost (the root's): restored alone.
    store.tamper(root, undefined);
    const writes = store.writes;
    expect(await rebuildIndex(store, root, [a, b].map(rebuildOf))).toMatchObject({ kind: 'REBUILT', tilesWritten: 1 });
    expect(store.writes).toBe(writes + 1);
    expect((await rebuildIndex(store, root, [a, b].map(rebuildOf))).kind).toBe('INTACT');
  });

  it('writes nothing when the lineages do not hash to the committed root (a lineage rolled back below its indexed size)', async () => {
    const a = new FakeLineage('lin-a').seal('r-0', 'r-1', 'r-2');
    const b = new FakeLineage('lin-b').seal('x');
    const store = new MemoryIndexNodeStore();
    const root = await indexOf(store, [
      [a, 3],
      [b, 1],
    ]);
    store.tamper(root, undefined);
    const writes = store.writes;
    const rolledBack = a.forkAt(2, 'b').seal('r-2');
    const result = await rebuildIndex(store, root, [rolledBack, b].map(rebuildOf));
    expect(result.kind).toBe('MISMATCH');
    expect(store.writes).toBe(writes);
    const omitted = await rebuildIndex(store, root, [b].map(rebuildOf));
    expect(omitted).toMatchObject({ kind: 'MISMATCH', reason: expect.stringMatching(/committed index root/) });
    expect(store.writes).toBe(writes);
  });

  it('gives up, writing nothing, when more candidate sizes fit than it may try', async () => {
    const a = new FakeLineage('lin-a').seal('r-0', 'r-1', 'r-2', 'r-3');
    const store = new MemoryIndexNodeStore();
    const root = await indexOf(store, [[a, 4]]);
    for (const hash of await nodesUnder(store, root)) store.tamper(hash, undefined);
    const result = await rebuildIndex(store, root, [rebuildOf(a)], 2);
    expect(result).toMatchObject({ kind: 'MISMATCH', reason: expect.stringMatching(/at most 2/) });
    expect(store.size).toBe(0);
    expect((await rebuildIndex(store, root, [rebuildOf(a)])).kind).toBe('REBUILT');
  });
});
