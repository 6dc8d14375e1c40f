import { InvalidInputError, MerkleNodeMissingError } from '../errors';
import { appendLeaf } from './append-leaf';
import { leafHash } from './merkle-hash';
import type { NodeRef, NodeSource } from './node-ref';
import { rangeRoot } from './range-root';
import { subtreeRefs } from './subtree-refs';

/**
 * An RFC 9162 Merkle tree held in memory, for tests, the demo and benchmarks: it keeps every
 * node {@link appendLeaf} completes (about 2n hashes, O(n) memory), exactly as a persistent store
 * would, and answers proofs through {@link MemoryMerkleTree.nodes}.
 *
 * @example
 * const tree = new MemoryMerkleTree();
 * tree.append(recordHashBytes);                    // leaf 0
 * const proof = await proveInclusion(0, tree.size, tree.nodes);
 */
export class MemoryMerkleTree {
  /** `#levels[level][index]` = hash of that perfect subtree. */
  readonly #levels: Uint8Array[][] = [];
  #frontier: Uint8Array[] = [];
  #size = 0;

  /** Number of leaves. */
  get size(): number {
    return this.#size;
  }

  /** The current frontier (hashes of `subtreeRefs(0, size)`), copied. */
  get frontier(): Uint8Array[] {
    return this.#frontier.map((hash) => hash.slice());
  }

  /**
   * Appends a leaf (its bytes; hashed here with {@link leafHash}).
   * @returns the new leaf's index
   */
  append(leaf: Uint8Array): number {
    return this.appendLeafHash(leafHash(leaf));
  }

  /**
   * Appends an already hashed leaf.
   * @returns the new leaf's index
   * @throws {InvalidInputError} when `hash` is not 32 bytes
   */
  appendLeafHash(hash: Uint8Array): number {
    const { frontier, completed } = appendLeaf(this.#frontier, this.#size, hash);
    for (const node of completed) {
      const level = this.#levels[node.level] ?? [];
      level[node.index] = node.hash;
      this.#levels[node.level] = level;
    }
    this.#frontier = frontier;
    this.#size += 1;
    return this.#size - 1;
  }

  /**
   * Root of the tree of the first `size` leaves, from stored nodes (any earlier size works).
   * @throws {InvalidInputError} unless 0 ≤ size ≤ {@link size}
   */
  root(size: number = this.#size): Uint8Array {
    if (!Number.isSafeInteger(size) || size < 0 || size > this.#size) {
      throw new InvalidInputError('tree size', [
        { path: '', message: `expected 0…${this.#size}, got ${String(size)}` },
      ]);
    }
    return rangeRoot(subtreeRefs(0, size).map((ref) => this.#node(ref)));
  }

  /** {@link NodeSource} over the stored nodes; rejects with {@link MerkleNodeMissingError} for a node not (yet) complete. */
  readonly nodes: NodeSource = async (refs) => refs.map((ref) => this.#node(ref).slice());

  #node(ref: NodeRef): Uint8Array {
    const hash = this.#levels[ref.level]?.[ref.index];
    if (hash === undefined) throw new MerkleNodeMissingError(ref.level, ref.index);
    return hash;
  }
}
