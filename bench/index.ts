/**
 * Benchmark: the verifiable index (docs/verifiable-index.md), in memory. Builds an index of 10^6
 * keys (50,000 lineages with 19 residual ids each) in one batch on `MemoryIndexNodeStore`, then
 * prints:
 *
 * - the memory the build took and the nodes it stored;
 * - proof sizes in the binary layout: the worst case over every key of the index and over every
 *   key not in it (found by one walk of the whole tree, then proven and encoded for real), and
 *   the median over every key present and over 10,000 random absent keys;
 * - tiles read per proof (one eventually consistent item read each in DynamoDB), mean and worst
 *   over sampled keys, and for a write's index floor (its lineage's path and its new residual
 *   id's path, each tile read once);
 * - per changed key, for batches of 1, 50 and 1,000 changed keys (half lineages moving forward,
 *   half new residual ids): the nodes made (the items the one-node-per-item form wrote, 1 WCU
 *   each), the tiles written and their write units as DynamoDB bills the items
 *   (docs/verifiable-index.md, "Tiles");
 * - the same per changed key and per write for the sparse write's integration (50 lineages moving,
 *   2 new residual ids each: 150 keys, 100 writes), and for 150 keys of 150 distinct lineages;
 * - update CPU time per changed key, and its ratio to a floor timed in the same rounds
 *   (bench/harness.ts): one SHA-256 of 64 bytes per level of the mean leaf depth, per key.
 *
 * Target (docs/verifiable-index.md, "Proof size"): worst-case proof ≤ 1 KiB at 10^6 keys. Nothing
 * is asserted. Run: `npx tsx bench/index.ts` (RESEAL_BENCH_QUICK=1 builds 10^5 keys instead;
 * RESEAL_BENCH_TILE_LEVELS=k stores tiles of k levels, default `INDEX_TILE_LEVELS`).
 */
import { hash } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { indexTileItem } from '../adapters/dynamodb-index-node-store';
import { applyIndexUpdates } from '../shared/index/apply-index-updates';
import { hashKey } from '../shared/index/hash-key';
import type { LineageIndexValue } from '../shared/index/index-entry';
import { emptyIndexHash, isEmptyIndexHash } from '../shared/index/index-hash';
import type { IndexKey } from '../shared/index/index-key';
import { encodeIndexProof } from '../shared/index/index-proof';
import { type CheckedIndexNode, decodeIndexTile, INDEX_TILE_LEVELS } from '../shared/index/index-tile';
import type { IndexUpdate } from '../shared/index/index-update';
import { MemoryIndexNodeStore } from '../shared/index/memory-index-node-store';
import { proveIndexKey } from '../shared/index/prove-index-key';
import { benchLineageValue } from './bench-lineage-value';
import { interleavedSamples, median, pairedRatio } from './harness';

