import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadResealConfig, ResealConfigSchema } from '../../../client/reseal-config';
import { snapshotProviders } from '../../../client/snapshot-providers';
import { InvalidInputError } from '../../../shared/errors';
import { EnvSnapshot } from '../../../shared/schemas/env-snapshot';
import { MAX_ENV_SNAPSHOT_KEYS } from '../../../shared/schemas/env-snapshot-limits';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'reseal-snapshot-'));
  await writeFile(join(dir, 'package-lock.json'), '{"lockfileVersion":3}\n');
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const node = (script: string) => ({ command: process.execPath, args: ['-e', script] });
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('snapshot providers: environment variables, command outputs and file digests as one flat map', () => {
  it('takes allow-listed variables (by name and prefix), command outputs and file digests, keys sorted', async () => {
    const config = ResealConfigSchema.parse({
      snapshot: {
        env: { names: ['HTTP_PROXY'], prefixes: ['NODE_'] },
        commands: { node: node('console.log(process.version)'), stderr: node('console.error("  only on stderr  ")') },
        files: ['package-lock.json'],
      },
    }).snapshot;
    const taken = await snapshotProviders(config, {
      dir,
      env: { HTTP_PROXY: 'http://proxy:3128', NODE_ENV: 'production', HOME: '/root', SECRET_TOKEN: 'x' },
    }).take();
    expect(taken.notes).toEqual([]);
    expect(taken.env).toEqual({
      'env:HTTP_PROXY': 'http://proxy:3128',
      'env:NODE_ENV': 'production',
      'file:package-lock.json': sha256('{"lockfileVersion":3}\n'),
      'tool:node': process.version,
      'tool:stderr': 'only on stderr',
    });
    expect(Object.keys(taken.env)).toEqual([...Object.keys(taken.env)].sort());
    // The result is what a manifest seals: the core's EnvSnapshot.
    expect(EnvSnapshot.parse(taken.env)).toEqual(taken.env);
  });

  it('leaves out, with a note, a command not found, a failing or slow command, and a missing file', async () => {
    const config = ResealConfigSchema.parse({
      snapshot: {
        commands: {
          missing: { command: 'reseal-no-such-command-here' },
          failing: node('process.exit(3)'),
          slow: { ...node('setTimeout(() => {}, 10000)'), timeoutMs: 200 },
        },
        files: ['no-such-file.txt'],
      },
    }).snapshot;
    const taken = await snapshotProviders(config, { dir, env: {} }).take();
    expect(taken.env).toEqual({});
    expect(taken.notes).toEqual([
      'file:no-such-file.txt: not read (ENOENT)',
      'tool:failing: not run (exit code 3)',
      expect.stringMatching(/^tool:missing: not run \(.*ENOENT.*\)$/),
      'tool:slow: not run (timed out after 200 ms)',
    ]);
  });

  it('runs commands without a shell: shell syntax is passed as a plain argument', async () => {
    const config = ResealConfigSchema.parse({
      snapshot: {
        commands: { echo: { command: process.execPath, args: ['-e', 'console.log(process.argv[1])', '$(id)|x'] } },
      },
    }).snapshot;
    const taken = await snapshotProviders(config, { dir, env: {} }).take();
    expect(taken.env['tool:echo']).toBe('$(id)|x');
  });
});

describe('reseal.config.json', () => {
  it('resolves relative files against its own folder', async () => {
    const path = join(dir, 'reseal.config.json');
    await writeFile(path, JSON.stringify({ snapshot: { files: ['package-lock.json'] } }));
    const loaded = await loadResealConfig(path);
    expect(loaded.dir).toBe(dir);
    const taken = await snapshotProviders(loaded.config.snapshot, { dir: loaded.dir, env: {} }).take();
    expect(Object.keys(taken.env)).toEqual(['file:package-lock.json']);
  });

  it.each([
    ['an unknown field', '{"snapshot":{"envs":{}}}', 'snapshot.envs'],
    ['a repeated member name', '{"snapshot":{"files":[],"files":["a"]}}', ''],
    ['a command name with ":"', '{"snapshot":{"commands":{"a:b":{"command":"x"}}}}', 'snapshot.commands.a:b'],
    ['a timeout that is not a positive integer', '{"snapshot":{"timeoutMs":0}}', 'snapshot.timeoutMs'],
  ])('refuses %s, naming the field', async (_what, text, path) => {
    const file = join(dir, 'bad.config.json');
    await writeFile(file, text);
    const error = await loadResealConfig(file).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as InvalidInputError).message).toContain(file);
    if (path) expect((error as InvalidInputError).issues.map((i) => i.path)).toContain(path);
  });
});

describe('snapshot providers: the environment snapshot key limit (docs/cli.md, "Input limits")', () => {
  it('a snapshot over MAX_ENV_SNAPSHOT_KEYS keys is refused whole, naming the limit and the count', async () => {
    const config = ResealConfigSchema.parse({ snapshot: { env: { prefixes: ['V'] } } }).snapshot;
    const env: Record<string, string> = {};
    for (let i = 0; i <= MAX_ENV_SNAPSHOT_KEYS; i++) env[`V${i}`] = 'v';
    const refusal = await snapshotProviders(config, { dir, env })
      .take()
      .then(
        () => 'taken',
        (error: unknown) => error,
      );
    expect(refusal).toBeInstanceOf(InvalidInputError);
    expect((refusal as InvalidInputError).issues).toEqual([
      {
        path: '',
        message:
          'environment snapshot holds 2,000,001 keys, more than the limit of 2,000,000 (MAX_ENV_SNAPSHOT_KEYS, docs/cli.md "Input limits")',
      },
    ]);
  }, 300_000);
});
