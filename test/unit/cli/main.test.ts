import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { runCli } from './run-cli';

const ROOT = join(import.meta.dirname, '..', '..', '..');

describe('reseal entry point', () => {
  it('--help lists every command and the documented exit codes, exit 0', async () => {
    const result = await runCli(['--help'], { cwd: ROOT });
    expect(result.exitCode).toBe(0);
    for (const command of ['manifest', 'triage', 'guard', 'verify', 'publish', 'recall', 'export', 'inspect']) {
      expect(result.stdout).toMatch(new RegExp(`^  ${command} `, 'm'));
    }
    expect(result.stdout).toContain('10  action needed');
    expect(result.stdout).toContain('20  tamper detected or unverifiable');
  });

  it('no arguments prints usage to stderr, exit 2', async () => {
    const result = await runCli([], { cwd: ROOT });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('Usage: reseal');
  });

  it('an unknown command or option is bad input, exit 2', async () => {
    expect((await runCli(['frobnicate'], { cwd: ROOT })).exitCode).toBe(2);
    expect((await runCli(['triage', '--bogus'], { cwd: ROOT })).exitCode).toBe(2);
  });

  it('verify needs exactly one of --export and --lineage, exit 2', async () => {
    const result = await runCli(['verify'], { cwd: ROOT });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('exactly one of --export');
  });

  it('bin/reseal.mjs runs the TypeScript CLI through tsx without a build step', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [join(ROOT, 'bin', 'reseal.mjs'), '--help'], {
      cwd: ROOT,
    });
    expect(stdout).toContain('Usage: reseal');
  });
});
