import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_TEST_NOW_MS, runCli } from './run-cli';

const FIXTURES = join(import.meta.dirname, 'fixtures');

/**
 * `reseal write-request` (docs/cli.md, "write-request"): a first request built from a payload, a
 * manifest and the writer key's own lineage, which the guard then admits; every bad input exit 2.
 */
describe('reseal write-request', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'reseal-write-request-'));
    await copyFile(join(FIXTURES, 'manifest.json'), join(dir, 'manifest.json'));
    await writeFile(join(dir, 'payload.json'), JSON.stringify({ conclusion: 'the build image is pinned' }));
    await writeFile(join(dir, 'not-json.json'), '{ "conclusion": ');
    const made = await runCli(['writer-key', 'new', '--out', 'agent-7.pem'], { cwd: dir });
    expect(made.exitCode, made.stderr).toBe(0);
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const base = ['--residual-id', 'r-1', '--session', 's-1', '--epoch', '1', '--payload', 'payload.json'];

  it('--label with the writer key: the lineage lineage-id prints, unsigned, for publish to sign', async () => {
    const id = await runCli(['lineage-id', '--label', 'agent-7', '--writer-key', 'agent-7.pem'], { cwd: dir });
    const built = await runCli(
      ['write-request', '--label', 'agent-7', '--writer-key', 'agent-7.pem', ...base, '--manifest', 'manifest.json'],
      { cwd: dir },
    );
    expect(built.exitCode, built.stderr).toBe(0);
    const request = JSON.parse(built.stdout);
    expect(request.lineageId).toBe(id.stdout.trim());
    expect(request).toMatchObject({
      residualId: 'r-1',
      sessionId: 's-1',
      generationEpoch: 1,
      authority: 'OPERATIONAL',
      payload: { conclusion: 'the build image is pinned' },
      boundary: { activeSessionId: 's-1', boundaryAtMs: CLI_TEST_NOW_MS },
    });
    expect(request.writer).toBeUndefined();
    expect(request.policy).toBeUndefined();
  });

  it('--sign --inception: a first write the guard admits, signed by the key its policy names', async () => {
    const built = await runCli(
      [
        'write-request',
        '--label',
        'agent-7',
        '--writer-key',
        'agent-7.pem',
        ...base,
        '--manifest',
        'manifest.json',
      ].concat(['--sign', '--inception']),
      { cwd: dir },
    );
    expect(built.exitCode, built.stderr).toBe(0);
    const request = JSON.parse(built.stdout);
    expect(request.writer).toMatchObject({ signedAtMs: CLI_TEST_NOW_MS });
    expect(request.policy.writers).toEqual([{ keyId: request.writer.keyId, publicKey: request.writer.publicKey }]);
    await writeFile(join(dir, 'request.json'), built.stdout);
    const guarded = await runCli(['guard', '--request', 'request.json'], { cwd: dir });
    expect(guarded.exitCode, guarded.stdout + guarded.stderr).toBe(0);
    // The same request without its signature is refused by the guard: the signature is what it admits.
    const { writer: _dropped, ...unsigned } = request;
    await writeFile(join(dir, 'unsigned.json'), JSON.stringify(unsigned));
    expect((await runCli(['guard', '--request', 'unsigned.json'], { cwd: dir })).exitCode).toBe(2);
  });

  it('--help says the request is unsigned unless --sign (docs/cli.md, "write-request"), never unsigned alone', async () => {
    const help = await runCli(['write-request', '--help'], { cwd: dir });
    expect(help.exitCode).toBe(0);
    expect(help.stdout).toContain('Unsigned by default');
    expect(help.stdout).toMatch(/--sign\s+signs\s+it\s+now\s+with\s+the\s+writer\s+key/);
    const listing = await runCli(['--help'], { cwd: dir });
    expect(listing.stdout).toMatch(/write-request\s[^\n]*(\n\s+[^\n]*)?unsigned\s+unless\s+--sign/);
    expect(listing.stdout).not.toMatch(/build an unsigned residual write request/);
  });

  it.each([
    [
      ['--lineage', 'x.y', '--label', 'agent-7', ...base, '--manifest', 'manifest.json'],
      /--lineage or --label, not both/,
    ],
    [[...base, '--manifest', 'manifest.json'], /give the lineage/],
    [['--label', 'agent-7', ...base, '--manifest', 'manifest.json'], /--label needs the writer key/],
    [
      ['--lineage', 'lin-1', ...base.slice(0, -1), 'not-json.json', '--manifest', 'manifest.json'],
      /not-json\.json: not valid JSON/,
    ],
    [['--lineage', 'lin-1', ...base, '--manifest', 'payload.json'], /payload\.json: invalid manifest/],
    [
      ['--lineage', 'lin-1', ...base, '--manifest', 'manifest.json', '--predecessor-session', 's-0'],
      /--predecessor-session and --predecessor-epoch together/,
    ],
    [
      ['--lineage', 'lin-1', ...base, '--manifest', 'manifest.json', '--authority', 'ROOT'],
      /--authority: expected one of/,
    ],
    [
      [
        '--lineage',
        'lin-1',
        ...base.slice(0, 4),
        '--epoch',
        'one',
        '--payload',
        'payload.json',
        '--manifest',
        'manifest.json',
      ],
      /non-negative integer/,
    ],
  ])('refuses bad input with exit 2 and nothing on stdout (%#)', async (args, message) => {
    const result = await runCli(['write-request', ...args], { cwd: dir });
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(message);
  });
});
