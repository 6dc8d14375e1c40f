import { describe, expect, it } from 'vitest';
import { IndexNodeMissingError, InvalidInputError } from '../../../../shared/errors';
import { applyIndexUpdates } from '../../../../shared/index/apply-index-updates';
import { CachedIndexNodeStore } from '../../../../shared/index/cached-index-node-store';
import { hashKey } from '../../../../shared/index/hash-key';
import { entryKey, type IndexEntry } from '../../../../shared/index/index-entry';
import { emptyIndexHash } from '../../../../shared/index/index-hash';
import { IndexNodeReader } from '../../../../shared/index/index-node-reader';
import { encodeIndexProof } from '../../../../shared/index/index-proof';
import { decodeIndexTile, encodeIndexNodeTile, encodeIndexTile } from '../../../../shared/index/index-tile';
import { MemoryIndexNodeStore } from '../../../../shared/index/memory-index-node-store';
import { proveIndexKey } from '../../../../shared/index/prove-index-key';
import { hashIndexNode } from '../../../../shared/index/read-index-node';
import type { IndexNode } from '../../../../shared/ports/index-node-store';
import { builtIndex } from '../../../helpers/built-index';
import {
  digestOf,
  hexOf,
  lineageEntry,
  lineageValue,
  residualEntry,
  residualValue,
  updatesFor,
  updateTo,
} from '../../../helpers/index-factories';
import { itemLayoutVectors } from '../../../helpers/item-layout-vectors';
import vectors from '../../../vectors/index.json';

/** `count` entries: lineages and their residual ids. */
function entries(count: number): IndexEntry[] {
  return Array.from({ length: count }, (_, i) =>
    i % 5 === 0
      ? lineageEntry(`lineage-${i}`, lineageValue(1 + (i % 7), `l${i}`))
      : residualEntry(`lineage-${i - (i % 5)}`, `r-${i}`, residualValue(i, `r${i}`)),
  );
}

const built = (levels: number, map: readonly IndexEntry[]) => builtIndex(map, levels);

