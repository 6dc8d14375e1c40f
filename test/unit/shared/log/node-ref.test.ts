import { describe, expect, it } from 'vitest';
import { lastLeafOf } from '../../../../shared/log/last-leaf';

describe('lastLeafOf: the leaf whose item stores a node (docs/verifiable-log.md, "Stored state")', () => {
  it('is (index + 1) · 2^level − 1: a leaf stores itself, a subtree is stored with its last leaf', () => {
    expect(lastLeafOf({ level: 0, index: 5 })).toBe(5);
    expect(lastLeafOf({ level: 1, index: 0 })).toBe(1);
    expect(lastLeafOf({ level: 2, index: 1 })).toBe(7);
    expect(lastLeafOf({ level: 3, index: 0 })).toBe(7);
    expect(lastLeafOf({ level: 60, index: 0 })).toBeGreaterThan(Number.MAX_SAFE_INTEGER);
  });
});
