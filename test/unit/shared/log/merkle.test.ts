import { createHash } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { InvalidInputError } from '../../../../shared/errors';
import { appendLeaf } from '../../../../shared/log/append-leaf';
import { consistencyProofRefs, proveConsistency } from '../../../../shared/log/consistency-proof';
import { EMPTY_ROOT } from '../../../../shared/log/empty-root';
import { frontierRoot } from '../../../../shared/log/frontier-root';
import { inclusionProofRefs, proveInclusion } from '../../../../shared/log/inclusion-proof';
import { HASH_BYTES, leafHash, nodeHash } from '../../../../shared/log/merkle-hash';
import type { NodeRef, NodeSource } from '../../../../shared/log/node-ref';
import { rangeRoot } from '../../../../shared/log/range-root';
import { subtreeRefs } from '../../../../shared/log/subtree-refs';
import { verifyConsistency } from '../../../../shared/log/verify-consistency';
import { verifyInclusion } from '../../../../shared/log/verify-inclusion';
import { testLeaf, testTree, toHex } from '../../../helpers/log-factories';

const MAX = Number.MAX_SAFE_INTEGER;
const sha = (...parts: number[][]) => toHex(createHash('sha256').update(Uint8Array.from(parts.flat())).digest());
const h = (byte: number) => new Uint8Array(HASH_BYTES).fill(byte);

describe('hashing (RFC 9162 §2.1.1)', () => {
  it('EMPTY_ROOT is SHA-256 of the empty string; leafHash and nodeHash prefix 0x00 and 0x01', () => {
    expect(toHex(EMPTY_ROOT)).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(toHex(leafHash(new Uint8Array()))).toBe('6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d');
    expect(toHex(leafHash(Uint8Array.of(7, 8)))).toBe(sha([0], [7, 8]));
    expect(toHex(nodeHash(h(1), h(2)))).toBe(sha([1], [...h(1)], [...h(2)]));
  });

  it('hands out copies of the empty root: mutating one changes nothing the verifiers accept', () => {
    const root = frontierRoot([]);
    root[0] = 0;
    expect(toHex(frontierRoot([]))).toBe(toHex(rangeRoot([])));
    expect(frontierRoot([])[0]).toBe(0xe3);
    const exported = EMPTY_ROOT.slice();
    EMPTY_ROOT[0] = 0;
    try {
      expect(verifyConsistency({ size1: 0, size2: 0, root1: exported, root2: exported, proof: [] })).toBe(true);
      expect(verifyConsistency({ size1: 0, size2: 0, root1: EMPTY_ROOT, root2: EMPTY_ROOT, proof: [] })).toBe(false);
    } finally {
      EMPTY_ROOT.set(exported);
    }
  });
});

