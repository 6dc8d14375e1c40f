import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyIndexUpdates } from '../../../../shared/index/apply-index-updates';
import { CachedIndexNodeStore } from '../../../../shared/index/cached-index-node-store';
import { checkIndexPresence } from '../../../../shared/index/check-index';
import type { IndexEntry, LineageIndexValue } from '../../../../shared/index/index-entry';
import { emptyIndexHash } from '../../../../shared/index/index-hash';
import { MemoryIndexNodeStore } from '../../../../shared/index/memory-index-node-store';
import { proveIndexKey } from '../../../../shared/index/prove-index-key';
import { hashIndexNode } from '../../../../shared/index/read-index-node';
import { deploymentLeafHash } from '../../../../shared/integrator/deployment-leaf';
import { type DeploymentLogState, emptyDeploymentLogState } from '../../../../shared/integrator/deployment-log-state';
import { type IntegrationResult, integrate, type LineageCandidate } from '../../../../shared/integrator/integrate';
import { readHeldLineages, readHeldLineagesApart } from '../../../../shared/integrator/read-held-lineages';
import type { SealedRunNotice } from '../../../../shared/integrator/sealed-run-notice';
import { appendLeaf } from '../../../../shared/log/append-leaf';
import { proveConsistency } from '../../../../shared/log/consistency-proof';
import { MemoryMerkleTree } from '../../../../shared/log/memory-tree';
import { leafHash } from '../../../../shared/log/merkle-hash';
import { verifyConsistency } from '../../../../shared/log/verify-consistency';
import { verifyInclusion } from '../../../../shared/log/verify-inclusion';
import type { IndexNodeStore } from '../../../../shared/ports/index-node-store';
import { hexOf, updatesFor } from '../../../helpers/index-factories';
import { FakeLineage } from '../../../helpers/integrator-factories';

const ORIGIN = 'reseal/test-stack';

/** An integrator over memory: the index store, the deployment log's tree, the committed state. */
class Harness {
  readonly store = new MemoryIndexNodeStore();
  readonly tree = new MemoryMerkleTree();
  state: DeploymentLogState = emptyDeploymentLogState();

  async run(
    lineages: readonly (FakeLineage | { lineage: FakeLineage; size?: number } | LineageCandidate)[],
    notices: readonly SealedRunNotice[] = [],
  ): Promise<IntegrationResult> {
    const ids = lineages.map((l) => ('lineageId' in l ? l.lineageId : l.lineage.lineageId));
    const held = await readHeldLineages(this.store, this.state.indexRoot, ids);
    const candidates = await Promise.all(
      lineages.map((l) =>
        l instanceof FakeLineage
          ? l.candidate(held.get(l.lineageId) ?? null)
          : 'lineage' in l
            ? l.lineage.candidate(held.get(l.lineage.lineageId) ?? null, l.size)
            : l,
      ),
    );
    const result = await integrate({
      store: this.store,
      previous: this.state,
      origin: ORIGIN,
      candidates,
      notices,
      held,
    });
    if (result.next) {
      this.tree.appendLeafHash(deploymentLeafHash(result.next.state.indexRoot));
      this.state = result.next.state;
    }
    return result;
  }

  async heldHead(lineageId: string): Promise<LineageIndexValue | null> {
    return (await readHeldLineages(this.store, this.state.indexRoot, [lineageId])).get(lineageId) ?? null;
  }
}

const kinds = (result: IntegrationResult) => result.evidence.map((e) => `${e.lineageId}:${e.kind}`);

