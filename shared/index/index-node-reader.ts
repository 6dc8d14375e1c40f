import { IndexNodeMissingError, InvalidInputError } from '../errors';
import type { IndexNodeStore } from '../ports/index-node-store';
import { hashKey } from './hash-key';
import { type CheckedIndexNode, decodeIndexTile } from './index-tile';

/**
 * The nodes of one walk of the index (docs/verifiable-index.md, "Tiles"), read a tile at a time
 * and each checked: a node not yet held is fetched as the tile stored under its hash, the tile is
 * decoded and hashed bottom-up, and its root must be the address asked for. Every node the tile
 * spells out is then held under the hash it was computed to have, so the nodes below come from
 * it without another read. A walk goes from the root down, so it reaches every node either inside
 * a tile it holds or as a reference, which is a tile's address. One reader per operation: it
 * holds every node it read (a few tiles per path) until dropped.
 */
export class IndexNodeReader {
  readonly #store: IndexNodeStore;
  readonly #nodes = new Map<string, CheckedIndexNode>();
  readonly #roots = new Set<string>();
  readonly #pending = new Map<string, Promise<void>>();

  constructor(store: IndexNodeStore) {
    this.#store = store;
  }

  /**
   * The node stored under `hash` (32 bytes, not the empty hash), checked.
   *
   * @throws {IndexNodeMissingError} when no tile holds it, or the tile stored under its hash is
   *   malformed or hashes to another root (`corrupt: true`)
   * @throws what the store throws
   */
  async read(hash: Uint8Array): Promise<CheckedIndexNode> {
    const key = hashKey(hash);
    const held = this.#nodes.get(key);
    if (held !== undefined) return held;
    let fetching = this.#pending.get(key);
    if (fetching === undefined) {
      fetching = this.#fetch(hash, key);
      this.#pending.set(key, fetching);
    }
    try {
      await fetching;
    } finally {
      this.#pending.delete(key);
    }
    return this.#nodes.get(key) as CheckedIndexNode;
  }

  /** The node under `hash` when this reader already holds it (read, or spelled out by a tile it read). */
  held(hash: Uint8Array): CheckedIndexNode | undefined {
    return this.#nodes.get(hashKey(hash));
  }

  /** Whether `hash` was read as a tile's root, so a store holds it as its own tile. */
  isTileRoot(hash: Uint8Array): boolean {
    return this.#roots.has(hashKey(hash));
  }

  async #fetch(hash: Uint8Array, key: string): Promise<void> {
    const address = Buffer.from(hash).toString('hex');
    const [tile] = await this.#store.getTiles([hash]);
    if (tile === undefined) throw new IndexNodeMissingError(address, false);
    let decoded: ReturnType<typeof decodeIndexTile>;
    try {
      decoded = decodeIndexTile(tile);
    } catch (error) {
      if (!(error instanceof InvalidInputError)) throw error;
      throw new IndexNodeMissingError(address, true, { cause: error });
    }
    if (Buffer.compare(decoded.root, hash) !== 0) throw new IndexNodeMissingError(address, true);
    for (const [k, node] of decoded.nodes) this.#nodes.set(k, node);
    this.#roots.add(key);
  }
}
