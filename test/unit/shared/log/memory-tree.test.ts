import { describe, expect, it } from 'vitest';
import { InvalidInputError, MerkleNodeMissingError } from '../../../../shared/errors';
import { EMPTY_ROOT } from '../../../../shared/log/empty-root';
import { proveInclusion } from '../../../../shared/log/inclusion-proof';
import { MemoryMerkleTree } from '../../../../shared/log/memory-tree';
import { leafHash } from '../../../../shared/log/merkle-hash';
import { verifyInclusion } from '../../../../shared/log/verify-inclusion';
import { testLeaf, testTree, toHex } from '../../../helpers/log-factories';
import { refRoot } from '../../../helpers/merkle-reference';

describe('MemoryMerkleTree', () => {
  it('appends leaves (hashing them) and returns their index', () => {
    const tree = new MemoryMerkleTree();
    expect(tree.size).toBe(0);
    expect(toHex(tree.root())).toBe(toHex(EMPTY_ROOT));
    expect(tree.append(testLeaf(0))).toBe(0);
    expect(tree.appendLeafHash(leafHash(testLeaf(1)))).toBe(1);
    expect(tree.size).toBe(2);
    expect(toHex(tree.root())).toBe(toHex(refRoot([testLeaf(0), testLeaf(1)])));
  });

  it('answers roots of every earlier size from stored nodes', () => {
    const leaves = Array.from({ length: 13 }, (_, i) => testLeaf(i));
    const tree = testTree(13);
    for (let size = 0; size <= 13; size += 1) {
      expect(toHex(tree.root(size))).toBe(toHex(refRoot(leaves.slice(0, size))));
    }
    expect(() => tree.root(14)).toThrow(InvalidInputError);
    expect(() => tree.root(-1)).toThrow(InvalidInputError);
  });

  it('serves proofs through nodes, and rejects with MerkleNodeMissingError for a node not yet complete', async () => {
    const tree = testTree(6);
    const proof = await proveInclusion(5, 6, tree.nodes);
    expect(
      verifyInclusion({ leafIndex: 5, treeSize: 6, leafHash: leafHash(testLeaf(5)), proof, rootHash: tree.root() }),
    ).toBe(true);
    const missing = await tree.nodes([{ level: 1, index: 3 }]).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(MerkleNodeMissingError);
    expect(missing).toMatchObject({ name: 'MerkleNodeMissingError', level: 1, index: 3 });
    await expect(tree.nodes([{ level: 9, index: 0 }])).rejects.toThrow('Merkle node (level 9, index 0) is not stored');
  });

  it('hands out copies: callers cannot change stored nodes or the frontier', async () => {
    const tree = testTree(3);
    const before = toHex(tree.root());
    const [node] = await tree.nodes([{ level: 0, index: 0 }]);
    node?.fill(0);
    tree.frontier[0]?.fill(0);
    expect(toHex(tree.root())).toBe(before);
    expect(tree.frontier).toHaveLength(2);
  });

  it('refuses a leaf hash of the wrong length', () => {
    expect(() => new MemoryMerkleTree().appendLeafHash(new Uint8Array(4))).toThrow(InvalidInputError);
  });
});
