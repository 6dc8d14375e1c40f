/**
 * Benchmark: differential seal triage (seed 000) against a monolithic environment hash.
 *
 * For each grid cell (keys K × claims C × drift fraction) it times {@link isolateDelta} on a
 * manifest built once, next to a monolithic baseline that re-hashes the whole environment as one
 * canonical object (the seed's "single monolithic SHA-256 of the entire environment"). Both are
 * O(K); the table shows the constant factor that key-level attribution costs. Medians after a
 * warm-up; timings are never asserted anywhere.
 *
 * Run: `npx tsx bench/triage.ts` (set `RESEAL_BENCH_QUICK=1` to stop at 10^4 keys).
 */
import { pathToFileURL } from 'node:url';
import { canonicalBytes } from '../shared/canonical/canonical-json';
import { HashDomain, hashBytes } from '../shared/canonical/digest';
import { isolateDelta } from '../shared/triage/delta-isolator';
import { buildManifest, type SealedDependencyManifest } from '../shared/triage/manifest';

const KEY_COUNTS = [100, 1_000, 10_000, 100_000] as const;
const CLAIM_COUNTS = [10, 100, 1_000, 10_000] as const;
const DRIFTS = [0, 0.01, 0.5] as const;
const STRUCTURAL_KEYS = 3;
const CAUSAL_KEYS_PER_CLAIM = 3;
/**
 * Claim counts run per key count. One triage at 10^5 keys takes seconds, so only the heaviest
 * claim count runs there; 10^2 claims is left out at 10^4 keys for the same budget reason.
 */
const CLAIMS_FOR_KEYS: Readonly<Record<number, readonly number[]>> = {
  100: [10, 100],
  1000: [10, 100, 1_000],
  10000: [10, 1_000, 10_000],
  100000: [10_000],
};
/** Wall-clock budget per cell for repetitions after the warm-up. */
const CELL_BUDGET_MS = 250;
const MIN_RUNS = 3;
const MAX_RUNS = 25;

interface Row {
  keys: number;
  claims: number;
  drift: number;
  verdict: string;
  invalidated: number;
  runs: number;
  triageMs: number;
  monolithicMs: number;
}

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
  if (count === 0) return current;
  const stride = (keys - STRUCTURAL_KEYS) / count;
  for (let j = 0; j < count; j++) {
    const key = keyName(STRUCTURAL_KEYS + Math.floor(j * stride));
    current[key] = `${current[key]}-drifted`;
  }
  return current;
}

/** Monolithic precondition check: one hash over the whole environment, compared to the stored one. */
function monolithicCheck(env: Record<string, string>, sealed: string): boolean {
  return hashBytes(HashDomain.COMPOSITE_SEAL, canonicalBytes(env)) === sealed;
}

function timeMs(fn: () => unknown): number {
  const start = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** Warm-up once, then repeat within the cell budget (at least MIN_RUNS); returns the median. */
function measure(fn: () => unknown): { ms: number; runs: number } {
  const warm = timeMs(fn);
  const runs = Math.max(MIN_RUNS, Math.min(MAX_RUNS, Math.floor(CELL_BUDGET_MS / Math.max(warm, 0.001))));
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) samples.push(timeMs(fn));
  return { ms: median(samples), runs };
}

const fmtMs = (ms: number) => (ms >= 100 ? ms.toFixed(0) : ms >= 1 ? ms.toFixed(2) : ms.toFixed(3));
const fmtNs = (ms: number, keys: number) => ((ms * 1e6) / keys).toFixed(0);

/**
 * Runs the triage grid and returns a markdown table (plus notes on skipped cells).
 * Keeps to about a minute on a quiet machine; set `RESEAL_BENCH_QUICK=1` for a few seconds.
 */
export async function runTriageBench(): Promise<string> {
  const quick = process.env.RESEAL_BENCH_QUICK === '1';
  const rows: Row[] = [];
  const skipped: string[] = [];
  for (const keys of KEY_COUNTS) {
    if (quick && keys > 10_000) {
      skipped.push(`${keys} keys: skipped (RESEAL_BENCH_QUICK=1)`);
      continue;
    }
    const env = makeEnv(keys);
    const monolithicSeal = hashBytes(HashDomain.COMPOSITE_SEAL, canonicalBytes(env));
    for (const claims of CLAIM_COUNTS) {
      if (claims > keys) {
        skipped.push(`${keys} keys × ${claims} claims: skipped (more claims than keys)`);
        continue;
      }
      if (!CLAIMS_FOR_KEYS[keys]?.includes(claims)) {
        skipped.push(`${keys} keys × ${claims} claims: skipped to keep the grid near a minute`);
        continue;
      }
      const manifest = makeManifest(env, keys, claims);
      for (const drift of DRIFTS) {
        const current = drifted(env, keys, drift);
        const report = isolateDelta(manifest, current);
        const triage = measure(() => isolateDelta(manifest, current));
        const monolithic = measure(() => monolithicCheck(current, monolithicSeal));
        rows.push({
          keys,
          claims,
          drift,
          verdict: report.verdict,
          invalidated: report.invalidatedClaims.length,
          runs: triage.runs,
          triageMs: triage.ms,
          monolithicMs: monolithic.ms,
        });
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
  }
  const lines = [
    '| keys | claims | drift | verdict | invalidated | runs | triage median ms | triage ns/key | monolithic median ms | monolithic ns/key | triage ÷ monolithic |',
    '|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.keys} | ${r.claims} | ${r.drift * 100}% | ${r.verdict} | ${r.invalidated} | ${r.runs} | ${fmtMs(r.triageMs)} | ${fmtNs(r.triageMs, r.keys)} | ${fmtMs(r.monolithicMs)} | ${fmtNs(r.monolithicMs, r.keys)} | ${(r.triageMs / r.monolithicMs).toFixed(1)}× |`,
    ),
    '',
    `Triage = \`isolateDelta\` end to end (validate manifest and environment, re-check the manifest's own seal, hash every current key, composite seal, diff, partition). Monolithic = one RFC 8785 SHA-256 over the whole environment, which only says "changed or not". ${STRUCTURAL_KEYS} structural keys (never drifted), ${CAUSAL_KEYS_PER_CLAIM} causal keys per claim drawn at random; drift changes evenly spaced non-structural keys. Medians of ≥ ${MIN_RUNS} runs after one warm-up (Node ${process.version}).`,
    ...(skipped.length > 0 ? ['', 'Skipped:', ...skipped.map((s) => `- ${s}`)] : []),
  ];
  return lines.join('\n');
}

const invokedDirectly = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (invokedDirectly) {
  const started = performance.now();
  console.log(await runTriageBench());
  console.log(`\ngrid finished in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
