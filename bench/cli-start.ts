/**
 * `npm run bench:cli`: how fast the `reseal` CLI starts in a clone (docs/cli.md, "Start-up"),
 * as a ratio to `node -e 0` timed in the same run. Target: ≤ 5× for `--version`,
 * `recall --help` and an offline `verify --receipt` (a real receipt, checked with the log key).
 *
 * Each round runs every case once, in turn (interleaved, so load on a shared machine hits them
 * alike); the figures are wall-clock medians over the rounds (`RESEAL_BENCH_ROUNDS`, default 15).
 * The first call (outside the rounds) compiles the CLI when its build is stale. Nothing is
 * asserted but each case's exit code: speed targets live here, not in tests.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { arch, cpus, loadavg, platform, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LogReader } from '../client/log-reader';
import { formatVerifierKey } from '../shared/log/note-key';
import { InMemoryLineageStore } from '../test/helpers/in-memory-lineage-store';
import { appendSealed, TEST_LOG_KEY } from '../test/helpers/pipeline-keys';
import { buildChain, TEST_LINEAGE_ID } from '../test/helpers/seal-factories';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin', 'reseal.mjs');
const ROUNDS = Number(process.env.RESEAL_BENCH_ROUNDS ?? 15);
const TARGET = 5;

/** A sealed 3-record lineage's receipt for seq 1, and the log key that checks it. */
async function receiptFixture(dir: string): Promise<{ path: string; logKey: string }> {
  const { records } = await buildChain(3);
  const store = new InMemoryLineageStore();
  await appendSealed(store, records);
  const receipt = await new LogReader(store, async () => TEST_LOG_KEY, null).receipt(TEST_LINEAGE_ID, 1);
  const path = join(dir, 'receipt.json');
  writeFileSync(path, JSON.stringify(receipt));
  return { path, logKey: formatVerifierKey(TEST_LOG_KEY) };
}

function timeOnce(args: readonly string[]): { ms: number; status: number | null; stdout: string; stderr: string } {
  const started = performance.now();
  const run = spawnSync(process.execPath, args, {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
  return { ms: performance.now() - started, status: run.status, stdout: run.stdout, stderr: run.stderr };
}

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

const dir = mkdtempSync(join(tmpdir(), 'reseal-cli-start-'));
try {
  const receipt = await receiptFixture(dir);
  const cases: { name: string; args: string[]; expect: number }[] = [
    { name: '`node -e 0`', args: ['-e', '0'], expect: 0 },
    { name: '`reseal --version`', args: [BIN, '--version'], expect: 0 },
    { name: '`reseal recall --help`', args: [BIN, 'recall', '--help'], expect: 0 },
    {
      name: '`reseal verify --receipt` (offline)',
      args: [BIN, 'verify', '--receipt', receipt.path, '--log-key', receipt.logKey],
      expect: 0,
    },
  ];
  // Outside the rounds: compile the CLI if it is stale, and check every case does what it should.
  for (const c of cases) {
    const first = timeOnce(c.args);
    if (first.status !== c.expect) {
      throw new Error(`${c.name} exited ${first.status} (expected ${c.expect}): ${first.stderr || first.stdout}`);
    }
    if (first.stderr.includes('compiled the CLI again')) console.error(`(${first.stderr.trim()})`);
  }
  const times = cases.map(() => [] as number[]);
  for (let round = 0; round < ROUNDS; round++) {
    cases.forEach((c, i) => {
      times[i]?.push(timeOnce(c.args).ms);
    });
  }
  const floor = median(times[0] ?? []);
  console.log(`# reseal CLI start-up\n`);
  console.log(
    `- date: ${new Date().toISOString()}\n- machine: ${platform()} ${arch()}, ${cpus().length} × ${cpus()[0]?.model ?? '?'}, load average ${loadavg()[0]?.toFixed(1)}\n- node: ${process.version}; ${ROUNDS} interleaved rounds, wall-clock medians\n`,
  );
  console.log('| command | median (ms) | × `node -e 0` | target |');
  console.log('| --- | ---: | ---: | ---: |');
  cases.forEach((c, i) => {
    const ms = median(times[i] ?? []);
    const ratio = ms / floor;
    const target = i === 0 ? '' : `≤ ${TARGET}× ${ratio <= TARGET ? '(met)' : '(NOT met)'}`;
    console.log(`| ${c.name} | ${ms.toFixed(0)} | ${ratio.toFixed(2)} | ${target} |`);
  });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
