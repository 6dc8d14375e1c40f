import { mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_ENV_SNAPSHOT_BYTES, MAX_ENV_SNAPSHOT_KEYS } from '../../../shared/schemas/env-snapshot-limits';
import { runCli } from './run-cli';

const FIXTURES = join(import.meta.dirname, 'fixtures');
let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'reseal-large-env-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** A sparse file one byte over the byte limit: refused by its size, so its (zero) bytes are never read. */
async function sparseFileOverLimit(): Promise<string> {
  const path = join(dir, 'too-large.json');
  const handle = await open(path, 'w');
  await handle.truncate(MAX_ENV_SNAPSHOT_BYTES + 1);
  await handle.close();
  return path;
}

describe('environment snapshot limits at the CLI (docs/cli.md, "Input limits")', () => {
  it('manifest, triage and recall --env: a file over MAX_ENV_SNAPSHOT_BYTES is refused by its size, naming the limit and the size', async () => {
    const path = await sparseFileOverLimit();
    const expected =
      `${path}: environment snapshot is larger than the limit of 134,217,728 bytes ` +
      '(MAX_ENV_SNAPSHOT_BYTES, docs/cli.md "Input limits"): the file is 134,217,729 bytes';
    for (const argv of [
      ['manifest', '--env', path, '--claims', 'claims.json'],
      ['triage', '--manifest', 'manifest.json', '--env', path, '--json'],
      ['recall', '--lineage', 'l-1', '--env', path],
    ]) {
      let connected = 0;
      const result = await runCli(argv, {
        cwd: FIXTURES,
        connect: async () => {
          connected++;
          throw new Error('not reached');
        },
      });
      expect(result.exitCode).toBe(2);
      expect(result.stderr).toContain(expected);
      expect(result.stdout).toBe('');
      expect(connected).toBe(0);
    }
  }, 120_000);

  it('a stream with no size (a device) is counted while read and refused at the first piece past the limit', async () => {
    const result = await runCli(['triage', '--manifest', 'manifest.json', '--env', '/dev/zero'], { cwd: FIXTURES });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(
      '/dev/zero: environment snapshot is larger than the limit of 134,217,728 bytes ' +
        '(MAX_ENV_SNAPSHOT_BYTES, docs/cli.md "Input limits"): read 135,266,304 bytes before stopping',
    );
  }, 120_000);

  it('a file over MAX_ENV_SNAPSHOT_KEYS keys is refused by count, naming the limit and the count', async () => {
    const path = join(dir, 'too-many-keys.json');
    const members: string[] = [];
    for (let i = 0; i <= MAX_ENV_SNAPSHOT_KEYS; i++) members.push(`"k${i}":""`);
    await writeFile(path, `{${members.join(',')}}`);
    members.length = 0;
    const result = await runCli(['manifest', '--env', path, '--claims', 'claims.json'], { cwd: FIXTURES });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(
      `${path}: invalid environment snapshot\n  at <root>: environment snapshot holds 2,000,001 keys, more than ` +
        'the limit of 2,000,000 (MAX_ENV_SNAPSHOT_KEYS, docs/cli.md "Input limits")',
    );
  }, 300_000);
});

describe('progress of long reads and hashing (docs/cli.md, "Progress")', () => {
  it('on a terminal, manifest shows the read, the check and the hashing on one stderr line, ended by a newline; stdout is the same', async () => {
    const argv = ['manifest', '--env', 'baseline-env.json', '--claims', 'claims.json'];
    const quiet = await runCli(argv, { cwd: FIXTURES });
    const tty = await runCli(argv, { cwd: FIXTURES, stderrIsTty: true });
    expect(tty.exitCode).toBe(0);
    expect(tty.stdout).toBe(quiet.stdout);
    expect(quiet.stderr).toBe('');
    expect(tty.stderr).toMatch(/^\rbaseline-env\.json: read \d+\.\d MB, parsing/);
    expect(tty.stderr).toMatch(/\rbaseline-env\.json: checking \d+ keys/);
    expect(tty.stderr).toMatch(/\rmanifest: hashing \d+ keys *\n$/);
  });

  it('triage on a terminal shows progress; with --json it draws nothing, on a terminal or not', async () => {
    const argv = ['triage', '--manifest', 'manifest.json', '--env', 'env-ambient.json'];
    const tty = await runCli(argv, { cwd: FIXTURES, stderrIsTty: true });
    expect(tty.stderr).toMatch(/\rtriage: hashing \d+ keys *\n$/);
    for (const stderrIsTty of [true, false]) {
      const json = await runCli([...argv, '--json'], { cwd: FIXTURES, stderrIsTty });
      expect(json.stderr).toBe('');
      expect(JSON.parse(json.stdout)).toHaveProperty('verdict');
    }
    const pipe = await runCli(argv, { cwd: FIXTURES });
    expect(pipe.stderr).toBe('');
  });
});
