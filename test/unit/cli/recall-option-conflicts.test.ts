import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './run-cli';

const FIXTURES = join(import.meta.dirname, 'fixtures');

describe('recall options that contradict each other (docs/cli.md, "recall")', () => {
  it('--no-triage with --no-wait is bad input, exit 2, before any stack is reached', async () => {
    let connected = 0;
    const result = await runCli(
      ['recall', '--lineage', 'l-1', '--env', 'baseline-env.json', '--no-triage', '--no-wait'],
      {
        cwd: FIXTURES,
        connect: async () => {
          connected++;
          throw new Error('not reached');
        },
      },
    );
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('--no-triage answers at once; --no-wait has no request to leave');
    expect(result.stdout).toBe('');
    expect(connected).toBe(0);
  });

  it('with no stack reachable (no endpoint, no credentials) it is still bad input, not a connection error', async () => {
    const result = await runCli(
      ['recall', '--lineage', 'l-1', '--env', 'baseline-env.json', '--no-triage', '--no-wait'],
      { cwd: FIXTURES },
    );
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('--no-wait has no request to leave');
  });
});
