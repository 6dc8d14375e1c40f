/**
 * Benchmark: differential seal triage against its floor (see bench/floors.ts).
 *
 * - Triage at 10,000 keys, 1,000 claims, 1% of the keys drifted: {@link isolateDelta} end to end
 *   (validate manifest and environment, re-check the manifest's own seal, hash every current
 *   key, composite seal, diff, partition), per key, against one SHA-256 per (key, value) plus a
 *   map lookup, and against the earlier monolithic library check.
 * - Flatness: the same per-key figure at 10^2 … 10^5 keys (claims = keys ÷ 10, 1% drift); the
 *   cost should be linear in the keys, so the per-key figure should stay flat.
 *
 * Run: `npx tsx bench/triage.ts` (set `RESEAL_BENCH_QUICK=1` to stop the series at 10^4 keys).
 */
import { hash } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { buildManifest } from '../shared/triage/build-manifest';
import { isolateDelta } from '../shared/triage/isolate-delta';
import type { SealedDependencyManifest } from '../shared/triage/sealed-dependency-manifest';
import { libraryCanonical, monolithicLibraryCheck, triageFloor } from './floors';
import { interleavedSamples, median, pairedRatio } from './harness';
import { type Figure, figureRow } from './report';

const STRUCTURAL_KEYS = 3;
const CAUSAL_KEYS_PER_CLAIM = 3;
const DRIFT = 0.01;
const SERIES = [100, 1_000, 10_000, 100_000] as const;

/** Deterministic pseudo-random generator (LCG), so every run benchmarks the same inputs. */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1_664_525) + 1_013_904_223) >>> 0;
    return s / 2 ** 32;
  };
}

const keyName = (i: number) => `KEY_${String(i).padStart(6, '0')}`;

function makeEnv(keys: number): Record<string, string> {
  const env: Record<string, string> = {};
  for (let i = 0; i < keys; i++) env[keyName(i)] = `value-${i}-${(i * 2_654_435_761) >>> 0}`;
  return env;
}

function makeManifest(env: Record<string, string>, keys: number, claims: number): SealedDependencyManifest {
  const random = lcg(keys * 31 + claims);
  const claimDependencyMap: Record<string, string[]> = {};
  for (let c = 0; c < claims; c++) {
    const causal = new Set<string>();
    while (causal.size < Math.min(CAUSAL_KEYS_PER_CLAIM, keys - STRUCTURAL_KEYS)) {
      causal.add(keyName(STRUCTURAL_KEYS + Math.floor(random() * (keys - STRUCTURAL_KEYS))));
    }
    claimDependencyMap[`claim-${c}`] = [...causal];
  }
  const structuralKeys = Array.from({ length: STRUCTURAL_KEYS }, (_, i) => keyName(i));
  return buildManifest({ env, structuralKeys, claimDependencyMap });
}

/** Changes the value of `drift × K` non-structural keys, spread evenly over the key space. */
function drifted(env: Record<string, string>, keys: number, drift: number): Record<string, string> {
  const count = Math.round(drift * keys);
  const current = { ...env };
  const stride = (keys - STRUCTURAL_KEYS) / count;
  for (let j = 0; j < count; j++) {
    const key = keyName(STRUCTURAL_KEYS + Math.floor(j * stride));
    current[key] = `${current[key]}-drifted`;
  }
  return current;
}

/** Triage of `keys` keys and `claims` claims at 1% drift, per key, against its floor and the library baseline. */
async function triageFigure(keys: number, claims: number): Promise<Figure & { verdict: string }> {
  const env = makeEnv(keys);
  const manifest = makeManifest(env, keys, claims);
  const current = drifted(env, keys, DRIFT);
  const baseline = new Map(Object.entries(env).map(([k, v]) => [k, hash('sha256', `${k}\0${v}`, 'hex')]));
  const monolithicSeal = hash('sha256', `reseal/v1/precondition-seal\0${libraryCanonical(env)}`, 'hex');
  const { verdict } = isolateDelta(manifest, current);
  const samples = await interleavedSamples(
    {
      measured: () => isolateDelta(manifest, current),
      floor: () => triageFloor(current, baseline),
      library: () => monolithicLibraryCheck(current, monolithicSeal),
    },
    keys >= 100_000 ? { minRounds: 3, budgetMs: 1_000 } : {},
  );
  const name = `triage per key, ${keys.toLocaleString('en-US')} keys × ${claims.toLocaleString('en-US')} claims, 1% drift`;
  return { name, unit: 'µs', scale: 1e3 / keys, target: 2, verdict, samples };
}

/**
 * Runs the flatness series; its 10,000-key point (1,000 claims) is the main triage figure.
 * @returns that figure's table row, and a markdown table plus a summary line for the series
 */
export async function runTriageBench(): Promise<{ row: string; series: string }> {
  const quick = process.env.RESEAL_BENCH_QUICK === '1';
  let row = '';
  const lines = [
    '| keys | claims | verdict | triage µs/key | floor µs/key | ÷ floor |',
    '|---:|---:|---|---:|---:|---:|',
  ];
  const perKey: number[] = [];
  const floorPerKey: number[] = [];
  const ratios: number[] = [];
  for (const keys of SERIES) {
    if (quick && keys > 10_000) continue;
    const figure = await triageFigure(keys, keys / 10);
    if (keys === 10_000) row = figureRow(figure);
    const us = (ms: number) => (ms * 1e3) / keys;
    const { measured, floor } = figure.samples;
    perKey.push(us(median(measured)));
    floorPerKey.push(us(median(floor)));
    ratios.push(pairedRatio(measured, floor));
    lines.push(
      `| ${keys} | ${keys / 10} | ${figure.verdict} | ${us(median(measured)).toFixed(2)} | ${us(median(floor)).toFixed(2)} | ${pairedRatio(measured, floor).toFixed(2)}× |`,
    );
  }
  const spread = (xs: readonly number[]) => Math.max(...xs) / Math.min(...xs);
  const flatness = spread(perKey);
  lines.push(
    '',
    `Flatness (largest ÷ smallest triage µs/key over the series): ${flatness.toFixed(2)}× (target ≤ 1.5× ${flatness <= 1.5 ? '✓' : '✗'}).`,
    '',
    // Not the target's measure, beside it: the floor is not flat either, so this says how much of
    // the spread above is triage's own.
    `Additional line, not the target's measure: the floor's own spread (largest ÷ smallest floor µs/key) is ${spread(floorPerKey).toFixed(2)}×; the ratio to the floor over the series is ${ratios.map((r) => `${r.toFixed(2)}×`).join(', ')} (largest ÷ smallest ${spread(ratios).toFixed(2)}×).`,
  );
  return { row, series: lines.join('\n') };
}

const invokedDirectly = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (invokedDirectly) {
  const { FIGURE_HEADER } = await import('./report');
  const { row, series } = await runTriageBench();
  console.log([...FIGURE_HEADER, row, '', series].join('\n'));
}
