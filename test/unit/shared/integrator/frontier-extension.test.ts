import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { LineageIndexValue } from '../../../../shared/index/index-entry';
import { checkFrontierExtension } from '../../../../shared/integrator/frontier-extension';
import { appendLeaf } from '../../../../shared/log/append-leaf';
import { frontierRoot } from '../../../../shared/log/frontier-root';
import { leafHash } from '../../../../shared/log/merkle-hash';

const recordHash = (seq: number) => createHash('sha256').update(`record ${seq}`).digest('hex');
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

/** The tree of records 0 … size − 1: its frontier (hex) and its value as the index would hold it. */
function tree(size: number, hashOf: (seq: number) => string = recordHash) {
  let frontier: Uint8Array[] = [];
  for (let seq = 0; seq < size; seq += 1) {
    frontier = appendLeaf(frontier, seq, leafHash(Buffer.from(hashOf(seq), 'hex'))).frontier;
  }
  const value: LineageIndexValue = {
    treeSize: size,
    rootHash: hex(frontierRoot(frontier)),
    headRecordHash: size === 0 ? '' : hashOf(size - 1),
    generationEpoch: 1,
    writerPolicyDigest: null,
  };
  return { frontier: frontier.map(hex), value };
}

const since = (from: number, to: number) =>
  Array.from({ length: to - from }, (_, i) => ({ seq: from + i, recordHash: recordHash(from + i) }));

describe('checkFrontierExtension (docs/deployment-log.md, "A warm integrator")', () => {
  it('the indexed frontier extended by every record since gives the stored root: proven, for every pair of sizes', () => {
    for (let m = 1; m <= 9; m += 1) {
      for (let n = m; n <= 12; n += 1) {
        const held = tree(m);
        expect(checkFrontierExtension(held.value, held.frontier, since(m, n), tree(n).value)).toBeNull();
      }
    }
    // A lineage the index does not hold extends the empty tree.
    expect(checkFrontierExtension(null, [], since(0, 5), tree(5).value)).toBeNull();
  });

  it('a frontier that does not hash to the indexed root, or a non-empty one for a lineage the index does not hold: refused', () => {
    const held = tree(6);
    const edited = [...held.frontier];
    edited[1] = 'ab'.repeat(32);
    expect(checkFrontierExtension(held.value, edited, since(6, 9), tree(9).value)).toMatch(/indexed root/);
    expect(checkFrontierExtension(null, held.frontier, since(0, 9), tree(9).value)).toMatch(/indexed root/);
    expect(checkFrontierExtension(held.value, held.frontier.slice(1), since(6, 9), tree(9).value)).not.toBeNull();
    expect(checkFrontierExtension(held.value, ['zz', ...held.frontier.slice(1)], since(6, 9), tree(9).value)).toMatch(
      /malformed/,
    );
  });

  it('a frontier of another shape that still hashes to the indexed root (the root alone): refused, with or without records', () => {
    const held = tree(6);
    const rootAlone = [held.value.rootHash];
    expect(checkFrontierExtension(held.value, rootAlone, [], held.value)).toMatch(/one-bit/);
    expect(checkFrontierExtension(held.value, rootAlone, since(6, 8), tree(8).value)).toMatch(/one-bit/);
  });

  it('a missing, repeated or edited record, or a stored head of another history: refused', () => {
    const held = tree(5);
    const head = tree(9).value;
    const records = since(5, 9);
    expect(checkFrontierExtension(held.value, held.frontier, records.slice(0, 3), head)).toMatch(/needed/);
    expect(
      checkFrontierExtension(
        held.value,
        held.frontier,
        [...records.slice(0, 1), ...records.slice(0, 1), ...records.slice(2)],
        head,
      ),
    ).toMatch(/missing/);
    const edited = records.map((r) => (r.seq === 7 ? { ...r, recordHash: recordHash(70) } : r));
    expect(checkFrontierExtension(held.value, held.frontier, edited, head)).toMatch(/stored root/);
    const fork = tree(9, (seq) => (seq === 2 ? recordHash(20) : recordHash(seq))).value;
    expect(checkFrontierExtension(held.value, held.frontier, records, fork)).toMatch(/stored root/);
    expect(checkFrontierExtension(held.value, held.frontier, [], tree(4).value)).toMatch(/smaller/);
  });
});
