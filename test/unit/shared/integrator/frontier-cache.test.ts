import { describe, expect, it } from 'vitest';
import type { LineageIndexValue } from '../../../../shared/index/index-entry';
import { FrontierCache } from '../../../../shared/integrator/frontier-cache';

const held = (treeSize: number, rootHash: string): LineageIndexValue => ({
  treeSize,
  rootHash,
  headRecordHash: '00'.repeat(32),
  generationEpoch: 1,
  writerPolicyDigest: null,
});
const tree = (treeSize: number, rootHash: string) => ({ treeSize, rootHash, frontier: [rootHash] });

describe('FrontierCache (docs/deployment-log.md, "A warm integrator")', () => {
  it('offers a frontier only for the size and root the index holds', () => {
    const cache = new FrontierCache();
    cache.remember('a', tree(1, '11'.repeat(32)));
    expect(cache.frontierOf('a', held(1, '11'.repeat(32)))).toEqual(['11'.repeat(32)]);
    expect(cache.frontierOf('a', held(1, '22'.repeat(32)))).toBeNull();
    expect(cache.frontierOf('a', held(2, '11'.repeat(32)))).toBeNull();
    expect(cache.frontierOf('b', held(1, '11'.repeat(32)))).toBeNull();
  });

  it('drops the least recently used lineage when full', () => {
    const cache = new FrontierCache(2);
    cache.remember('a', tree(1, '11'.repeat(32)));
    cache.remember('b', tree(1, '22'.repeat(32)));
    expect(cache.frontierOf('a', held(1, '11'.repeat(32)))).not.toBeNull(); // a used: b is the oldest
    cache.remember('c', tree(1, '33'.repeat(32)));
    expect(cache.size).toBe(2);
    expect(cache.frontierOf('b', held(1, '22'.repeat(32)))).toBeNull();
    expect(cache.frontierOf('a', held(1, '11'.repeat(32)))).not.toBeNull();
    expect(cache.frontierOf('c', held(1, '33'.repeat(32)))).not.toBeNull();
  });
});
