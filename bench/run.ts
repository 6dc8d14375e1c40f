/**
 * `npm run bench`: every Reseal benchmark in one run, printed as markdown with the machine and
 * date, ready to paste into bench/RESULTS.md. Figures are medians of repeated timings on this
 * machine; ratios compare against baselines timed in the same process (a monolithic
 * whole-environment hash for triage, raw node:crypto SHA-256 for sealing). Nothing is asserted:
 * speed targets live here, not in tests (machines are shared and noisy).
 *
 * Set RESEAL_BENCH_QUICK=1 to stop the triage grid at 10^4 keys.
 */
import { arch, cpus, platform, totalmem } from 'node:os';
import { runSealBench } from './seal';
import { runTriageBench } from './triage';

const cpu = cpus()[0]?.model ?? 'unknown CPU';
console.log(`# Reseal benchmarks\n`);
console.log(
  `- date: ${new Date().toISOString()}\n- machine: ${platform()} ${arch()}, ${cpus().length} × ${cpu}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB\n- node: ${process.version}\n`,
);
console.log('## Differential seal triage (seed 000) vs a monolithic whole-environment hash\n');
console.log(await runTriageBench());
console.log('\n## Sealing (seed 003) vs raw SHA-256\n');
console.log(await runSealBench());
