import { describe, expect, it } from 'vitest';
import { escapedStrings, escapedText } from '../../../../shared/schemas/escaped-text';

describe('escapedText: strings from the table cannot act on a terminal or a text renderer', () => {
  it('escapes controls (newline, CR, ESC, DEL, C1), bidi and zero-width format characters, separators and lone surrogates', () => {
    expect(escapedText('a\nb\r\u001b[2K\u007f\u0085')).toBe('a\\u000ab\\u000d\\u001b[2K\\u007f\\u0085');
    expect(escapedText('x\u202ey\u200bz\u2028\u2029\ud800')).toBe('x\\u202ey\\u200bz\\u2028\\u2029\\ud800');
    expect(escapedText('tag \u{e0041}')).toBe('tag \\u{e0041}');
  });

  it('keeps printable text as is (ellipsis, minus, accents, emoji)', () => {
    expect(escapedText('2^53 − 1 … é 😀')).toBe('2^53 − 1 … é 😀');
  });
});

describe('escapedStrings: JSON-shaped data with every string escaped', () => {
  it('escapes strings at any depth, object keys included, and keeps numbers, booleans and null', () => {
    const stored = { 'k\n': ['a\u001b[2J', { deep: 'b\u202e', n: 1, ok: true, none: null }] };
    expect(escapedStrings(stored)).toEqual({
      'k\\u000a': ['a\\u001b[2J', { deep: 'b\\u202e', n: 1, ok: true, none: null }],
    });
    expect(stored).toEqual({ 'k\n': ['a\u001b[2J', { deep: 'b\u202e', n: 1, ok: true, none: null }] });
  });
});
