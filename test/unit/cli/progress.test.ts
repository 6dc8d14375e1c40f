import { describe, expect, it } from 'vitest';
import type { CliIo } from '../../../cli/io';
import { progressBar } from '../../../cli/progress';

function io(stderrIsTty: boolean): { io: CliIo; stderr: () => string } {
  let text = '';
  return {
    io: {
      stdout: () => undefined,
      stderr: (t) => {
        text += t;
      },
      env: {},
      nowMs: () => 0,
      cwd: '/',
      stderrIsTty,
    },
    stderr: () => text,
  };
}

describe('progressBar (docs/cli.md, "Start-up": progress on a terminal, quiet with --json)', () => {
  it('draws on a terminal and ends its line', () => {
    const run = io(true);
    const bar = progressBar(run.io, 'reading l-1');
    bar.update({ done: 5, total: 10 });
    bar.finish();
    expect(run.stderr()).toBe(`\rreading l-1 [${'#'.repeat(15)}${'-'.repeat(15)}] 5/10\n`);
  });

  it('draws nothing with quiet (--json) or when stderr is not a terminal', () => {
    for (const [tty, quiet] of [
      [true, true],
      [false, false],
    ] as const) {
      const run = io(tty);
      const bar = progressBar(run.io, 'reading l-1', { quiet });
      bar.update({ done: 5, total: 10 });
      bar.finish();
      expect(run.stderr()).toBe('');
    }
  });
});