describe('integrate (docs/deployment-log.md, "Integration")', () => {
  it('three new lineages: one checkpoint commits to an index root that proves every head and residual id', async () => {
    const h = new Harness();
    const [a, b, c] = [
      new FakeLineage('lin-a').seal().seal(),
      new FakeLineage('lin-b').seal(),
      new FakeLineage('lin-c').seal('x', 'y', 'z'),
    ];
    const result = await h.run([a, b, c]);
    expect(result.evidence).toEqual([]);
    expect([...result.integrated].sort()).toEqual(['lin-a', 'lin-b', 'lin-c']);
    expect(result.checkpoint).toMatchObject({ origin: ORIGIN, size: 1 });
    expect(Buffer.from(result.checkpoint?.rootHash ?? []).equals(Buffer.from(h.tree.root()))).toBe(true);
    expect(h.store.putCalls).toBe(1);
    // The leaf of the checkpoint is the index root: inclusion at leaf 0 of 1.
    expect(
      verifyInclusion({
        leafIndex: 0,
        treeSize: 1,
        leafHash: deploymentLeafHash(result.indexRoot),
        proof: [],
        rootHash: h.state.rootHash,
      }),
    ).toBe(true);
    for (const [lineage, residualId, seq] of [
      [a, 'r-1', 1],
      [c, 'y', 1],
    ] as const) {
      const lineageEntry: IndexEntry = { kind: 'lineage', lineageId: lineage.lineageId, value: lineage.head() };
      const proven = await proveIndexKey(h.store, result.indexRoot, { kind: 'lineage', lineageId: lineage.lineageId });
      expect(checkIndexPresence(result.indexRoot, lineageEntry, proven.proof)).toBeNull();
      const residual: IndexEntry = {
        kind: 'residual',
        lineageId: lineage.lineageId,
        residualId,
        value: { seq, recordHash: (lineage.records[seq] as { recordHash: string }).recordHash },
      };
      const rp = await proveIndexKey(h.store, result.indexRoot, {
        kind: 'residual',
        lineageId: lineage.lineageId,
        residualId,
      });
      expect(checkIndexPresence(result.indexRoot, residual, rp.proof)).toBeNull();
    }
  });

  it('a later integration extends the deployment log: consistent with the earlier checkpoint; an unchanged lineage costs nothing', async () => {
    const h = new Harness();
    const a = new FakeLineage('lin-a').seal();
    const b = new FakeLineage('lin-b').seal();
    await h.run([a, b]);
    const first = h.state;
    a.seal().seal();
    const second = await h.run([a, b]);
    expect(second.integrated).toEqual(['lin-a']);
    expect(second.unchanged).toEqual(['lin-b']);
    expect(second.checkpoint?.size).toBe(2);
    const proof = await proveConsistency(1, 2, h.tree.nodes);
    expect(verifyConsistency({ size1: 1, size2: 2, root1: first.rootHash, root2: h.state.rootHash, proof })).toBe(true);
    expect(await h.heldHead('lin-a')).toEqual(a.head());
  });

  it('nothing new: no leaf, no checkpoint to sign, no node written', async () => {
    const h = new Harness();
    const a = new FakeLineage('lin-a').seal();
    await h.run([a]);
    const writes = h.store.writes;
    const again = await h.run([a]);
    expect(again).toMatchObject({ next: null, checkpoint: null, integrated: [], unchanged: ['lin-a'], evidence: [] });
    expect(h.store.writes).toBe(writes);
  });

  it('a rollback (fewer records than indexed) is LINEAGE_ROLLBACK; the others are integrated, the held head stays', async () => {
    const h = new Harness();
    const a = new FakeLineage('lin-a').seal().seal().seal().seal().seal().seal();
    const b = new FakeLineage('lin-b').seal();
    await h.run([a, b]);
    const rolledBack = a.forkAt(4, 'cold').seal();
    b.seal();
    const result = await h.run([rolledBack, b]);
    expect(kinds(result)).toEqual(['lin-a:LINEAGE_ROLLBACK']);
    expect(result.integrated).toEqual(['lin-b']);
    expect(await h.heldHead('lin-a')).toEqual(a.head());
  });

  it('a fork past the indexed size is HEAD_INCONSISTENT (the consistency proof from the indexed head fails)', async () => {
    const h = new Harness();
    const a = new FakeLineage('lin-a').seal().seal().seal().seal();
    await h.run([a]);
    const forked = a.forkAt(2, 'other').seal().seal().seal();
    const result = await h.run([forked]);
    expect(kinds(result)).toEqual(['lin-a:HEAD_INCONSISTENT']);
    expect(result.checkpoint).toBeNull();
    expect(await h.heldHead('lin-a')).toEqual(a.head());
  });

  it("a candidate offered with the indexed tree's frontier instead of proofs enters when the records extend it to the stored root; one that does not throws, never admitted", async () => {
    const h = new Harness();
    const a = new FakeLineage('lin-a').seal().seal().seal();
    await h.run([a]);
    const held = await h.heldHead('lin-a');
    let frontier: Uint8Array[] = [];
    for (const [seq, r] of a.records.entries()) {
      frontier = appendLeaf(frontier, seq, leafHash(Buffer.from(r.recordHash, 'hex'))).frontier;
    }
    const extended = async (lineage: FakeLineage, from: readonly string[]): Promise<LineageCandidate> => {
      const proven = await lineage.candidate(held);
      if ('unreadable' in proven) throw new Error('unreadable');
      const records = proven.records.map((r) => ({ ...r, inclusion: [] }));
      return { ...proven, consistency: [], records, extendedFrom: from };
    };
    const forked = a.forkAt(2, 'other').seal().seal().seal();
    a.seal().seal();
    const edited = frontier.map(hexOf);
    edited[0] = 'ab'.repeat(32);
    await expect(h.run([await extended(a, edited)])).rejects.toThrow(/frontier extension/);
    await expect(h.run([await extended(forked, frontier.map(hexOf))])).rejects.toThrow(/frontier extension/);
    expect(await h.heldHead('lin-a')).toEqual(held);
    const result = await h.run([await extended(a, frontier.map(hexOf))]);
    expect(result).toMatchObject({ integrated: ['lin-a'], evidence: [] });
    expect(await h.heldHead('lin-a')).toEqual(a.head());
  });

  it('the same size with another root is LINEAGE_FORK', async () => {
    const h = new Harness();
    const a = new FakeLineage('lin-a').seal().seal().seal();
    await h.run([a]);
    const other = a.forkAt(2, 'other').seal();
    expect(kinds(await h.run([other]))).toEqual(['lin-a:LINEAGE_FORK']);
  });

  it('an older generation epoch at a larger size is LINEAGE_ROLLBACK', async () => {
    const h = new Harness();
    const a = new FakeLineage('lin-a').seal();
    a.generationEpoch = 3;
    await h.run([a]);
    a.seal();
    a.generationEpoch = 2;
    expect(kinds(await h.run([a]))).toEqual(['lin-a:LINEAGE_ROLLBACK']);
  });

  it('a residual id sealed twice in one window is RESIDUAL_CHANGED once; the index keeps the first sealing and the lineage still goes in', async () => {
    const h = new Harness();
    const a = new FakeLineage('lin-a').seal('r-0', 'r-1', 'r-0');
    const b = new FakeLineage('lin-b').seal();
    const result = await h.run([a, b]);
    expect(kinds(result)).toEqual(['lin-a:RESIDUAL_CHANGED']);
    expect(result.evidence[0]).toMatchObject({ held: { seq: 0 }, offered: { seq: 2 } });
    expect([...result.integrated].sort()).toEqual(['lin-a', 'lin-b']);
    expect(await h.heldHead('lin-a')).toEqual(a.head(3));
    const residual = await proveIndexKey(h.store, h.state.indexRoot, {
      kind: 'residual',
      lineageId: 'lin-a',
      residualId: 'r-0',
    });
    expect(residual.kind === 'presence' && residual.entry.value).toEqual({
      seq: 0,
      recordHash: a.records[0]?.recordHash,
    });
    // Later writes integrate, and the second sealing raises no evidence again.
    a.seal('r-3');
    const next = await h.run([a]);
    expect(next.evidence).toEqual([]);
    expect(next.integrated).toEqual(['lin-a']);
    expect(await h.heldHead('lin-a')).toEqual(a.head(4));
  });

  it('a residual id the index already holds, sealed again later, is RESIDUAL_CHANGED from the index; the head enters, the id stays mapped to its first sealing', async () => {
    const h = new Harness();
    const a = new FakeLineage('lin-a').seal('r-0', 'r-1');
    const b = new FakeLineage('lin-b').seal();
    await h.run([a, b]);
    a.seal('r-1', 'r-2');
    b.seal();
    const putCalls = h.store.putCalls;
    const result = await h.run([a, b]);
    expect(kinds(result)).toEqual(['lin-a:RESIDUAL_CHANGED']);
    expect(result.evidence[0]).toMatchObject({ held: { seq: 1 }, offered: { seq: 2 } });
    expect([...result.integrated].sort()).toEqual(['lin-a', 'lin-b']);
    expect(h.store.putCalls).toBe(putCalls + 1);
    expect(await h.heldHead('lin-a')).toEqual(a.head(4));
    // The index is exactly a@4 (r-1 at its first sealing, r-2 mapped) and b@2: the root of those entries at once.
    const alone = new MemoryIndexNodeStore();
    const entries = [...entriesOf(a, 4), ...entriesOf(b, 2)].filter(
      (e) => !(e.kind === 'residual' && e.lineageId === 'lin-a' && e.residualId === 'r-1' && e.value.seq === 2),
    );
    const { root } = await applyIndexUpdates(alone, emptyIndexHash(), updatesFor(entries));
    expect(Buffer.from(result.indexRoot).equals(Buffer.from(root))).toBe(true);
    const next = await h.run([a.seal('r-4')]);
    expect(next.evidence).toEqual([]);
    expect(await h.heldHead('lin-a')).toEqual(a.head(5));
  });

  it('an index node the table writer deleted leaves out only the lineages whose keys cross it (INDEX_NODE_MISSING); the others integrate', async () => {
    const h = new Harness();
    const a = new FakeLineage('lin-a').seal('r-0', 'r-1');
    const b = new FakeLineage('lin-b').seal();
    await h.run([a, b]);
    const held = await readHeldLineages(h.store, h.state.indexRoot, ['lin-a', 'lin-b']);
    h.store.tamper(
      hashIndexNode({ kind: 'leaf', entry: { kind: 'lineage', lineageId: 'lin-a', value: a.head(2) } }).hash,
      undefined,
    );
    a.seal('r-2');
    b.seal();
    const result = await integrate({
      store: h.store,
      previous: h.state,
      origin: ORIGIN,
      candidates: [await a.candidate(held.get('lin-a') ?? null), await b.candidate(held.get('lin-b') ?? null)],
      notices: [],
      held,
    });
    expect(kinds(result)).toEqual(['lin-a:INDEX_NODE_MISSING']);
    expect(result.integrated).toEqual(['lin-b']);
    expect(result.checkpoint).toMatchObject({ size: 2 });
    const proven = await proveIndexKey(h.store, result.indexRoot, { kind: 'lineage', lineageId: 'lin-b' });
    expect(proven.kind === 'presence' && proven.entry.value).toEqual(b.head(2));
  });

  it('a record since the indexed head that is missing or not in the tree is RECORD_UNPROVEN', async () => {
    const h = new Harness();
    const a = new FakeLineage('lin-a').seal().seal().seal();
    const missing = (await a.candidate(null)) as Extract<LineageCandidate, { head: unknown }>;
    const edited = {
      ...missing,
      records: missing.records.map((r, i) => (i === 1 ? { ...r, recordHash: 'ab'.repeat(32) } : r)),
    };
    const gap = { ...missing, records: [missing.records[0], missing.records[2]] } as LineageCandidate;
    expect(kinds(await h.run([gap]))).toEqual(['lin-a:RECORD_UNPROVEN']);
    expect(kinds(await h.run([edited as LineageCandidate]))).toEqual(['lin-a:RECORD_UNPROVEN']);
    expect(h.state.size).toBe(0);
  });

  it('a notice the table does not match (rolled back or rewritten after the seal) is NOTICE_MISMATCH', async () => {
    const h = new Harness();
    const a = new FakeLineage('lin-a').seal().seal().seal();
    const noticeOfThree = a.notice(0);
    const shown = { lineage: a, size: 2 };
    expect(kinds(await h.run([shown], [noticeOfThree]))).toEqual(['lin-a:NOTICE_MISMATCH']);
    const rewritten = a.forkAt(2, 'other').seal();
    expect(kinds(await h.run([rewritten], [noticeOfThree]))).toEqual(['lin-a:NOTICE_MISMATCH']);
    const honest = await h.run([a], [noticeOfThree]);
    expect(honest.evidence).toEqual([]);
    expect(honest.integrated).toEqual(['lin-a']);
  });

  it('a late notice of seqs already integrated past (rolled back, then sealed again) is NOTICE_MISMATCH, never dropped (docs/deployment-log.md, "Integration", step 3)', async () => {
    const h = new Harness();
    const first = new FakeLineage('lin-a').seal();
    await h.run([first], [first.notice(0)]);
    first.seal().seal();
    const late = first.notice(1); // seqs 1 and 2, sealed then rolled back before any integration
    // The same seqs sealed again with other records, and one more run: the stored head is past the late notice's.
    const resealed = first.forkAt(1, 'b').seal().seal().seal();
    const onTime = await h.run([resealed], [resealed.notice(1)]);
    expect(onTime.evidence).toEqual([]);
    expect((await h.heldHead('lin-a'))?.treeSize).toBe(4);
    // The first seal's notice arrives after the second history is integrated: its seqs lie below the indexed size.
    const alone = await h.run([resealed], [late]);
    expect(kinds(alone)).toEqual(['lin-a:NOTICE_MISMATCH']);
    expect(alone.evidence[0]?.reason).toContain('seq 1');
    // With a later run of the lineage in the same batch: still caught, and the lineage waits at its indexed head.
    resealed.seal();
    const mixed = await h.run([resealed], [late, resealed.notice(4)]);
    expect(kinds(mixed)).toEqual(['lin-a:NOTICE_MISMATCH']);
    expect((await h.heldHead('lin-a'))?.treeSize).toBe(4);
  });

  it('a late notice that matches what is integrated is a no-op; one whose proof the table hides is NOTICE_MISMATCH', async () => {
    const h = new Harness();
    const a = new FakeLineage('lin-a').seal().seal();
    await h.run([a], [a.notice(0)]);
    const redelivered = await h.run([a], [a.notice(0)]);
    expect(redelivered.evidence).toEqual([]);
    expect(redelivered.unchanged).toEqual(['lin-a']);
    expect(redelivered.checkpoint).toBeNull();
    a.seal();
    const withNext = await h.run([a], [a.notice(0, 2), a.notice(2)]);
    expect(withNext.evidence).toEqual([]);
    expect(withNext.integrated).toEqual(['lin-a']);
    // The table hides a node of the late seq's proof: not proven, so not taken as matching.
    const held = await h.heldHead('lin-a');
    const hidden = (await a.candidate(held)) as Extract<LineageCandidate, { head: unknown }>;
    const result = await h.run([{ ...hidden, noticedInclusion: new Map([[0, []]]) }], [a.notice(0, 2)]);
    expect(kinds(result)).toEqual(['lin-a:NOTICE_MISMATCH']);
  });

  it('a head that did not authenticate is HEAD_UNAUTHENTICATED and changes nothing', async () => {
    const h = new Harness();
    const result = await h.run([{ lineageId: 'lin-a', unreadable: 'the checkpoint signature does not verify' }]);
    expect(result.evidence).toEqual([
      { kind: 'HEAD_UNAUTHENTICATED', lineageId: 'lin-a', reason: 'the checkpoint signature does not verify' },
    ]);
    expect(result.checkpoint).toBeNull();
  });

  it('refuses two candidates for one lineage, and a candidate whose held entry was not read', async () => {
    const h = new Harness();
    const a = await new FakeLineage('lin-a').seal().candidate(null);
    const held = new Map([['lin-a', null]]);
    const base = { store: h.store, previous: h.state, origin: ORIGIN, notices: [] };
    await expect(integrate({ ...base, candidates: [a, a], held })).rejects.toThrow(/two candidates for one lineage/);
    await expect(integrate({ ...base, candidates: [a], held: new Map() })).rejects.toThrow(
      /held entry of this lineage was not read/,
    );
  });

  it('property: honest runs in any batching give the index root of all their entries at once, one leaf per changing integration', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 6 }), {
          minLength: 1,
          maxLength: 5,
        }),
        async (batches) => {
          const h = new Harness();
          const lineages = [0, 1, 2, 3].map((i) => new FakeLineage(`lin-${i}`));
          let changing = 0;
          for (const batch of batches) {
            const touched = [...new Set(batch)].map((i) => (lineages[i] as FakeLineage).seal());
            const result = await h.run(touched);
            expect(result.evidence).toEqual([]);
            if (result.next) changing += 1;
          }
          expect(h.state.size).toBe(changing);
          const all = new MemoryIndexNodeStore();
          const entries = lineages.flatMap((l) => (l.records.length === 0 ? [] : entriesOf(l)));
          const { root } = await applyIndexUpdates(all, emptyIndexHash(), updatesFor(entries));
          expect(Buffer.from(h.state.indexRoot).toString('hex')).toBe(Buffer.from(root).toString('hex'));
        },
      ),
      { numRuns: 40 },
    );
  });
});

