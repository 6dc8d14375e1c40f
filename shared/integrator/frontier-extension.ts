import { ResealError } from '../errors';
import type { LineageIndexValue } from '../index/index-entry';
import { appendLeaf } from '../log/append-leaf';
import { frontierRoot } from '../log/frontier-root';
import { hashesEqual } from '../log/hashes-equal';
import { leafHash } from '../log/merkle-hash';
import { popCount } from '../log/pop-count';

/** A record since the indexed head as the extension needs it: its seq and its recomputed record hash (64 hex). */
export interface ExtendedRecord {
  readonly seq: number;
  readonly recordHash: string;
}

/**
 * Whether the records since the indexed head, appended leaf by leaf to the compact range
 * ("frontier", RFC 9162 §2.1) of the indexed tree, give the stored head's tree
 * (docs/deployment-log.md, "Integration", "A warm integrator"). When they do, the stored tree's
 * first `held.treeSize` leaves are the indexed tree's (its consistency) and its later leaves are
 * exactly these records (each one's inclusion), as far as SHA-256 resists collisions: the root
 * binds every leaf. No tree node of the table is needed, so none is read.
 *
 * Everything is checked here, nothing taken from the caller: the frontier must have one hash per
 * one-bit of the indexed size and hash to the indexed root (a lineage the index does not hold
 * starts from the empty tree, frontier `[]`), the records must be every seq from the indexed size
 * to `head.treeSize − 1` in order, and the extended root must equal `head.rootHash`.
 *
 * @param held - the lineage's entry the index holds (authenticated), or `null`
 * @param frontier - the indexed tree's compact range, hex, left to right
 * @param records - every record since the indexed head, in seq order
 * @param head - the stored head, authenticated
 * @returns `null` when the extension proves the records and the stored head; else why not
 */
export function checkFrontierExtension(
  held: LineageIndexValue | null,
  frontier: readonly string[],
  records: readonly ExtendedRecord[],
  head: LineageIndexValue,
): string | null {
  const from = held?.treeSize ?? 0;
  if (head.treeSize < from) return `the stored head (size ${head.treeSize}) is smaller than the indexed one (${from})`;
  if (records.length !== head.treeSize - from) {
    return `records ${from} to ${head.treeSize - 1} are needed; ${records.length} were given`;
  }
  try {
    let hashes = frontier.map(bytesOf);
    if (held === null ? hashes.length !== 0 : !hashesEqual(frontierRoot(hashes), bytesOf(held.rootHash))) {
      return `the frontier does not hash to the indexed root at size ${from}`;
    }
    // Checked here, not left to `appendLeaf`: with no record to append, nothing else would.
    if (frontier.length !== popCount(from)) {
      return `the frontier has ${frontier.length} hashes; a tree of ${from} leaves has one per one-bit of its size (${popCount(from)})`;
    }
    for (const [i, record] of records.entries()) {
      if (record.seq !== from + i) return `seq ${from + i} is missing (seq ${record.seq} was given there)`;
      hashes = appendLeaf(hashes, record.seq, leafHash(bytesOf(record.recordHash))).frontier;
    }
    if (!hashesEqual(frontierRoot(hashes), bytesOf(head.rootHash))) {
      return `the records ${from} to ${head.treeSize - 1} do not extend the indexed tree to the stored root`;
    }
  } catch (error) {
    // A hash of the wrong length, or a frontier that does not fit its size.
    if (error instanceof ResealError) return `the frontier or a record hash is malformed: ${error.message}`;
    throw error;
  }
  return null;
}

/** Hex to bytes; a malformed string gives the wrong length, which `appendLeaf` and `hashesEqual` refuse. */
const bytesOf = (h: string): Uint8Array => Uint8Array.from(Buffer.from(h, 'hex'));
