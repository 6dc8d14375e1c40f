/**
 * Benchmark: crowding a lineage's subtree of the verifiable index (docs/verifiable-index.md,
 * "Crowding another lineage's subtree"). Builds the index of bench/index.ts (50,000 lineages with
 * 19 residual ids each, 10^6 keys; RESEAL_BENCH_QUICK=1: 5,000 lineages, 10^5 keys) in memory,
 * grinds one lineage id whose first `RESIDUAL_SHARED_PATH_BITS` bits equal a victim lineage's,
 * then adds that lineage's residual ids (no grinding per id) and prints, at each count of crowding
 * keys, the victim's absence proofs for 1,000 new residual ids: depth, binary size and tiles read
 * (tiles of `INDEX_TILE_LEVELS` levels, one `getTiles` root each), mean and worst. Nothing is asserted. Run: `npx tsx bench/index-crowding.ts`.
 */
import { hash } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { applyIndexUpdates } from '../shared/index/apply-index-updates';
import { emptyIndexHash } from '../shared/index/index-hash';
import { indexKeyPath, keyPathBit, RESIDUAL_SHARED_PATH_BITS } from '../shared/index/index-key';
import { encodeIndexProof } from '../shared/index/index-proof';
import { INDEX_TILE_LEVELS } from '../shared/index/index-tile';
import type { IndexUpdate } from '../shared/index/index-update';
import { MemoryIndexNodeStore } from '../shared/index/memory-index-node-store';
import { proveIndexKey } from '../shared/index/prove-index-key';
import { benchLineageValue } from './bench-lineage-value';

const RESIDUALS_PER_LINEAGE = 19;
const BUILD_BATCHES = 10;
const VICTIM = 'lineage-0';
/** Crowding keys measured, cumulative. */
const CROWDING = [0, 1_000, 4_000, 16_000, 64_000] as const;
const SAMPLES = 1_000;
const digest = (label: string) => hash('sha256', label, 'hex');

const residual = (lineageId: string, r: number): IndexUpdate => ({
  kind: 'residual',
  lineageId,
  residualId: `residual-${r}`,
  value: { seq: r, recordHash: digest(`record/${lineageId}/${r}`) },
});

/** A lineage id sharing the victim's first P path bits, and the tries it took. */
function grind(victim: string): { lineageId: string; tries: number } {
  const target = indexKeyPath({ kind: 'lineage', lineageId: victim });
  for (let i = 0; ; i += 1) {
    const lineageId = `crowd-${i}`;
    const path = indexKeyPath({ kind: 'lineage', lineageId });
    let same = true;
    for (let b = 0; b < RESIDUAL_SHARED_PATH_BITS && same; b += 1) same = keyPathBit(path, b) === keyPathBit(target, b);
    if (same) return { lineageId, tries: i + 1 };
  }
}

export async function runIndexCrowdingBench(): Promise<string> {
  const lineages = process.env.RESEAL_BENCH_QUICK === '1' ? 5_000 : 50_000;
  const store = new MemoryIndexNodeStore({ tileLevels: INDEX_TILE_LEVELS });
  let root = emptyIndexHash();
  let keys = 0;
  for (let b = 0; b < BUILD_BATCHES; b += 1) {
    const batch: IndexUpdate[] = [];
    for (let l = (b * lineages) / BUILD_BATCHES; l < ((b + 1) * lineages) / BUILD_BATCHES; l += 1) {
      const lineageId = `lineage-${l}`;
      batch.push({
        kind: 'lineage',
        lineageId,
        value: benchLineageValue(RESIDUALS_PER_LINEAGE, lineageId),
        consistentFrom: null,
      });
      for (let r = 0; r < RESIDUALS_PER_LINEAGE; r += 1) batch.push(residual(lineageId, r));
    }
    keys += batch.length;
    ({ root } = await applyIndexUpdates(store, root, batch));
  }
  const started = performance.now();
  const { lineageId: attacker, tries } = grind(VICTIM);
  const grindMs = performance.now() - started;
  const lines = [
    `- index: ${keys.toLocaleString('en')} keys; P = ${RESIDUAL_SHARED_PATH_BITS}; victim \`${VICTIM}\``,
    `- grind: \`${attacker}\` shares the victim's first ${RESIDUAL_SHARED_PATH_BITS} bits after ${tries.toLocaleString('en')} tries (${grindMs.toFixed(0)} ms); its residual ids take no grinding`,
    '',
    `| crowding keys | depth, mean / worst | proof bytes, mean / worst | tiles read, mean / worst |`,
    '|---:|---:|---:|---:|',
  ];
  const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const most = (xs: readonly number[]) => xs.reduce((a, b) => Math.max(a, b), 0);
  let added = 0;
  for (const crowding of CROWDING) {
    const batch: IndexUpdate[] = [];
    if (added === 0 && crowding > 0) {
      batch.push({
        kind: 'lineage',
        lineageId: attacker,
        value: benchLineageValue(crowding, attacker),
        consistentFrom: null,
      });
    }
    for (; added < crowding; added += 1) batch.push(residual(attacker, added));
    if (batch.length > 0) ({ root } = await applyIndexUpdates(store, root, batch));
    const depths: number[] = [];
    const sizes: number[] = [];
    const tiles: number[] = [];
    for (let i = 0; i < SAMPLES; i += 1) {
      const before = store.reads;
      const { proof } = await proveIndexKey(store, root, {
        kind: 'residual',
        lineageId: VICTIM,
        residualId: `absent-${i}`,
      });
      tiles.push(store.reads - before);
      depths.push(proof.siblings.length);
      sizes.push(encodeIndexProof(proof).byteLength);
    }
    lines.push(
      `| ${crowding.toLocaleString('en')} | ${mean(depths).toFixed(1)} / ${most(depths)} | ${mean(sizes).toFixed(0)} / ${most(sizes)} | ${mean(tiles).toFixed(2)} / ${most(tiles)} |`,
    );
  }
  return lines.join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const started = performance.now();
  console.log(await runIndexCrowdingBench());
  console.log(`\n(${((performance.now() - started) / 1000).toFixed(0)} s)`);
}