function entriesOf(l: FakeLineage, size = l.records.length): IndexEntry[] {
  return [
    { kind: 'lineage', lineageId: l.lineageId, value: l.head(size) },
    ...l.records.slice(0, size).map(
      (r, seq): IndexEntry => ({
        kind: 'residual',
        lineageId: l.lineageId,
        residualId: r.residualId,
        value: { seq, recordHash: r.recordHash },
      }),
    ),
  ];
}

describe('the warm tile cache and a tile deleted from the table (docs/verifiable-index.md, "Consistency and caching")', () => {
  const ids = ['lin-a', 'lin-b', 'lin-c'];
  /** One integration of `lineages` over `store`, as the integrator function runs it (steps 2–4). */
  async function run(store: IndexNodeStore, previous: DeploymentLogState, lineages: readonly FakeLineage[]) {
    const { held, missing } = await readHeldLineagesApart(store, previous.indexRoot, ids);
    const candidates = await Promise.all(
      lineages.filter((l) => held.has(l.lineageId)).map((l) => l.candidate(held.get(l.lineageId) ?? null)),
    );
    const result = await integrate({ store, previous, origin: ORIGIN, candidates, notices: [], held });
    return { ...result, evidence: [...missing, ...result.evidence] };
  }
  const leafOf = (l: FakeLineage, size: number) =>
    hashIndexNode({ kind: 'leaf', entry: { kind: 'lineage', lineageId: l.lineageId, value: l.head(size) } }).hash;

  it('the warm integrator integrates a lineage below a deleted tile it caches, committing the root a cold one commits once the tile is restored; a tile no update replaces stays missing for every reader without the cache', async () => {
    const table = new MemoryIndexNodeStore();
    const warm = new CachedIndexNodeStore(table);
    const [a, b, c] = ids.map((id) => new FakeLineage(id).seal()) as [FakeLineage, FakeLineage, FakeLineage];
    const first = await run(warm, emptyDeploymentLogState(), [a, b, c]);
    const state = first.next?.state as DeploymentLogState;
    const deleted = [leafOf(a, 1), leafOf(c, 1)];
    const kept = await table.getTiles(deleted);
    for (const hash of deleted) table.tamper(hash, undefined);
    a.seal();
    b.seal();

    // A cold integrator (no cache) leaves out both lineages below the deleted tiles, with evidence.
    const cold = await run(table, state, [a, b, c]);
    expect(kinds(cold).sort()).toEqual(['lin-a:INDEX_NODE_MISSING', 'lin-c:INDEX_NODE_MISSING']);
    expect(cold.integrated).toEqual(['lin-b']);

    // The warm one reads the tiles' true bytes from memory (each re-hashed against its address): no evidence.
    const warmRun = await run(warm, state, [a, b, c]);
    expect(warmRun.evidence).toEqual([]);
    expect([...warmRun.integrated].sort()).toEqual(['lin-a', 'lin-b']);
    expect(warmRun.unchanged).toEqual(['lin-c']);
    // Its root no longer names the tile it replaced: every reader proves lin-a from the table alone.
    const proven = await proveIndexKey(table, warmRun.indexRoot, { kind: 'lineage', lineageId: 'lin-a' });
    expect(proven.kind === 'presence' && proven.entry.value).toEqual(a.head(2));
    // The tile nothing replaced is still named and still missing: readers without the cache are refused.
    const apart = await readHeldLineagesApart(table, warmRun.indexRoot, ['lin-c']);
    expect(apart.missing.map((e) => e.kind)).toEqual(['INDEX_NODE_MISSING']);

    // With the tiles restored (the index rebuild), a cold integrator commits the very same root.
    await table.putTiles(deleted.map((root, i) => ({ root, tile: kept[i] as Uint8Array })));
    const restored = await run(table, state, [a, b, c]);
    expect(restored.evidence).toEqual([]);
    expect(hexOf(restored.indexRoot)).toBe(hexOf(warmRun.indexRoot));
  });
});
