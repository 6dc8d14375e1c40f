import type { IndexNode, IndexNodeStore, IndexTile } from '../ports/index-node-store';
import { encodeIndexNodeTile } from './index-tile';

const latin1 = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');

/**
 * The {@link IndexNodeStore} in memory, for tests, the demo and the bench. Tiles are kept as
 * latin1 strings of their bytes, so 10^6 keys fit in a few hundred MB (bench/RESULTS.md). Counts
 * the tiles read and written.
 */
export class MemoryIndexNodeStore implements IndexNodeStore {
  readonly #tiles = new Map<string, string>();
  /**
   * Levels per tile the index writes here. Tests may change it between updates, to mix tile
   * heights as a deployment that moves from one node per item to tiles does.
   */
  tileLevels: number;
  /** Tiles asked for through {@link getTiles}, since construction. */
  reads = 0;
  /** Tiles written through {@link putTiles}, since construction (a tile written twice counts twice). */
  writes = 0;
  /** Bytes of the tiles written through {@link putTiles}, since construction. */
  bytesWritten = 0;
  /** Calls to {@link putTiles}. */
  putCalls = 0;

  /**
   * @param options.tileLevels - levels per tile the index writes here (default 1: one node per
   *   tile, the finest grain, so a test can hide or edit any single node)
   */
  constructor(options: { readonly tileLevels?: number } = {}) {
    this.tileLevels = options.tileLevels ?? 1;
  }

  /** Tiles stored. */
  get size(): number {
    return this.#tiles.size;
  }

  async getTiles(roots: readonly Uint8Array[]): Promise<(Uint8Array | undefined)[]> {
    this.reads += roots.length;
    return roots.map((root) => {
      const stored = this.#tiles.get(latin1(root));
      return stored === undefined ? undefined : Uint8Array.from(Buffer.from(stored, 'latin1'));
    });
  }

  async putTiles(tiles: readonly IndexTile[]): Promise<void> {
    this.putCalls += 1;
    this.writes += tiles.length;
    for (const { root, tile } of tiles) {
      this.bytesWritten += tile.byteLength;
      this.#tiles.set(latin1(root), latin1(tile));
    }
  }

  /** Every tile stored, with its root (tests, the bench). */
  *entries(): IterableIterator<IndexTile> {
    for (const [root, tile] of this.#tiles) {
      yield { root: Uint8Array.from(Buffer.from(root, 'latin1')), tile: Uint8Array.from(Buffer.from(tile, 'latin1')) };
    }
  }

  /**
   * Replaces what is stored under `hash` (tests: the table writer editing an item): a tile of the
   * one node given (`encodeIndexNodeTile`), raw tile bytes, or nothing. The index notices on its
   * next read of that tile.
   */
  tamper(hash: Uint8Array, content: IndexNode | Uint8Array | undefined): void {
    const key = latin1(hash);
    if (content === undefined) this.#tiles.delete(key);
    else this.#tiles.set(key, latin1(content instanceof Uint8Array ? content : encodeIndexNodeTile(content)));
  }
}
