import { describe, expect, it } from 'vitest';
import { DEFAULT_HEAD_LAYOUT, HeadLayout, headLayoutOf } from '../../../../shared/ports/head-layout';

describe('headLayoutOf: the sealer\'s HEAD_LAYOUT setting (docs/sealing.md, "Migration")', () => {
  it('absent or empty is the small head (deploy 3); each layout names itself', () => {
    expect(DEFAULT_HEAD_LAYOUT).toBe(HeadLayout.SMALL);
    expect(headLayoutOf(undefined)).toBe('small');
    expect(headLayoutOf('')).toBe('small');
    expect(headLayoutOf('small')).toBe('small');
    expect(headLayoutOf('compatible')).toBe('compatible');
  });

  it('a value naming no layout is refused: the sealer does not start on a deploy mistake', () => {
    expect(() => headLayoutOf('Small')).toThrow('HEAD_LAYOUT must be "compatible" or "small", not "Small"');
  });
});
