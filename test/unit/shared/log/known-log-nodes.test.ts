import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { knownLogNodes } from '../../../../shared/log/known-log-nodes';
import { MemoryMerkleTree } from '../../../../shared/log/memory-tree';
import { proveTreeConsistency } from '../../../../shared/log/tree-consistency';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const recordHash = (seq: number) => createHash('sha256').update(`record ${seq}`).digest('hex');

/** A tree of `size` records and its head item's last-leaf path (the frontier of the first size − 1 leaves, right to left). */
async function headTree(size: number) {
  const before = new MemoryMerkleTree();
  for (let seq = 0; seq < size - 1; seq++) before.append(Buffer.from(recordHash(seq), 'hex'));
  const lastLeafPath = before.frontier.map(hex).reverse();
  const tree = new MemoryMerkleTree();
  for (let seq = 0; seq < size; seq++) tree.append(Buffer.from(recordHash(seq), 'hex'));
  return { tree, checkpoint: { origin: 'o', size, rootHash: tree.root(), lastLeafPath } };
}

describe('knownLogNodes: the nodes a proven last record and its head item give', () => {
  it('the frontier nodes are the tree nodes they name, and with the leaf they answer a consistency proof from one record behind', async () => {
    for (const size of [1, 2, 3, 6, 7, 8, 13, 64, 100]) {
      const { tree, checkpoint } = await headTree(size);
      const known = knownLogNodes(checkpoint, { seq: size - 1, recordHash: recordHash(size - 1) });
      for (const [key, hash] of known) {
        const [level, index] = key.split('/').map(Number) as [number, number];
        const [stored] = await tree.nodes([{ level, index }]);
        expect(hash, `${key} of ${size}`).toBe(hex(stored as Uint8Array));
      }
      if (size < 2) continue;
      // Every node of the proof from size − 1 to size is known: none left to read.
      const asked: string[] = [];
      await proveTreeConsistency(size - 1, size, async (refs) => {
        for (const ref of refs) if (!known.has(`${ref.level}/${ref.index}`)) asked.push(`${ref.level}/${ref.index}`);
        return tree.nodes(refs);
      });
      expect(asked, `proof to ${size}`).toEqual([]);
    }
  });

  it('a path that does not prove the last record (an edited frontier, or another record) gives its leaf alone', async () => {
    const { checkpoint } = await headTree(6);
    const edited = { ...checkpoint, lastLeafPath: [recordHash(99), ...checkpoint.lastLeafPath.slice(1)] };
    expect([...knownLogNodes(edited, { seq: 5, recordHash: recordHash(5) }).keys()]).toEqual(['0/5']);
    expect([...knownLogNodes(checkpoint, { seq: 5, recordHash: recordHash(98) }).keys()]).toEqual(['0/5']);
    expect([...knownLogNodes(checkpoint, { seq: 3, recordHash: recordHash(3) }).keys()]).toEqual(['0/3']);
  });
});
