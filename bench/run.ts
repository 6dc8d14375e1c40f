/**
 * `npm run bench`: every Reseal benchmark in one run, printed as markdown with the machine and
 * date, ready to paste into bench/RESULTS.md.
 *
 * Each figure is printed beside its floor (the least work the operation could do, bench/floors.ts)
 * and a library baseline (the same work through the `canonicalize` package), all three timed as
 * CPU time, interleaved in the same rounds, and reported as medians (bench/harness.ts), with the
 * ratio to each and the target for the ratio to the floor. Nothing is asserted: machines are
 * shared and noisy, so speed targets live here, not in tests.
 *
 * Set RESEAL_BENCH_QUICK=1 to stop the triage series at 10^4 keys and build the index of 10^5 keys
 * instead of 10^6.
 */
import { arch, cpus, platform, totalmem } from 'node:os';
import { runIndexBench } from './index';
import { runLogBench } from './log';
import { FIGURE_HEADER } from './report';
import { runSealBench } from './seal';
import { runTriageBench } from './triage';
import { runVerifyBench } from './verify';

const started = performance.now();
const cpu = cpus()[0]?.model ?? 'unknown CPU';
console.log('# Reseal benchmarks\n');
console.log(
  `- date: ${new Date().toISOString()}\n- machine: ${platform()} ${arch()}, ${cpus().length} × ${cpu}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB\n- node: ${process.version}\n`,
);
const seal = await runSealBench();
const triage = await runTriageBench();
const verify = await runVerifyBench();
console.log([...FIGURE_HEADER, ...seal.rows, triage.row, verify].join('\n'));
console.log(`\n${seal.notes.join('\n')}`);
console.log('\n## Triage flatness, 1% drift, claims = keys ÷ 10\n');
console.log(triage.series);
console.log('\n## Verifiable log: cost per recall by lineage length, proofs per second\n');
console.log(await runLogBench());
console.log(
  '\n## Verifiable index at 10^6 keys: proof sizes, tiles per proof, tiles and write units per changed key, update time\n',
);
console.log(await runIndexBench());
console.log(`\n(${((performance.now() - started) / 1000).toFixed(0)} s)`);
