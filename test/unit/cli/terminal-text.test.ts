import { describe, expect, it } from 'vitest';
import { terminalLines } from '../../../cli/format/terminal-lines';
import { runCli } from './run-cli';

describe('terminalLines: multi-line messages on a terminal', () => {
  it('keeps the line breaks of a multi-line message and escapes the rest', () => {
    expect(terminalLines('error one\n  at x: \u001b[1A')).toBe('error one\n  at x: \\u001b[1A');
  });
});

describe("commander's own errors: what was typed is escaped", () => {
  const ESC = '\u001b[2J\u001b]0;title\u0007';
  it.each([
    ['an unknown command', [`x${ESC}`], "error: unknown command 'x\\u001b[2J\\u001b]0;title\\u0007'"],
    ['an unknown option', ['verify', `--x${ESC}`], "error: unknown option '--x\\u001b[2J\\u001b]0;title\\u0007'"],
    [
      "an option's invalid argument",
      ['recall', '--lineage', 'a', '--seq', `3${ESC}`],
      "error: option '--seq <n>' argument '3\\u001b[2J\\u001b]0;title\\u0007' is invalid.",
    ],
  ])('%s: escaped, exit 2, no raw control character left', async (_name, argv, firstLine) => {
    const result = await runCli(argv, { cwd: import.meta.dirname });
    expect(result.exitCode).toBe(2);
    expect(result.stderr.split('\n')[0]).toContain(firstLine);
    expect(result.stderr).toBe(terminalLines(result.stderr)); // nothing left to escape
  });
});
