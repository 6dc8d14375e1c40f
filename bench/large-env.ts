/**
 * Benchmark: `reseal manifest` and `reseal triage` on a large flat environment, as a runner
 * image's software report makes one (`software:<name>` → version string; 1.5 million keys are
 * about 84 MB of JSON), at 10^5, 10^6 and 1.5 × 10^6 keys: wall time, CPU time and peak resident
 * memory of each CLI run, beside a floor measured in the same run on the same file (a bare `node`
 * that reads the file, `JSON.parse`s it and takes one SHA-256 of its text), and the ratios.
 * The limits the CLI applies (docs/cli.md, "Input limits") are printed with the figures.
 *
 * Each run is a child process timed by GNU time (`/usr/bin/time`, Debian's `time` package) for
 * its peak RSS. The environment files are generated into a temporary folder and removed after.
 * Nothing is asserted: the machine is shared and noisy (wall time varies 2× from run to run).
 *
 * Run: `npx tsx bench/large-env.ts` (set `RESEAL_BENCH_QUICK=1` to stop at 10^5 keys).
 */
import { spawnSync } from 'node:child_process';
import { createWriteStream, existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MAX_ENV_SNAPSHOT_BYTES, MAX_ENV_SNAPSHOT_KEYS } from '../shared/schemas/env-snapshot-limits';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'bin', 'reseal.mjs');
const GNU_TIME = '/usr/bin/time';
const SERIES = process.env.RESEAL_BENCH_QUICK ? [100_000] : [100_000, 1_000_000, 1_500_000];
const FLOOR_SCRIPT =
  "const t = require('fs').readFileSync(process.argv[1], 'utf8'); JSON.parse(t); require('crypto').createHash('sha256').update(t).digest('hex');";

/** One child run as GNU time saw it. */
interface RunFigures {
  readonly wallS: number;
  readonly cpuS: number;
  readonly peakMb: number;
}

/** Writes a runner-image-like environment of `keys` keys: `"software:<name>": "<version>"`, one per line. */
async function writeEnv(path: string, keys: number): Promise<void> {
  const out = createWriteStream(path);
  let text = '{';
  for (let i = 0; i < keys; i++) {
    text += `${i === 0 ? '' : ','}\n"software:pkg-${i.toString(36)}-lib${i % 97}":"${1 + (i % 9)}.${i % 31}.${i % 17}-ubuntu0.22.04.${i % 5}+dfsg"`;
    if (text.length > 1 << 20) {
      if (!out.write(text)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
      text = '';
    }
  }
  out.write(`${text}\n}\n`);
  await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
}

/** Runs `node args…` under GNU time with stdout to `stdoutPath`; throws when it fails. */
async function timed(args: readonly string[], stdoutPath: string, figuresPath: string): Promise<RunFigures> {
  const run = spawnSync(GNU_TIME, ['-f', '%e %U %S %M', '-o', figuresPath, process.execPath, ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 1024 * 1024 * 1024,
  });
  if (run.status !== 0 && run.status !== 10) {
    throw new Error(`node ${args.join(' ')} exited ${run.status}: ${run.stderr.toString().slice(0, 500)}`);
  }
  await writeFile(stdoutPath, run.stdout);
  const [wall, user, system, peakKb] =
    (await readFile(figuresPath, 'utf8')).trim().split('\n').at(-1)?.split(' ') ?? [];
  return { wallS: Number(wall), cpuS: Number(user) + Number(system), peakMb: Number(peakKb) / 1024 };
}

const cell = (figures: RunFigures, floor: RunFigures) =>
  `${figures.wallS.toFixed(1)} s | ${figures.cpuS.toFixed(1)} s (${(figures.cpuS / floor.cpuS).toFixed(1)}×) | ${figures.peakMb.toFixed(0)} MB (${(figures.peakMb / floor.peakMb).toFixed(1)}×)`;

/** Runs the series and returns the markdown table. */
export async function runLargeEnvBench(): Promise<string> {
  if (!existsSync(GNU_TIME)) throw new Error(`${GNU_TIME} not found: install Debian's time package`);
  const dir = await mkdtemp(join(tmpdir(), 'reseal-bench-large-env-'));
  try {
    spawnSync(process.execPath, [CLI, '--version'], { cwd: ROOT }); // compiles the CLI when stale
    const claims = join(dir, 'claims.json');
    await writeFile(claims, JSON.stringify({ 'claim-1': ['software:pkg-0-lib0'] }));
    const rows = [
      '|     keys | file MB | what     | wall | CPU (÷ floor) | peak RSS (÷ floor) |',
      '| -------: | ------: | -------- | ---: | ------------: | -----------------: |',
    ];
    for (const keys of SERIES) {
      const env = join(dir, `env-${keys}.json`);
      const manifest = join(dir, `manifest-${keys}.json`);
      const figures = join(dir, 'time.txt');
      await writeEnv(env, keys);
      const bytes = (await stat(env)).size;
      const floor = await timed(['-e', FLOOR_SCRIPT, env], join(dir, 'floor.out'), figures);
      const built = await timed([CLI, 'manifest', '--env', env, '--claims', claims], manifest, figures);
      const triaged = await timed(
        [CLI, 'triage', '--manifest', manifest, '--env', env, '--json'],
        join(dir, 't.out'),
        figures,
      );
      const mb = (bytes / 1e6).toFixed(1);
      const floorCell = `${floor.wallS.toFixed(1)} s | ${floor.cpuS.toFixed(1)} s | ${floor.peakMb.toFixed(0)} MB`;
      rows.push(`| ${keys.toLocaleString('en-US')} | ${mb} | floor | ${floorCell} |`);
      rows.push(`| ${keys.toLocaleString('en-US')} | ${mb} | manifest | ${cell(built, floor)} |`);
      rows.push(`| ${keys.toLocaleString('en-US')} | ${mb} | triage | ${cell(triaged, floor)} |`);
      await rm(env);
      await rm(manifest);
    }
    const limits = `Limits: ${MAX_ENV_SNAPSHOT_KEYS.toLocaleString('en-US')} keys (MAX_ENV_SNAPSHOT_KEYS), ${MAX_ENV_SNAPSHOT_BYTES.toLocaleString('en-US')} bytes (MAX_ENV_SNAPSHOT_BYTES).`;
    return `${rows.join('\n')}\n\n${limits}`;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(`- date: ${new Date().toISOString()}\n- node: ${process.version}\n`);
  console.log(await runLargeEnvBench());
}
