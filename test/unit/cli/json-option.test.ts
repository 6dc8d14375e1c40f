import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './run-cli';

const ROOT = join(import.meta.dirname, '..', '..', '..');

/** The leaf commands `reseal --help` lists (a command with subcommands, by its subcommands). */
async function leafCommands(): Promise<string[][]> {
  const names = async (argv: string[]) => {
    const { stdout } = await runCli([...argv, '--help'], { cwd: ROOT });
    return [...stdout.slice(stdout.indexOf('Commands:')).matchAll(/^ {2}([a-z][a-z-]*)\b/gm)]
      .map((m) => m[1] as string)
      .filter((name) => name !== 'help');
  };
  const leaves: string[][] = [];
  for (const name of await names([])) {
    const subcommands = await names([name]);
    if (subcommands.length === 0) leaves.push([name]);
    else for (const sub of subcommands) leaves.push([name, sub]);
  }
  return leaves;
}

// docs/cli.md, "Output": every command but `mcp` (a server) takes --json.
describe('every command takes --json', () => {
  it('each leaf command of reseal --help but mcp lists --json in its own --help', async () => {
    const leaves = await leafCommands();
    expect(leaves.length).toBeGreaterThan(15);
    for (const argv of leaves.filter(([name]) => name !== 'mcp')) {
      const { stdout } = await runCli([...argv, '--help'], { cwd: ROOT });
      expect(stdout, argv.join(' ')).toMatch(/^ +--json\b/m);
    }
  });

  it('no duration option names a bare unit-less time: --max-age and --timeout are hidden former names', async () => {
    for (const argv of await leafCommands()) {
      const { stdout } = await runCli([...argv, '--help'], { cwd: ROOT });
      expect(stdout, argv.join(' ')).not.toMatch(/--(max-age|timeout|timeout-ms) </);
    }
  });
});