describe('index tiles (docs/verifiable-index.md, "Tiles")', () => {
  it('only storage changes: the vectors root and every proof are the same for tiles of 1, 2, 4 and 8 levels', async () => {
    const map = vectors.entries.map((v) => v.entry as IndexEntry);
    for (const levels of [1, 2, 4, 8]) {
      const { store, root } = await built(levels, map);
      expect(hexOf(root)).toBe(vectors.rootHex);
      for (const proof of vectors.proofs) {
        const proven = await proveIndexKey(store, root, proof.key as Parameters<typeof proveIndexKey>[2]);
        expect(hexOf(encodeIndexProof(proven.proof))).toBe(proof.proofHex);
      }
    }
  });

  it('a path reads about a quarter of the items with tiles of 4 levels, and an update writes about a quarter', async () => {
    const map = entries(2_000);
    const one = await built(1, map);
    const four = await built(4, map);
    expect(hexOf(four.root)).toBe(hexOf(one.root));
    const key = entryKey(map[1_234] as IndexEntry);
    const readsOf = async (s: typeof one) => {
      const before = s.store.reads;
      await proveIndexKey(s.store, s.root, key);
      return s.store.reads - before;
    };
    const [nodes, tiles] = [await readsOf(one), await readsOf(four)];
    expect(nodes).toBeGreaterThanOrEqual(10);
    expect(tiles).toBeLessThanOrEqual(Math.ceil(nodes / 4) + 1);
    const update = updateTo(residualEntry('lineage-0', 'r-new', residualValue(9, 'new')));
    const [a, b] = [
      await applyIndexUpdates(one.store, one.root, [update]),
      await applyIndexUpdates(four.store, four.root, [update]),
    ];
    expect(hexOf(b.root)).toBe(hexOf(a.root));
    expect(b.nodesWritten).toBe(a.nodesWritten);
    expect(a.tilesWritten).toBe(a.nodesWritten);
    expect(b.tilesWritten).toBeLessThanOrEqual(Math.ceil(a.nodesWritten / 4) + 1);
  });

  it('an index of one-node items updated with tiles of 4 levels stays whole: every key proves what it held', async () => {
    const map = entries(300);
    const store = new MemoryIndexNodeStore({ tileLevels: 1 });
    let { root } = await applyIndexUpdates(store, emptyIndexHash(), updatesFor(map.slice(0, 200)));
    store.tileLevels = 4;
    ({ root } = await applyIndexUpdates(store, root, updatesFor(map.slice(200))));
    const reference = await built(1, map);
    expect(hexOf(root)).toBe(hexOf(reference.root));
    for (const entry of map) {
      expect(await proveIndexKey(store, root, entryKey(entry))).toMatchObject({ kind: 'presence', entry });
    }
  });

  it('a tile of 4 levels spells out the nodes above its cut and names the rest by hash', async () => {
    const { store, root } = await built(4, entries(200));
    const [tile] = await store.getTiles([root]);
    const decoded = decodeIndexTile(tile as Uint8Array);
    expect(hexOf(decoded.root)).toBe(hexOf(root));
    // The root tile of 200 keys is full: 1 + 2 + 4 + 8 interior nodes, 16 references.
    expect(decoded.nodes.size).toBe(15);
    expect((tile as Uint8Array).byteLength).toBe(1 + 15 + 16 * 33);
    const reread = encodeIndexTile(root, (h) => decoded.nodes.get(hashKey(h)) as IndexNode | undefined, 4);
    expect(hexOf(reread)).toBe(hexOf(tile as Uint8Array));
  });

  it('a hidden tile is a missing node; an edited tile, or one cut short with a reference to an inner node, is refused as edited', async () => {
    const map = entries(200);
    const { store, root } = await built(4, map);
    const key = entryKey(map[7] as IndexEntry);
    const [tile] = await store.getTiles([root]);
    const decoded = decodeIndexTile(tile as Uint8Array);
    const inner = [...decoded.nodes.entries()].find(([k]) => k !== hashKey(root)) as [string, IndexNode];
    const innerHash = Uint8Array.from(Buffer.from(inner[0], 'latin1'));

    // Cut short: the same root, an inner node named by hash. It hashes right, so it is read,
    // and the walk then finds no tile under the inner node: missing, never another answer.
    const cut = encodeIndexTile(
      root,
      (h) => (hashKey(h) === hashKey(root) ? decoded.nodes.get(hashKey(h)) : undefined),
      1,
    );
    store.tamper(root, cut);
    const inside = hashIndexNode(decoded.nodes.get(hashKey(root)) as IndexNode);
    expect(hexOf(inside.hash)).toBe(hexOf(root));
    const walk = await Promise.allSettled(map.map((e) => proveIndexKey(store, root, entryKey(e))));
    const missing = walk.filter((w) => w.status === 'rejected');
    expect(missing.length).toBeGreaterThan(0);
    for (const m of missing) expect((m as PromiseRejectedResult).reason).toBeInstanceOf(IndexNodeMissingError);
    await expect(new IndexNodeReader(store).read(innerHash)).rejects.toMatchObject({ corrupt: false });

    const edited = Uint8Array.from(tile as Uint8Array);
    edited[edited.byteLength - 1] = (edited[edited.byteLength - 1] as number) ^ 1;
    store.tamper(root, edited);
    await expect(proveIndexKey(store, root, key)).rejects.toMatchObject({
      name: 'IndexNodeMissingError',
      corrupt: true,
    });
    store.tamper(root, new Uint8Array([1, 3]));
    await expect(proveIndexKey(store, root, key)).rejects.toMatchObject({ corrupt: true });
    store.tamper(root, undefined);
    await expect(proveIndexKey(store, root, key)).rejects.toMatchObject({ corrupt: false });
  });

  it('decoding refuses every tile of the item-layout vectors that a reader must refuse, and reads the rest to their roots', async () => {
    const layout = (await itemLayoutVectors()).deploymentLog;
    for (const { tileHex, rootHex } of layout.tiles) {
      expect(hexOf(decodeIndexTile(Buffer.from(tileHex, 'hex')).root)).toBe(rootHex);
    }
    for (const { name, tileHex } of layout.refusedTiles) {
      expect(() => decodeIndexTile(Buffer.from(tileHex, 'hex')), name).toThrow(InvalidInputError);
    }
  });

  it('a leaf entry behind a UTF-8 byte-order mark is refused (one encoding per content, as the Python reader refuses it)', () => {
    const tile = encodeIndexNodeTile({ kind: 'leaf', entry: entries(1)[0] as IndexEntry });
    expect(() => decodeIndexTile(tile)).not.toThrow();
    const length = (tile[2] as number) * 256 + (tile[3] as number) + 3;
    const withBom = Uint8Array.from([
      tile[0] as number,
      tile[1] as number,
      length >> 8,
      length & 0xff,
      0xef,
      0xbb,
      0xbf,
      ...tile.subarray(4),
    ]);
    expect(() => decodeIndexTile(withBom)).toThrow(InvalidInputError);
  });

  it('encoding refuses an empty root or one whose content it does not hold', () => {
    expect(() => encodeIndexTile(emptyIndexHash(), () => undefined, 4)).toThrow(InvalidInputError);
    expect(() => encodeIndexTile(Buffer.from(digestOf('x'), 'hex'), () => undefined, 4)).toThrow(InvalidInputError);
  });
});