describe('subtreeRefs', () => {
  it('decomposes an MTH range into maximal aligned perfect subtrees, largest first', () => {
    expect(subtreeRefs(0, 7)).toEqual([
      { level: 2, index: 0 },
      { level: 1, index: 2 },
      { level: 0, index: 6 },
    ]);
    expect(subtreeRefs(4, 7)).toEqual([
      { level: 1, index: 2 },
      { level: 0, index: 6 },
    ]);
    expect(subtreeRefs(8, 16)).toEqual([{ level: 3, index: 1 }]);
    expect(subtreeRefs(5, 5)).toEqual([]);
    expect(subtreeRefs(0, 0)).toEqual([]);
  });

  it('is exact up to 2^53 − 1 (no 32-bit arithmetic)', () => {
    const refs = subtreeRefs(0, MAX);
    expect(refs).toHaveLength(53);
    expect(refs.map((ref) => ref.level)).toEqual(Array.from({ length: 53 }, (_, i) => 52 - i));
    expect(refs.at(-1)).toEqual({ level: 0, index: MAX - 1 });
    expect(subtreeRefs(2 ** 52, MAX).at(0)).toEqual({ level: 51, index: 2 });
    expect(subtreeRefs(2 ** 40 * 3, 2 ** 40 * 3 + 2 ** 33 + 1)).toEqual([
      { level: 33, index: 3 * 2 ** 7 },
      { level: 0, index: 2 ** 40 * 3 + 2 ** 33 },
    ]);
  });

  it.each([
    [3, 7, 'start'],
    [2, 5, 'start'],
    [5, 3, 'end'],
    [-1, 2, 'start'],
    [0.5, 1, 'start'],
    [0, MAX + 1, 'end'],
    [0, Number.NaN, 'end'],
  ])('refuses [%s, %s) (%s)', (start, end, path) => {
    const error = (() => {
      try {
        subtreeRefs(start, end);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as InvalidInputError).issues[0]?.path).toBe(path);
  });
});

describe('rangeRoot and frontierRoot', () => {
  it('fold from the right; one hash is its own root (a copy); [] is the empty root', () => {
    const [a, b, c] = [h(1), h(2), h(3)];
    expect(toHex(rangeRoot([a, b, c]))).toBe(toHex(nodeHash(a, nodeHash(b, c))));
    const single = rangeRoot([a]);
    expect(single).toEqual(a);
    expect(single).not.toBe(a);
    expect(toHex(rangeRoot([]))).toBe(toHex(EMPTY_ROOT));
    expect(frontierRoot([a, b])).toEqual(rangeRoot([a, b]));
  });

  it('refuses hashes that are not 32 bytes', () => {
    expect(() => rangeRoot([h(1), new Uint8Array(31)])).toThrow(InvalidInputError);
    expect(() => rangeRoot('x' as unknown as Uint8Array[])).toThrow(InvalidInputError);
  });
});

describe('proof shapes', () => {
  it('inclusion: one group per level, leaf side first; at most one group of several nodes', () => {
    expect(inclusionProofRefs(0, 1)).toEqual([]);
    expect(inclusionProofRefs(0, 7)).toEqual([
      [{ level: 0, index: 1 }],
      [{ level: 1, index: 1 }],
      [
        { level: 1, index: 2 },
        { level: 0, index: 6 },
      ],
    ]);
    expect(inclusionProofRefs(6, 7)).toEqual([[{ level: 1, index: 2 }], [{ level: 2, index: 0 }]]);
    const large = inclusionProofRefs(0, MAX);
    expect(large).toHaveLength(53);
    expect(large.filter((group) => group.length > 1)).toHaveLength(1);
  });

  it('consistency: empty for size1 = 0 and size1 = size2', () => {
    expect(consistencyProofRefs(0, 9)).toEqual([]);
    expect(consistencyProofRefs(9, 9)).toEqual([]);
    expect(consistencyProofRefs(4, 7)).toEqual([
      [
        { level: 1, index: 2 },
        { level: 0, index: 6 },
      ],
    ]);
    expect(consistencyProofRefs(MAX - 1, MAX).flat().length).toBeGreaterThan(50);
  });

  it.each([
    [1, 1],
    [0, 0],
    [-1, 3],
    [Number.NaN, 3],
    [0, MAX + 1],
    [2.5, 4],
  ])('inclusionProofRefs(%s, %s) throws InvalidInputError', (index, size) => {
    expect(() => inclusionProofRefs(index, size)).toThrow(InvalidInputError);
  });

  it.each([
    [6, 5],
    [-1, 5],
    [1, MAX + 1],
    [1, 1.5],
  ])('consistencyProofRefs(%s, %s) throws InvalidInputError', (size1, size2) => {
    expect(() => consistencyProofRefs(size1, size2)).toThrow(InvalidInputError);
  });
});

describe('proveInclusion / proveConsistency with a NodeSource', () => {
  it('make one call with every needed ref, and none when the proof is empty', async () => {
    const tree = testTree(7);
    const nodes = vi.fn<NodeSource>(tree.nodes);
    expect(await proveInclusion(2, 7, nodes)).toHaveLength(3);
    expect(nodes).toHaveBeenCalledTimes(1);
    expect(nodes.mock.calls[0]?.[0]).toEqual([
      { level: 0, index: 3 },
      { level: 1, index: 0 },
      { level: 1, index: 2 },
      { level: 0, index: 6 },
    ]);
    nodes.mockClear();
    expect(await proveInclusion(0, 1, nodes)).toEqual([]);
    expect(await proveConsistency(3, 3, nodes)).toEqual([]);
    expect(await proveConsistency(0, 7, nodes)).toEqual([]);
    expect(nodes).not.toHaveBeenCalled();
  });

  it('reject with what the source rejects with, and refuse malformed answers', async () => {
    const missing = new Error('missing');
    await expect(proveInclusion(0, 2, async () => Promise.reject(missing))).rejects.toBe(missing);
    await expect(proveInclusion(0, 4, async () => [h(1)])).rejects.toThrow(InvalidInputError);
    await expect(proveInclusion(0, 2, async () => [new Uint8Array(5)])).rejects.toThrow(InvalidInputError);
    await expect(proveConsistency(1, 2, async () => 'x' as unknown as Uint8Array[])).rejects.toThrow(
      /expected 1 hashes, got no array/,
    );
    await expect(proveInclusion(3, 3, async () => [])).rejects.toThrow(InvalidInputError);
    await expect(proveInclusion(3, 2, async () => [])).rejects.toThrow(InvalidInputError);
  });
});

describe('verifyInclusion never throws', () => {
  const tree = testTree(5);
  const lh = leafHash(testLeaf(2));
  const good = { leafIndex: 2, treeSize: 5, leafHash: lh, rootHash: tree.root() };

  it('accepts the genuine proof; refuses a bad index, size, hash length or shape', async () => {
    const proof = await proveInclusion(2, 5, tree.nodes);
    expect(verifyInclusion({ ...good, proof })).toBe(true);
    for (const bad of [
      { ...good, proof, leafIndex: 5 },
      { ...good, proof, leafIndex: -1 },
      { ...good, proof, leafIndex: 2.5 },
      { ...good, proof, treeSize: 0 },
      { ...good, proof, treeSize: MAX + 1 },
      { ...good, proof, leafIndex: 2 ** 64, treeSize: 2 ** 65 },
      { ...good, proof, leafHash: lh.subarray(1) },
      { ...good, proof, rootHash: new Uint8Array(33) },
      { ...good, proof: [...proof, h(0)] },
      { ...good, proof: proof.slice(1) },
      { ...good, proof: [new Uint8Array(31), ...proof.slice(1)] },
      { ...good, proof: 'nope' as unknown as Uint8Array[] },
      { ...good, proof: [null as unknown as Uint8Array] },
    ]) {
      expect(verifyInclusion(bad)).toBe(false);
    }
    expect(verifyInclusion(null as never)).toBe(false);
    expect(verifyInclusion(undefined as never)).toBe(false);
  });

  it('a one-leaf tree: the leaf hash is the root, the proof is empty', () => {
    const one = leafHash(Uint8Array.of(1));
    expect(verifyInclusion({ leafIndex: 0, treeSize: 1, leafHash: one, proof: [], rootHash: one })).toBe(true);
    expect(verifyInclusion({ leafIndex: 0, treeSize: 1, leafHash: one, proof: [one], rootHash: one })).toBe(false);
    expect(verifyInclusion({ leafIndex: 0, treeSize: 0, leafHash: one, proof: [], rootHash: EMPTY_ROOT })).toBe(false);
  });
});

describe('verifyConsistency never throws', () => {
  const tree = testTree(5);
  const [r0, r3, r5] = [tree.root(0), tree.root(3), tree.root(5)];

  it('follows RFC 9162 for 0 < size1 < size2 and refuses every malformed argument', async () => {
    const proof = await proveConsistency(3, 5, tree.nodes);
    const good = { size1: 3, size2: 5, root1: r3, root2: r5, proof };
    expect(verifyConsistency(good)).toBe(true);
    for (const bad of [
      { ...good, proof: [] },
      { ...good, size1: 6 },
      { ...good, size1: -1 },
      { ...good, size2: MAX + 1 },
      { ...good, root1: r3.subarray(0, 31) },
      { ...good, root2: new Uint8Array(0) },
      { ...good, proof: [...proof, r5] },
      { ...good, proof: [h(9), ...proof] },
      { ...good, proof: { length: 0 } as unknown as Uint8Array[] },
    ]) {
      expect(verifyConsistency(bad)).toBe(false);
    }
    expect(verifyConsistency(null as never)).toBe(false);
  });

  it('size1 = size2: only the empty proof, and equal roots', () => {
    expect(verifyConsistency({ size1: 3, size2: 3, root1: r3, root2: r3, proof: [] })).toBe(true);
    expect(verifyConsistency({ size1: 3, size2: 3, root1: r3, root2: r5, proof: [] })).toBe(false);
    expect(verifyConsistency({ size1: 3, size2: 3, root1: r3, root2: r3, proof: [r3] })).toBe(false);
  });

  it('size1 = 0: only the empty proof, and root1 must be the empty root', () => {
    expect(verifyConsistency({ size1: 0, size2: 5, root1: r0, root2: r5, proof: [] })).toBe(true);
    expect(verifyConsistency({ size1: 0, size2: 5, root1: r3, root2: r5, proof: [] })).toBe(false);
    expect(verifyConsistency({ size1: 0, size2: 5, root1: r0, root2: r5, proof: [r0] })).toBe(false);
    expect(verifyConsistency({ size1: 0, size2: 0, root1: r0, root2: r0, proof: [] })).toBe(true);
    expect(verifyConsistency({ size1: 0, size2: 0, root1: r0, root2: r5, proof: [] })).toBe(false);
  });
});

describe('appendLeaf', () => {
  it('returns the leaf and every merged parent, bottom up', () => {
    let frontier: Uint8Array[] = [];
    const completed: { level: number; index: number }[][] = [];
    for (let size = 0; size < 8; size += 1) {
      const step = appendLeaf(frontier, size, leafHash(testLeaf(size)));
      frontier = step.frontier;
      completed.push(step.completed.map(({ level, index }) => ({ level, index })));
    }
    expect(completed[6]).toEqual([{ level: 0, index: 6 }]);
    expect(completed[7]).toEqual([
      { level: 0, index: 7 },
      { level: 1, index: 3 },
      { level: 2, index: 1 },
      { level: 3, index: 0 },
    ]);
    expect(frontier).toHaveLength(1);
    expect(toHex(frontierRoot(frontier))).toBe(toHex(testTree(8).root()));
  });

  it('copies the leaf hash it stores', () => {
    const hash = leafHash(testLeaf(0));
    const { completed } = appendLeaf([], 0, hash);
    hash.fill(0);
    expect(completed[0]?.hash).toEqual(leafHash(testLeaf(0)));
  });

  it.each([
    ['a frontier of the wrong length', [h(1)], 3, h(2)],
    ['a frontier hash of the wrong length', [new Uint8Array(3)], 1, h(2)],
    ['a leaf hash of the wrong length', [], 0, new Uint8Array(0)],
    ['a negative size', [], -1, h(2)],
    ['a full tree', [], MAX, h(2)],
  ])('refuses %s', (_name, frontier, size, hash) => {
    expect(() => appendLeaf(frontier, size, hash)).toThrow(InvalidInputError);
  });
});

/**
 * A tree of 2^53 − 1 identical leaves: every perfect subtree of one level has the same hash, so a
 * NodeSource is a table of 53 hashes. Checks the arithmetic at the top of the number range.
 */
describe('a synthetic tree of 2^53 − 1 leaves', () => {
  const leaf = leafHash(Uint8Array.of(42));
  const byLevel: Uint8Array[] = [leaf];
  for (let level = 1; level <= 53; level += 1) {
    const below = byLevel[level - 1] as Uint8Array;
    byLevel.push(nodeHash(below, below));
  }
  const nodes: NodeSource = async (refs: readonly NodeRef[]) => refs.map((ref) => byLevel[ref.level] as Uint8Array);
  const rootOf = (size: number) => rangeRoot(subtreeRefs(0, size).map((ref) => byLevel[ref.level] as Uint8Array));

  it.each([
    [0, MAX],
    [MAX - 1, MAX],
    [2 ** 52, MAX],
    [2 ** 52 - 1, 2 ** 52],
    [123_456_789_012, MAX - 2],
  ])('inclusion of leaf %s in %s verifies', async (index, size) => {
    const proof = await proveInclusion(index, size, nodes);
    expect(verifyInclusion({ leafIndex: index, treeSize: size, leafHash: leaf, proof, rootHash: rootOf(size) })).toBe(
      true,
    );
  });

  it.each([
    [MAX - 1, MAX],
    [2 ** 52, MAX],
    [12_345, MAX],
    [2 ** 31 + 1, 2 ** 33 - 3],
  ])('consistency %s → %s verifies', async (size1, size2) => {
    const proof = await proveConsistency(size1, size2, nodes);
    expect(verifyConsistency({ size1, size2, root1: rootOf(size1), root2: rootOf(size2), proof })).toBe(true);
  });

  it('appendLeaf reaches 2^53 − 1 leaves and stops there', () => {
    const frontier = subtreeRefs(0, MAX - 1).map((ref) => byLevel[ref.level] as Uint8Array);
    const { frontier: full, completed } = appendLeaf(frontier, MAX - 1, leaf);
    expect(toHex(frontierRoot(full))).toBe(toHex(rootOf(MAX)));
    expect(completed).toEqual([{ level: 0, index: MAX - 1, hash: leaf }]);
    expect(() => appendLeaf(full, MAX, leaf)).toThrow(/2\^53 − 1 leaves already/);
  });
});
