import type { IndexNode, IndexNodeStore } from '../ports/index-node-store';
import type { IndexEntry } from './index-entry';

const INTERIOR = 'I';
const LEAF = 'L';

/** A node as one string: `I` and 64 raw bytes (latin1), or `L` and the entry's JSON. */
const encode = (node: IndexNode): string =>
  node.kind === 'leaf'
    ? LEAF + JSON.stringify(node.entry)
    : INTERIOR + Buffer.concat([node.left, node.right]).toString('latin1');

/**
 * The {@link IndexNodeStore} in memory, for tests, the demo and the bench. Nodes are kept as
 * compact strings (an interior node as its 64 raw bytes, a leaf as its entry's JSON), so
 * 10^6 keys fit in a few hundred MB (bench/RESULTS.md). Counts the nodes read and written.
 */
export class MemoryIndexNodeStore implements IndexNodeStore {
  readonly #nodes = new Map<string, string>();
  /** Nodes asked for through {@link getNodes}, since construction. */
  reads = 0;
  /** Nodes written through {@link putNodes}, since construction (a node written twice counts twice). */
  writes = 0;
  /** Calls to {@link putNodes}. */
  putCalls = 0;

  /** Nodes stored. */
  get size(): number {
    return this.#nodes.size;
  }

  async getNodes(hashes: readonly Uint8Array[]): Promise<(IndexNode | undefined)[]> {
    this.reads += hashes.length;
    return hashes.map((hash) => {
      const stored = this.#nodes.get(Buffer.from(hash).toString('latin1'));
      if (stored === undefined) return undefined;
      if (stored[0] === LEAF) return { kind: 'leaf', entry: JSON.parse(stored.slice(1)) as IndexEntry };
      const bytes = Buffer.from(stored.slice(1), 'latin1');
      return { kind: 'interior', left: bytes.subarray(0, 32), right: bytes.subarray(32, 64) };
    });
  }

  async putNodes(nodes: readonly { readonly hash: Uint8Array; readonly node: IndexNode }[]): Promise<void> {
    this.putCalls += 1;
    this.writes += nodes.length;
    for (const { hash, node } of nodes) this.#nodes.set(Buffer.from(hash).toString('latin1'), encode(node));
  }

  /**
   * Replaces what is stored under `hash` (tests: the table writer editing a node). The index
   * notices on its next read of that node.
   */
  tamper(hash: Uint8Array, node: IndexNode | undefined): void {
    const key = Buffer.from(hash).toString('latin1');
    if (node === undefined) this.#nodes.delete(key);
    else this.#nodes.set(key, encode(node));
  }
}
