import { describe, expect, it } from 'vitest';
import { terminalLines, terminalText } from '../../../cli/format/output';

describe('terminalText: strings from the table cannot act on a terminal', () => {
  it('escapes controls (newline, CR, ESC, DEL, C1), bidi and zero-width format characters, separators and lone surrogates', () => {
    expect(terminalText('a\nb\r\u001b[2K\u007f\u0085')).toBe('a\\u000ab\\u000d\\u001b[2K\\u007f\\u0085');
    expect(terminalText('x\u202ey\u200bz\u2028\ud800')).toBe('x\\u202ey\\u200bz\\u2028\\ud800');
  });

  it('keeps printable text as is (ellipsis, minus, accents, emoji)', () => {
    expect(terminalText('2^53 − 1 … é 😀')).toBe('2^53 − 1 … é 😀');
  });

  it('terminalLines keeps the line breaks of a multi-line message and escapes the rest', () => {
    expect(terminalLines('error one\n  at x: \u001b[1A')).toBe('error one\n  at x: \\u001b[1A');
  });
});
