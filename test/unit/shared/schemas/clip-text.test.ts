import { describe, expect, it } from 'vitest';
import { clipText } from '../../../../shared/schemas/clip-text';

describe('clipText', () => {
  it('keeps a text within the bound as it is', () => {
    expect(clipText('abc', 3)).toBe('abc');
  });

  it('cuts a longer text to the bound, ending in an ellipsis', () => {
    expect(clipText('abcdef', 4)).toBe('abc…');
    expect(clipText('abcdef', 4)).toHaveLength(4);
  });

  it('never leaves half a surrogate pair: the split half becomes U+FFFD', () => {
    const clipped = clipText('ab😀cd', 4);
    expect(clipped).toHaveLength(4);
    expect(clipped.isWellFormed()).toBe(true);
    expect(clipped).toBe('ab\ufffd…');
  });

  it('makes a lone surrogate well-formed', () => {
    expect(clipText('a\udc00', 10)).toBe('a\ufffd');
  });
});
