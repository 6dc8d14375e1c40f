import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { appendLeaf } from '../../../../shared/log/append-leaf';
import { consistencyProofRefs, proveConsistency } from '../../../../shared/log/consistency-proof';
import { frontierRoot } from '../../../../shared/log/frontier-root';
import { inclusionProofRefs, proveInclusion } from '../../../../shared/log/inclusion-proof';
import { leafHash } from '../../../../shared/log/merkle-hash';
import type { NodeRef, NodeSource } from '../../../../shared/log/node-ref';
import { subtreeRefs } from '../../../../shared/log/subtree-refs';
import { verifyConsistency } from '../../../../shared/log/verify-consistency';
import { verifyInclusion } from '../../../../shared/log/verify-inclusion';
import { toHex } from '../../../helpers/log-factories';
import {
  refPath,
  refPathRanges,
  refProof,
  refProofRanges,
  refRangeRefs,
  refRoot,
} from '../../../helpers/merkle-reference';

const key = (ref: NodeRef) => `${ref.level}/${ref.index}`;
const hexes = (hashes: readonly Uint8Array[]) => hashes.map(toHex);

/** A tree built with appendLeaf only: the NodeSource serves nothing but `completed` outputs. */
function build(leaves: readonly Uint8Array[]) {
  const stored = new Map<string, Uint8Array>();
  const completedKeys: string[] = [];
  const roots: Uint8Array[] = [frontierRoot([])];
  let frontier: Uint8Array[] = [];
  leaves.forEach((leaf, size) => {
    const step = appendLeaf(frontier, size, leafHash(leaf));
    for (const node of step.completed) {
      stored.set(key(node), node.hash);
      completedKeys.push(key(node));
    }
    frontier = step.frontier;
    roots.push(frontierRoot(frontier));
  });
  const nodes: NodeSource = async (refs) =>
    refs.map((ref) => {
      const hash = stored.get(key(ref));
      if (!hash) throw new Error(`node ${key(ref)} was never completed`);
      return hash;
    });
  return { stored, completedKeys, roots, frontier, nodes };
}

/** `count` distinct record-hash-like leaves. */
const distinctLeaves = (seed: number, count: number) =>
  Array.from({ length: count }, (_, i) => Uint8Array.from(createHash('sha256').update(`${seed}/${i}`).digest()));

const treeArb = (maxSize: number) =>
  fc.record({ seed: fc.nat(), size: fc.integer({ min: 1, max: maxSize }) }).map(({ seed, size }) => ({
    size,
    leaves: distinctLeaves(seed, size),
  }));

const flip = (bytes: Uint8Array, bit: number) => {
  const copy = bytes.slice();
  const at = Math.floor(bit / 8) % copy.byteLength;
  copy[at] = (copy[at] as number) ^ (1 << (bit % 8));
  return copy;
};

const startOf = (ref: NodeRef) => ref.index * 2 ** ref.level;
/** Which side of the path each proof element is on: the only thing a verifier learns from the size. */
const inclusionShape = (index: number, size: number) =>
  inclusionProofRefs(index, size).map((group) => startOf(group[0] as NodeRef) < index);
const consistencyShape = (size1: number, size2: number) =>
  consistencyProofRefs(size1, size2).map((group) => startOf(group[0] as NodeRef) < size1);

