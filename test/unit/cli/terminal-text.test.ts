import { describe, expect, it } from 'vitest';
import { terminalLines } from '../../../cli/format/terminal-lines';

describe('terminalLines: multi-line messages on a terminal', () => {
  it('keeps the line breaks of a multi-line message and escapes the rest', () => {
    expect(terminalLines('error one\n  at x: \u001b[1A')).toBe('error one\n  at x: \\u001b[1A');
  });
});
