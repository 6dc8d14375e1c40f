import type { HexDigest } from '../canonical/digest';
import type { Checkpoint } from './checkpoint';
import { leafHash } from './merkle-hash';
import type { NodeRef } from './node-ref';
import { popCount } from './pop-count';
import { verifyInclusion } from './verify-inclusion';

/** Tree nodes a reader holds without a table read, by {@link nodeKey}: each a hash the proof it enters is checked with. */
export type KnownLogNodes = ReadonlyMap<string, HexDigest>;

/** The key of a node in {@link KnownLogNodes}. */
export const nodeKey = (ref: NodeRef): string => `${ref.level}/${ref.index}`;

/**
 * The nodes a proven record and the tree it was proven in give for free (docs/verifiable-log.md,
 * "Stored state"), so a consistency proof from or to that tree reads no record item for them:
 * the record's own leaf (`leafHash` of its record hash), and, when it is the tree's last leaf and
 * the head item's `lastLeafPath` proves it against the tree's root, that path's nodes (the
 * frontier of the first `size − 1` leaves: the perfect subtrees left of the last leaf, largest
 * first). A path that does not prove the leaf gives nothing, so a frontier a table writer edited
 * never stands in for the table's nodes; every node still enters a proof checked against the roots.
 */
export function knownLogNodes(
  tree: Checkpoint & { readonly lastLeafPath?: readonly string[] },
  record: { readonly seq: number; readonly recordHash: HexDigest },
): KnownLogNodes {
  const known = new Map<string, HexDigest>();
  const leaf = leafHash(Buffer.from(record.recordHash, 'hex'));
  known.set(nodeKey({ level: 0, index: record.seq }), Buffer.from(leaf).toString('hex'));
  const path = tree.lastLeafPath;
  const left = tree.size - 1;
  if (!path || record.seq !== left || path.length !== popCount(left)) return known;
  const proven = verifyInclusion({
    leafIndex: left,
    treeSize: tree.size,
    leafHash: leaf,
    proof: path.map((h) => Buffer.from(h, 'hex')),
    rootHash: tree.rootHash,
  });
  if (!proven) return known;
  // The path runs leaf side first: the smallest subtree left of the last leaf, up to the largest.
  const frontier = [...path].reverse();
  let start = 0;
  let i = 0;
  for (let level = Math.floor(Math.log2(Math.max(left, 1))) + 1; level >= 0; level--) {
    const width = 2 ** level;
    if (start + width > left) continue;
    known.set(nodeKey({ level, index: start / width }), frontier[i++] as HexDigest);
    start += width;
  }
  return known;
}