describe('the warm tile cache (docs/verifiable-index.md, "Tiles")', () => {
  it('answers a tile read before from memory, keeps what it writes, keeps no miss, and stays within its bound', async () => {
    const { store, root } = await built(4, entries(200));
    // Room for one path's tiles: each key of this map sits below its lineage's first 16 path bits,
    // so a path crosses 5 tiles of 4 levels.
    const cache = new CachedIndexNodeStore(store, 6);
    const key = entryKey(entries(200)[42] as IndexEntry);
    const first = await proveIndexKey(cache, root, key);
    const reads = store.reads;
    const again = await proveIndexKey(cache, root, key);
    expect(again).toEqual(first);
    expect(store.reads).toBe(reads);
    expect(cache.hits).toBeGreaterThan(0);
    expect(cache.size).toBeLessThanOrEqual(6);

    const absent = Buffer.from(digestOf('absent'), 'hex');
    expect(await cache.getTiles([absent])).toEqual([undefined]);
    await store.putTiles([{ root: absent, tile: new Uint8Array([1]) }]);
    expect(await cache.getTiles([absent])).toEqual([new Uint8Array([1])]);

    const written = await applyIndexUpdates(cache, root, [
      updateTo(residualEntry('lineage-0', 'r-cached', residualValue(1, 'c'))),
    ]);
    const before = store.reads;
    await cache.getTiles([written.root]);
    expect(store.reads).toBe(before);
  });

  it('a tile that does not decode to its address is not kept: the next read asks the store again (a repair is seen at once)', async () => {
    const { store, root } = await built(4, entries(50));
    const [good] = await store.getTiles([root]);
    const edited = Uint8Array.from(good as Uint8Array);
    edited[edited.byteLength - 1] = (edited[edited.byteLength - 1] as number) ^ 1;
    store.tamper(root, edited);
    const cache = new CachedIndexNodeStore(store);
    await cache.getTiles([root]);
    const reads = store.reads;
    store.tamper(root, good as Uint8Array);
    const [repaired] = await cache.getTiles([root]);
    expect(store.reads).toBeGreaterThan(reads);
    expect(hexOf(decodeIndexTile(repaired as Uint8Array).root)).toBe(hexOf(root));
  });

  it('a caller that edits the bytes it got does not change the cached tile', async () => {
    const { store, root } = await built(4, entries(50));
    const cache = new CachedIndexNodeStore(store);
    const tile = (await cache.getTiles([root]))[0] as Uint8Array;
    tile[tile.byteLength - 1] = (tile[tile.byteLength - 1] as number) ^ 1;
    const [held] = await cache.getTiles([root]);
    expect(hexOf(decodeIndexTile(held as Uint8Array).root)).toBe(hexOf(root));
  });
});