describe('Merkle tree properties (fast-check, against the RFC 9162 reference in test/helpers)', () => {
  it('the frontier from appendLeaf gives the from-scratch MTH at every size, for any leaves', () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 40 }), { minLength: 1, maxLength: 120 }), (leaves) => {
        const { roots, frontier } = build(leaves);
        roots.forEach((root, size) => {
          expect(toHex(root)).toBe(toHex(refRoot(leaves.slice(0, size))));
        });
        const ranges = subtreeRefs(0, leaves.length);
        expect(hexes(frontier)).toEqual(
          ranges.map((ref) => toHex(refRoot(leaves.slice(startOf(ref), startOf(ref) + 2 ** ref.level)))),
        );
      }),
      { numRuns: 40 },
    );
  });

  it('a NodeSource of completed nodes alone proves every inclusion, and proofs are the RFC PATH', async () => {
    await fc.assert(
      fc.asyncProperty(treeArb(300), fc.nat(), async ({ size, leaves }, pick) => {
        const { roots, nodes } = build(leaves);
        const root = roots[size] as Uint8Array;
        expect(toHex(root)).toBe(toHex(refRoot(leaves)));
        for (let index = 0; index < size; index += 1) {
          const proof = await proveInclusion(index, size, nodes);
          expect(
            verifyInclusion({
              leafIndex: index,
              treeSize: size,
              leafHash: leafHash(leaves[index] as Uint8Array),
              proof,
              rootHash: root,
            }),
          ).toBe(true);
          if (index === pick % size) expect(hexes(proof)).toEqual(hexes(refPath(index, leaves)));
        }
      }),
      { numRuns: 25 },
    );
  });

  it('every consistency proof between random m ≤ n verifies, and is the RFC PROOF', async () => {
    await fc.assert(
      fc.asyncProperty(
        treeArb(300),
        fc.array(fc.tuple(fc.nat(), fc.nat()), { minLength: 1, maxLength: 12 }),
        async ({ size, leaves }, pairs) => {
          const { roots, nodes } = build(leaves);
          for (const [a, b] of pairs) {
            const size2 = (b % size) + 1;
            const size1 = a % (size2 + 1);
            const proof = await proveConsistency(size1, size2, nodes);
            const root1 = roots[size1] as Uint8Array;
            const root2 = roots[size2] as Uint8Array;
            expect(verifyConsistency({ size1, size2, root1, root2, proof })).toBe(true);
            const expected = size1 === 0 ? [] : refProof(size1, leaves.slice(0, size2));
            expect(hexes(proof)).toEqual(hexes(expected));
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it('the completed nodes are exactly the nodes every root and proof up to that size needs, each once', () => {
    fc.assert(
      fc.property(treeArb(100), ({ size, leaves }) => {
        const { completedKeys, stored } = build(leaves);
        expect(new Set(completedKeys).size).toBe(completedKeys.length);
        const ones = size.toString(2).replaceAll('0', '').length;
        expect(completedKeys.length).toBe(2 * size - ones);
        const needed = new Set<string>();
        for (let m = 1; m <= size; m += 1) {
          for (const ref of subtreeRefs(0, m)) needed.add(key(ref));
          for (let i = 0; i < m; i += 1) for (const ref of inclusionProofRefs(i, m).flat()) needed.add(key(ref));
          for (let i = 0; i <= m; i += 1) for (const ref of consistencyProofRefs(i, m).flat()) needed.add(key(ref));
        }
        expect([...needed].sort()).toEqual([...completedKeys].sort());
        for (const [name, hash] of [...stored].slice(0, 20)) {
          const [level, index] = name.split('/').map(Number) as [number, number];
          expect(toHex(hash)).toBe(toHex(refRoot(leaves.slice(index * 2 ** level, (index + 1) * 2 ** level))));
        }
      }),
      { numRuns: 15 },
    );
  });

  it('a flipped bit in a proof element, the leaf or the root, or another index, fails inclusion', async () => {
    await fc.assert(
      fc.asyncProperty(treeArb(300), fc.nat(), fc.nat(), fc.nat(), async ({ size, leaves }, i, other, bit) => {
        fc.pre(size > 1);
        const { roots, nodes } = build(leaves);
        const index = i % size;
        const good = {
          leafIndex: index,
          treeSize: size,
          leafHash: leafHash(leaves[index] as Uint8Array),
          proof: await proveInclusion(index, size, nodes),
          rootHash: roots[size] as Uint8Array,
        };
        expect(verifyInclusion(good)).toBe(true);
        const at = bit % good.proof.length;
        const proof = good.proof.map((hash, k) => (k === at ? flip(hash, bit) : hash));
        expect(verifyInclusion({ ...good, proof })).toBe(false);
        expect(verifyInclusion({ ...good, leafHash: flip(good.leafHash, bit) })).toBe(false);
        expect(verifyInclusion({ ...good, rootHash: flip(good.rootHash, bit) })).toBe(false);
        expect(verifyInclusion({ ...good, proof: good.proof.slice(0, -1) })).toBe(false);
        expect(verifyInclusion({ ...good, proof: [...good.proof, good.rootHash] })).toBe(false);
        const otherIndex = (index + 1 + (other % (size - 1))) % size;
        expect(verifyInclusion({ ...good, leafIndex: otherIndex })).toBe(false);
      }),
      { numRuns: 200 },
    );
  });

  it('another tree size verifies only if it gives the same proof shape (RFC 9162 proofs bind the size only through the signed checkpoint)', async () => {
    await fc.assert(
      fc.asyncProperty(treeArb(200), fc.nat(), fc.integer({ min: 1, max: 400 }), async ({ size, leaves }, i, size2) => {
        fc.pre(size2 !== size);
        const { roots, nodes } = build(leaves);
        const index = i % size;
        const proof = await proveInclusion(index, size, nodes);
        const claim = { leafIndex: index, treeSize: size2, leafHash: leafHash(leaves[index] as Uint8Array), proof };
        const sameShape = index < size2 && inclusionShape(index, size2).join() === inclusionShape(index, size).join();
        expect(verifyInclusion({ ...claim, rootHash: roots[size] as Uint8Array })).toBe(sameShape);
      }),
      { numRuns: 200 },
    );
  });

  it('a flipped bit in a proof element or either root, or another size1, fails consistency; another size2 passes only with the same shape', async () => {
    await fc.assert(
      fc.asyncProperty(treeArb(300), fc.nat(), fc.nat(), fc.nat(), fc.nat(), async ({ size, leaves }, a, b, c, bit) => {
        fc.pre(size > 2);
        const { roots, nodes } = build(leaves);
        const size2 = 2 + (b % (size - 1));
        const size1 = 1 + (a % (size2 - 1));
        const good = {
          size1,
          size2,
          root1: roots[size1] as Uint8Array,
          root2: roots[size2] as Uint8Array,
          proof: await proveConsistency(size1, size2, nodes),
        };
        expect(verifyConsistency(good)).toBe(true);
        const at = bit % good.proof.length;
        expect(verifyConsistency({ ...good, proof: good.proof.map((h, k) => (k === at ? flip(h, bit) : h)) })).toBe(
          false,
        );
        expect(verifyConsistency({ ...good, root1: flip(good.root1, bit) })).toBe(false);
        expect(verifyConsistency({ ...good, root2: flip(good.root2, bit) })).toBe(false);
        expect(verifyConsistency({ ...good, proof: good.proof.slice(1) })).toBe(false);
        const otherSize1 = (size1 + 1 + (c % size2)) % (size2 + 1);
        expect(verifyConsistency({ ...good, size1: otherSize1 })).toBe(false);
        const otherSize2 = size1 + 1 + (c % (2 * size));
        if (otherSize2 !== size2) {
          const sameShape = consistencyShape(size1, otherSize2).join() === consistencyShape(size1, size2).join();
          expect(verifyConsistency({ ...good, size2: otherSize2 })).toBe(sameShape);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('proof shapes match a BigInt reference up to 2^53 − 1', () => {
    const big = fc.bigInt({ min: 1n, max: BigInt(Number.MAX_SAFE_INTEGER) });
    fc.assert(
      fc.property(big, big, (x, y) => {
        const [lo, hi] = x < y ? [x, y] : [y, x];
        const size = Number(hi);
        expect(inclusionProofRefs(Number(lo - 1n), size)).toEqual(refPathRanges(lo - 1n, 0n, hi).map(refRangeRefs));
        const expected = lo === hi ? [] : refProofRanges(lo, 0n, hi).map(refRangeRefs);
        expect(consistencyProofRefs(Number(lo), size)).toEqual(expected);
        expect(subtreeRefs(0, size)).toEqual(refRangeRefs([0n, hi]));
      }),
      { numRuns: 500 },
    );
  });
});
