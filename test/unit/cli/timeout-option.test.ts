import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TimeoutError } from '../../../client/errors';
import { runCli } from './run-cli';

const FIXTURES = join(import.meta.dirname, 'fixtures');

/**
 * A client whose recall never gets an answer: it records how long it was asked to wait and
 * times out, as the real client does when no triage report arrives.
 */
function silentTriage() {
  const waits: number[] = [];
  const sends: string[] = [];
  const client = {
    recall: async (_request: unknown, options: { timeoutMs: number }) => {
      waits.push(options.timeoutMs);
      throw new TimeoutError('triage report', options.timeoutMs);
    },
    publishWrite: async () => {
      sends.push('publish');
      throw new Error('must not be sent');
    },
  };
  return { waits, sends, connect: async () => client as never };
}

const RECALL = ['recall', '--lineage', 'agent-7', '--env', 'baseline-env.json', '--request-id', 'req-1'];

// docs/cli.md, "Time units": every duration option is in seconds and names its unit
// (`--timeout-seconds`); the former names still work in their own unit.
describe('--timeout-seconds: the wait of recall and publish --wait, in seconds', () => {
  it('recall --timeout-seconds 2 waits 2000 ms and says so when nothing came (exit 1)', async () => {
    const triage = silentTriage();
    const run = await runCli([...RECALL, '--timeout-seconds', '2'], { cwd: FIXTURES, connect: triage.connect });
    expect(run.exitCode).toBe(1);
    expect(triage.waits).toEqual([2000]);
    expect(run.stderr).toContain('no triage report for req-1 within 2 s');
    expect(run.stderr).not.toContain('--timeout-ms');
  });

  it('recall waits 60 s by default', async () => {
    const triage = silentTriage();
    await runCli(RECALL, { cwd: FIXTURES, connect: triage.connect });
    expect(triage.waits).toEqual([60_000]);
  });

  it('recall --timeout-ms (the former name) still waits in milliseconds, with a note naming --timeout-seconds', async () => {
    const triage = silentTriage();
    const run = await runCli([...RECALL, '--timeout-ms', '1500'], { cwd: FIXTURES, connect: triage.connect });
    expect(run.exitCode).toBe(1);
    expect(triage.waits).toEqual([1500]);
    expect(run.stderr).toContain('reseal: --timeout-ms is now --timeout-seconds (seconds)');
    expect(run.stderr).toContain('within 1.5 s');
  });

  it('both names is bad input (exit 2), before anything is asked of the stack', async () => {
    const triage = silentTriage();
    const recall = await runCli([...RECALL, '--timeout-seconds', '2', '--timeout-ms', '2000'], {
      cwd: FIXTURES,
      connect: triage.connect,
    });
    expect(recall.exitCode).toBe(2);
    expect(recall.stderr).toContain('give --timeout-seconds or --timeout-ms, not both');
    expect(triage.waits).toEqual([]);
    const publish = await runCli(
      ['publish', '--request', 'request-safe.json', '--wait', '--timeout', '3', '--timeout-seconds', '3'],
      { cwd: FIXTURES, connect: triage.connect },
    );
    expect(publish.exitCode).toBe(2);
    expect(publish.stderr).toContain('give --timeout-seconds or --timeout, not both');
    expect(triage.sends).toEqual([]);
  });

  it('--help lists --timeout-seconds, never the former names', async () => {
    for (const command of ['recall', 'publish']) {
      const run = await runCli([command, '--help'], { cwd: FIXTURES });
      expect(run.stdout).toMatch(/--timeout-seconds <s>/);
      expect(run.stdout).not.toMatch(/--timeout(-ms)? </);
    }
  });
});
