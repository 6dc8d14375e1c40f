import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../../shared/errors';
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

  it('--help: the description names every command, offline and online, receipts and log-key among them', async () => {
    const { stdout } = await runCli(['--help'], { cwd: ROOT });
    const text = stdout.replace(/\s+/g, ' ');
    const offline = /Offline commands \(([^)]*)\) need no AWS/.exec(text)?.[1]?.split(', ') ?? [];
    const online = /Online commands \(([^)]*)\) use the deployed stack/.exec(text)?.[1]?.split(', ') ?? [];
    expect(offline).toEqual([
      'manifest',
      'write-request',
      'triage',
      'guard',
      'verify --export',
      'verify --receipt',
      'inspect --export',
      'report --export',
      'writer-key',
      'lineage-id --writer-key',
      'deploy --dry-run',
    ]);
    expect(online).toEqual([
      'publish',
      'recall',
      'export',
      'export --receipt',
      'log-key',
      'pin',
      'policy',
      'verify --lineage',
      'inspect --lineage',
      'report --lineage',
      'lineage-id --writer-kms-key',
      'mcp',
      'deploy',
      'destroy',
    ]);
    // Every command the program registers is in one of the lists.
    const commands = [...stdout.slice(stdout.indexOf('Commands:')).matchAll(/^ {2}([a-z][a-z-]*)\b/gm)]
      .map((m) => m[1])
      .filter((name) => name !== 'help');
    expect(commands.length).toBeGreaterThan(8);
    const named = new Set([...offline, ...online].map((entry) => entry.split(' ')[0]));
    for (const command of commands) expect(named, command).toContain(command);
  });

  it('--help: every flag its exit-code table names is a listed option, of the command it is named with', async () => {
    const { stdout } = await runCli(['--help'], { cwd: ROOT });
    const commands = [...stdout.slice(stdout.indexOf('Commands:')).matchAll(/^ {2}([a-z][a-z-]*)\b/gm)]
      .map((m) => m[1] as string)
      .filter((name) => name !== 'help');
    const exitCodes = stdout.slice(stdout.indexOf('Exit codes:')).replace(/\s+/g, ' ');
    const listed = new Map<string, string>();
    for (const command of commands) {
      // Hidden former names (--timeout, --timeout-ms) are not listed: help must not send anyone to them.
      listed.set(command, (await runCli([command, '--help'], { cwd: ROOT })).stdout);
    }
    const isListed = (help: string, flag: string) => new RegExp(`^ +(-[a-zA-Z], )?${flag}\\b`, 'm').test(help);
    const flags = [...new Set(exitCodes.match(/--[a-z][a-z-]*/g) ?? [])];
    for (const flag of flags) {
      expect(
        [...listed.values()].some((help) => isListed(help, flag)),
        flag,
      ).toBe(true);
    }
    // "recall: … --timeout-seconds", "publish --wait: …": each flag is one of that command's options.
    let scoped = 0;
    const rows = stdout
      .slice(stdout.indexOf('Exit codes:'))
      .split(/\n(?= {2}\d)/)
      .map((row) => row.replace(/\s+/g, ' '));
    const mentions = rows.flatMap((row) => [...row.matchAll(/\b([a-z][a-z-]*)(?: --[a-z-]+)?: ([^;()]*)/g)]);
    for (const [, command, text] of mentions) {
      const help = listed.get(command as string);
      if (help === undefined) continue;
      for (const flag of (text as string).match(/--[a-z][a-z-]*/g) ?? []) {
        scoped += 1;
        expect(isListed(help, flag), `${command} ${flag}`).toBe(true);
      }
    }
    expect(scoped).toBeGreaterThan(2);
    expect(flags).toContain('--timeout-seconds');
  });

  it('docs/cli.md documents every command and the options review found missing', async () => {
    const doc = await readFile(join(ROOT, 'docs', 'cli.md'), 'utf8');
    const { stdout } = await runCli(['--help'], { cwd: ROOT });
    const commands = [...stdout.slice(stdout.indexOf('Commands:')).matchAll(/^ {2}([a-z][a-z-]*)\b/gm)]
      .map((m) => m[1])
      .filter((name) => name !== 'help');
    for (const command of commands) expect(doc, command).toContain(`\`reseal ${command}`);
    const online = doc.slice(doc.indexOf('## Online commands'), doc.indexOf('### `reseal publish --wait'));
    for (const row of ['`reseal export --lineage ID --receipt --seq N', '`reseal log-key`', '`reseal mcp']) {
      expect(online, row).toContain(row);
    }
    expect(online).toContain('take `--checkpoint-store FILE`');
    const offline = doc.slice(doc.indexOf('## Offline commands'), doc.indexOf('## Online commands'));
    expect(offline).toContain(
      '### `reseal verify --receipt RECEIPT.json (--policy POLICY [--max-age-seconds S] | --log-key KEY)',
    );
    // Each heading once: nothing documented twice.
    for (const heading of doc.match(/^#+ .*$/gm) ?? []) {
      expect(
        doc.split('\n').filter((line) => line === heading),
        heading,
      ).toHaveLength(1);
    }
    // recall's exit codes say the client checks the answer, and an unproven refusal is not trusted.
    const exits = doc
      .slice(doc.indexOf('Exit codes of `reseal recall`'), doc.indexOf('### `reseal publish --wait'))
      .replace(/\s+/g, ' ');
    expect(exits).toContain('as the client checked it');
    expect(exits).toContain('A refusal triage could not prove is not trusted');
  });

  it('--checkpoint-store says what it keeps as docs/cli.md does: the lineage checkpoints and the deployment checkpoint', async () => {
    for (const command of ['publish', 'recall', 'export', 'verify', 'inspect', 'report']) {
      const { stdout } = await runCli([command, '--help'], { cwd: ROOT });
      const help = stdout.replace(/\s+/g, ' ');
      expect(help, command).toContain('signed checkpoint per lineage and the newest deployment checkpoint');
      expect(help, command).not.toContain('truncation cannot be checked');
    }
  });

  it('an InvalidInputError is reported from its fields: its name kept whole, each field escaped, exit 2', async () => {
    // The name holds " at " (once cut there, from the message) and the field a terminal escape.
    const refusal = new InvalidInputError('stack outputs at us-east-1', [
      { path: 'Outputs.\u001b[2KQueue', message: 'expected a URL' },
      { path: '', message: 'two problems' },
    ]);
    const result = await runCli(['inspect', '--lineage', 'lin-1'], {
      cwd: ROOT,
      connect: async () => {
        throw refusal;
      },
    });
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      'error: invalid stack outputs at us-east-1\n  at "Outputs.\\u001b[2KQueue": expected a URL\n  at <root>: two problems\n',
    );
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

  it('bin/reseal.mjs runs in a clone with no build step of yours (it compiles the CLI itself when stale)', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [join(ROOT, 'bin', 'reseal.mjs'), '--help'], {
      cwd: ROOT,
    });
    expect(stdout).toContain('Usage: reseal');
  });
});