const RESIDUALS_PER_LINEAGE = 19;
const BUILD_BATCHES = 10;
/** The sparse write's integration (docs/infrastructure.md, "Cost and quotas"): 50 lineages, 2 writes each. */
const SPARSE_LINEAGES = 50;
const SPARSE_WRITES_PER_LINEAGE = 2;
/** Batches of each shape measured (the counts are means over them). */
const SPARSE_BATCHES = 20;
const digest = (label: string) => hash('sha256', label, 'hex');
/** A full collection, so the memory figures count live objects only (garbage left by the build is not the index). */
setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`;

/** Size in bytes of a proof with `depth` siblings of which `nonEmpty` are not empty. */
const proofBytes = (depth: number, nonEmpty: number, otherLeaf: boolean) =>
  4 + Math.ceil(depth / 8) + 32 * nonEmpty + (otherLeaf ? 64 : 0);

/** What batches of updates wrote: nodes made, tile items and their WCU, the largest item's bytes, keys changed. */
interface WriteCounts {
  written: number;
  tiles: number;
  units: number;
  largest: number;
  keysChanged: number;
}

const emptyWriteCounts = (): WriteCounts => ({ written: 0, tiles: 0, units: 0, largest: 0, keysChanged: 0 });

/** A tile's size as DynamoDB bills its item: attribute names and values (bench/write-capacity.ts). */
function tileItemBytes(root: Uint8Array, tile: Uint8Array): number {
  let bytes = 0;
  for (const [name, value] of Object.entries(indexTileItem(root, tile))) {
    bytes += Buffer.byteLength(name);
    if (value.S !== undefined) bytes += Buffer.byteLength(value.S);
    else if (value.B !== undefined) bytes += value.B.byteLength;
  }
  return bytes;
}

/** One walk of the whole tree: every leaf's depth and non-empty siblings, and the worst absence paths. */
async function walk(store: MemoryIndexNodeStore, root: Uint8Array) {
  const leaves: { depth: number; nonEmpty: number; key: IndexKey; bytes: number }[] = [];
  let worstEmptyEnd = { bytes: 0, depth: 0 };
  // One tile decoded at a time (the nodes of the whole index would not fit in memory at once).
  let tileNodes = new Map<string, CheckedIndexNode>();
  const nodeOf = async (h: Uint8Array): Promise<CheckedIndexNode> => {
    const inTile = tileNodes.get(hashKey(h));
    if (inTile !== undefined) return inTile;
    const [tile] = await store.getTiles([h]);
    if (tile === undefined) throw new Error('bench index lost a tile');
    tileNodes = new Map(decodeIndexTile(tile).nodes);
    return tileNodes.get(hashKey(h)) as CheckedIndexNode;
  };
  const visit = async (h: Uint8Array, depth: number, nonEmpty: number): Promise<void> => {
    const node = await nodeOf(h);
    const own = tileNodes;
    if (node.kind === 'leaf') {
      const { entry } = node;
      const key: IndexKey =
        entry.kind === 'lineage'
          ? { kind: 'lineage', lineageId: entry.lineageId }
          : { kind: 'residual', lineageId: entry.lineageId, residualId: entry.residualId };
      leaves.push({ depth, nonEmpty, key, bytes: proofBytes(depth, nonEmpty, false) });
      return;
    }
    for (const [child, sibling] of [
      [node.left, node.right],
      [node.right, node.left],
    ] as const) {
      const n = nonEmpty + (isEmptyIndexHash(sibling) ? 0 : 1);
      if (isEmptyIndexHash(child)) {
        const bytes = proofBytes(depth + 1, n, false);
        if (bytes > worstEmptyEnd.bytes) worstEmptyEnd = { bytes, depth: depth + 1 };
      } else {
        await visit(child, depth + 1, n);
        tileNodes = own;
      }
    }
  };
  await visit(root, 0, 0);
  return { leaves, worstEmptyEnd };
}

/** Prints the index benchmark as markdown. */
export async function runIndexBench(): Promise<string> {
  const quick = process.env.RESEAL_BENCH_QUICK === '1';
  const lineages = quick ? 5_000 : 50_000;
  const lines: string[] = [];
  collect();
  const before = process.memoryUsage();
  const tileLevels = Number(process.env.RESEAL_BENCH_TILE_LEVELS ?? INDEX_TILE_LEVELS);
  const store = new MemoryIndexNodeStore({ tileLevels });
  const heads: LineageIndexValue[] = [];
  /** The updates that add lineages [from, to), each with its residual ids. */
  const lineageBatch = (from: number, to: number): IndexUpdate[] => {
    const updates: IndexUpdate[] = [];
    for (let l = from; l < to; l += 1) {
      const head = benchLineageValue(RESIDUALS_PER_LINEAGE, l);
      heads[l] = head;
      updates.push({ kind: 'lineage', lineageId: `lineage-${l}`, value: head, consistentFrom: null });
      for (let r = 0; r < RESIDUALS_PER_LINEAGE; r += 1) {
        updates.push({
          kind: 'residual',
          lineageId: `lineage-${l}`,
          residualId: `residual-${r}`,
          value: { seq: r, recordHash: digest(`record/${l}/${r}`) },
        });
      }
    }
    return updates;
  };
  // Built in BUILD_BATCHES batches, as integrations would: the transient state of one batch (its
  // updates, their leaves and the tiles awaiting putTiles) stays a tenth of the index.
  let root = emptyIndexHash();
  let keys = 0;
  const buildCpu = process.cpuUsage();
  for (let b = 0; b < BUILD_BATCHES; b += 1) {
    const batch = lineageBatch((b * lineages) / BUILD_BATCHES, ((b + 1) * lineages) / BUILD_BATCHES);
    keys += batch.length;
    ({ root } = await applyIndexUpdates(store, root, batch));
  }
  const cpu = process.cpuUsage(buildCpu);
  const buildSeconds = (cpu.user + cpu.system) / 1e6;
  collect();
  const after = process.memoryUsage();
  lines.push(
    `- keys: ${keys.toLocaleString('en')} (${lineages.toLocaleString('en')} lineages × ${RESIDUALS_PER_LINEAGE} residual ids, plus the lineages), built in ${BUILD_BATCHES} batches in ${buildSeconds.toFixed(1)} s of CPU; ${store.size.toLocaleString('en')} tiles of ${tileLevels} levels stored`,
    `- memory of the built index (live, after a full collection): heap ${mb(after.heapUsed - before.heapUsed)}, RSS ${mb(after.rss - before.rss)} more than before the build; peak RSS of the process during the build ${mb(process.resourceUsage().maxRSS * 1024)}`,
  );

  // Proof sizes.
  const { leaves, worstEmptyEnd } = await walk(store, root);
  const worstLeaf = leaves.reduce((a, b) => (b.bytes > a.bytes ? b : a));
  const worstPresence = await proveIndexKey(store, root, worstLeaf.key);
  const presenceBytes = encodeIndexProof(worstPresence.proof).byteLength;
  const absentSizes: number[] = [];
  const absentTiles: number[] = [];
  for (let i = 0; i < 10_000; i += 1) {
    const before = store.reads;
    const proven = await proveIndexKey(store, root, { kind: 'lineage', lineageId: `absent-${i}` });
    absentTiles.push(store.reads - before);
    absentSizes.push(encodeIndexProof(proven.proof).byteLength);
  }
  const presentTiles: number[] = [];
  for (let i = 0; i < leaves.length; i += Math.max(1, Math.floor(leaves.length / 10_000))) {
    const before = store.reads;
    await proveIndexKey(store, root, (leaves[i] as (typeof leaves)[number]).key);
    presentTiles.push(store.reads - before);
  }
  // A write's index floor (docs/sealing.md, "The index floor"): its lineage's path (presence) and
  // its new residual id's path (absence), read once per tile.
  const absentResidualTiles: number[] = [];
  const writeTiles: number[] = [];
  const getTiles = store.getTiles.bind(store);
  for (let i = 0; i < 10_000; i += 1) {
    const lineageId = `lineage-${(i * 7919) % lineages}`;
    const asked = new Set<string>();
    store.getTiles = async (roots) => {
      for (const r of roots) asked.add(hashKey(r));
      return getTiles(roots);
    };
    await proveIndexKey(store, root, { kind: 'lineage', lineageId });
    const beforeReads = store.reads;
    await proveIndexKey(store, root, { kind: 'residual', lineageId, residualId: `absent-${i}` });
    absentResidualTiles.push(store.reads - beforeReads);
    writeTiles.push(asked.size);
  }
  store.getTiles = getTiles;
  const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const most = (xs: readonly number[]) => xs.reduce((a, b) => Math.max(a, b), 0);
  const worstAbsence = Math.max(worstLeaf.bytes + 64, worstEmptyEnd.bytes);
  let depthSum = 0;
  let maxDepth = 0;
  for (const { depth } of leaves) {
    depthSum += depth;
    maxDepth = Math.max(maxDepth, depth);
  }
  const meanDepth = depthSum / leaves.length;
  lines.push(
    `- leaf depth: mean ${meanDepth.toFixed(1)}, max ${maxDepth}`,
    '',
    '| proof (binary layout) | worst case | median | target |',
    '|---|---:|---:|---:|',
    `| presence, over all ${keys.toLocaleString('en')} keys | ${presenceBytes} B (depth ${worstLeaf.depth}, ${worstLeaf.nonEmpty} non-empty siblings) | ${median(leaves.map((l) => l.bytes))} B | ≤ 1,024 B |`,
    `| absence, over every key not in the index | ${worstAbsence} B (the deepest leaf as shortcut) | ${median(absentSizes)} B (10,000 random keys) | ≤ 1,024 B |`,
    '',
    `| tiles read per proof (${tileLevels} levels each) | mean | worst |`,
    '|---|---:|---:|',
    `| presence, ${presentTiles.length.toLocaleString('en')} keys sampled | ${mean(presentTiles).toFixed(2)} | ${most(presentTiles)} |`,
    `| absence, 10,000 random keys | ${mean(absentTiles).toFixed(2)} | ${most(absentTiles)} |`,
    `| absence, 10,000 new residual ids of present lineages | ${mean(absentResidualTiles).toFixed(2)} | ${most(absentResidualTiles)} |`,
    `| a write's floor: its lineage (presence) and its new residual id (absence), each tile once, 10,000 writes | ${mean(writeTiles).toFixed(2)} | ${most(writeTiles)} |`,
  );

  // Batched updates: writes per changed key, time per key against the floor.
  let nextLineage = 0;
  let nextResidual = 0;
  /** Lineage `l`'s head moved on by `writes` records, consistent from the head it held. */
  const moveLineage = (l: number, writes: number): IndexUpdate => {
    const held = heads[l] as LineageIndexValue;
    const next = benchLineageValue(held.treeSize + writes, l);
    heads[l] = next;
    return {
      kind: 'lineage',
      lineageId: `lineage-${l}`,
      value: next,
      consistentFrom: { treeSize: held.treeSize, rootHash: held.rootHash },
    };
  };
  /** The next new residual id, of lineage `lineageOf(n)` where `n` numbers the new ids. */
  const newResidual = (lineageOf: (n: number) => number): IndexUpdate => {
    const n = nextResidual++;
    return {
      kind: 'residual',
      lineageId: `lineage-${lineageOf(n)}`,
      residualId: `new-${n}`,
      value: { seq: 1_000 + n, recordHash: digest(`new/${n}`) },
    };
  };
  /**
   * Adds the WCU (1 a started KiB) and the largest size in bytes of the tile items the store puts
   * to `counts`, until the returned function puts the store back; installed around a whole run so
   * the timed updates pay only the counting.
   */
  const meterTiles = (counts: WriteCounts): (() => void) => {
    const putTiles = store.putTiles.bind(store);
    store.putTiles = async (tiles) => {
      for (const { root: tileRoot, tile } of tiles) {
        const bytes = tileItemBytes(tileRoot, tile);
        counts.units += Math.ceil(bytes / 1024);
        counts.largest = Math.max(counts.largest, bytes);
      }
      return putTiles(tiles);
    };
    return () => {
      store.putTiles = putTiles;
    };
  };
  /** Applies `batch` to the bench's index and adds the nodes, tiles and keys it wrote to `counts`. */
  const applyCounted = async (batch: IndexUpdate[], counts: WriteCounts): Promise<void> => {
    const result = await applyIndexUpdates(store, root, batch);
    if (result.findings.length > 0) throw new Error(`bench update refused: ${result.findings[0]?.reason}`);
    root = result.root;
    counts.written += result.nodesWritten;
    counts.tiles += result.tilesWritten;
    counts.keysChanged += result.changedKeys;
  };
  const batchOf = (changed: number): IndexUpdate[] => {
    const batch: IndexUpdate[] = [];
    for (let i = 0; i < Math.ceil(changed / 2); i += 1) {
      batch.push(moveLineage(nextLineage++ % lineages, 1));
    }
    for (let i = 0; i < Math.floor(changed / 2); i += 1) batch.push(newResidual((l) => l % lineages));
    return batch;
  };
  const levels = Math.round(meanDepth);
  const floorMessage = new Uint8Array(64);
  lines.push(
    '',
    `| changed keys per batch | nodes made per changed key (one-node items, 1 WCU each) | tiles written per changed key | WCU per changed key | largest tile item | update CPU time per key | floor (${levels} × SHA-256 of 64 B) per key | ÷ floor |`,
    '|---:|---:|---:|---:|---:|---:|---:|---:|',
  );
  for (const changed of [1, 50, 1_000]) {
    const counts = emptyWriteCounts();
    const unmeter = meterTiles(counts);
    const samples = await interleavedSamples(
      {
        update: () => applyCounted(batchOf(changed), counts),
        floor: () => {
          for (let k = 0; k < changed; k += 1)
            for (let i = 0; i < levels; i += 1) hash('sha256', floorMessage, 'buffer');
        },
      },
      { batchMs: 20, budgetMs: 3_000, minRounds: 5, maxRounds: 30 },
    );
    const perKey = (ms: readonly number[]) => `${((median(ms) / changed) * 1000).toFixed(1)} µs`;
    unmeter();
    const { written, keysChanged, tiles, units, largest } = counts;
    lines.push(
      `| ${changed.toLocaleString('en')} | ${(written / keysChanged).toFixed(2)} | ${(tiles / keysChanged).toFixed(2)} | ${(units / keysChanged).toFixed(2)} | ${largest} B | ${perKey(samples.update)} | ${perKey(samples.floor)} | ${pairedRatio(samples.update, samples.floor).toFixed(1)} |`,
    );
  }

  // The sparse write's batch (docs/infrastructure.md, "Cost and quotas"): one integration of 50
  // lineages with 2 writes each changes 50 lineage keys and 100 new residual ids of those
  // lineages; against it, 150 keys with no two of one lineage (50 lineages moving, 100 new
  // residual ids of 100 other lineages).
  const sparseBatch = (related: boolean): IndexUpdate[] => {
    const batch: IndexUpdate[] = [];
    const moving: number[] = [];
    for (let i = 0; i < SPARSE_LINEAGES; i += 1) {
      const l = nextLineage++ % lineages;
      moving.push(l);
      batch.push(moveLineage(l, SPARSE_WRITES_PER_LINEAGE));
    }
    for (let i = 0; i < SPARSE_LINEAGES * SPARSE_WRITES_PER_LINEAGE; i += 1) {
      batch.push(newResidual(() => (related ? (moving[i % SPARSE_LINEAGES] as number) : nextLineage++ % lineages)));
    }
    return batch;
  };
  lines.push(
    '',
    `| batch of ${SPARSE_LINEAGES * (1 + SPARSE_WRITES_PER_LINEAGE)} changed keys (${SPARSE_BATCHES} batches) | tiles written per changed key | WCU per changed key | tiles written per write | WCU per write | nodes made per changed key |`,
    '|---|---:|---:|---:|---:|---:|',
  );
  for (const related of [true, false]) {
    const counts = emptyWriteCounts();
    const unmeter = meterTiles(counts);
    for (let b = 0; b < SPARSE_BATCHES; b += 1) await applyCounted(sparseBatch(related), counts);
    unmeter();
    const { tiles, units, keysChanged, written } = counts;
    const writes = (keysChanged * SPARSE_WRITES_PER_LINEAGE) / (1 + SPARSE_WRITES_PER_LINEAGE);
    lines.push(
      `| ${related ? `sparse: ${SPARSE_LINEAGES} lineages moving, ${SPARSE_WRITES_PER_LINEAGE} new residual ids of each` : `unrelated: ${SPARSE_LINEAGES} lineages moving, ${SPARSE_LINEAGES * SPARSE_WRITES_PER_LINEAGE} new residual ids of other lineages`} | ${(tiles / keysChanged).toFixed(2)} | ${(units / keysChanged).toFixed(2)} | ${(tiles / writes).toFixed(2)} | ${(units / writes).toFixed(2)} | ${(written / keysChanged).toFixed(2)} |`,
    );
  }
  return lines.join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const started = performance.now();
  console.log(await runIndexBench());
  console.log(`\n(${((performance.now() - started) / 1000).toFixed(0)} s)`);
}
