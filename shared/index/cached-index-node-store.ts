import type { IndexNodeStore, IndexTile } from '../ports/index-node-store';
import { decodeIndexTile } from './index-tile';

/** Default bound of {@link CachedIndexNodeStore}: tiles of 4 levels are under 1 KB, so about 16 MB. */
export const INDEX_TILE_CACHE_TILES = 16_384;

/**
 * A warm cache of tiles in front of a node store, for a Lambda that lives across invocations
 * (docs/verifiable-index.md, "Tiles"): bounded (least recently used out first), keyed by the
 * tile's root hash. Safe to keep for as long as the process lives, because a tile is
 * content-addressed: the bytes stored under a root never change, and every reader decodes and
 * hashes the tile against its address on every use (`IndexNodeReader`), so a cached tile adds no
 * trust. Only tiles found that decode to their own address are kept (a tile not found may be
 * written a moment later, and a corrupt one repaired); tiles
 * written through it are kept too, so the integrator's next run reads its own upper levels from
 * memory.
 */
export class CachedIndexNodeStore implements IndexNodeStore {
  readonly #inner: IndexNodeStore;
  readonly #maxTiles: number;
  readonly #tiles = new Map<string, Uint8Array>();
  /** Tiles answered from the cache, since construction. */
  hits = 0;
  /** Tiles asked of the store underneath, since construction. */
  misses = 0;

  /** @param maxTiles - tiles kept at most (≥ 0; default {@link INDEX_TILE_CACHE_TILES}) */
  constructor(inner: IndexNodeStore, maxTiles = INDEX_TILE_CACHE_TILES) {
    this.#inner = inner;
    this.#maxTiles = Math.max(0, maxTiles);
  }

  get tileLevels(): number {
    return this.#inner.tileLevels;
  }

  async getTiles(roots: readonly Uint8Array[]): Promise<(Uint8Array | undefined)[]> {
    const keys = roots.map((root) => Buffer.from(root).toString('hex'));
    const missing = roots.filter((_, i) => !this.#touch(keys[i] as string));
    this.hits += roots.length - missing.length;
    this.misses += missing.length;
    const read = missing.length > 0 ? await this.#inner.getTiles(missing) : [];
    const fetched = new Map<string, Uint8Array | undefined>();
    missing.forEach((root, i) => {
      const key = Buffer.from(root).toString('hex');
      const tile = read[i];
      fetched.set(key, tile);
      // Only a tile that decodes to its own address is kept: a corrupt item is read again from the
      // store next time, so the operator's repair is seen at once (an edited tile is never cached).
      if (tile !== undefined && decodesTo(tile, root)) this.#keep(key, tile);
    });
    return keys.map((key) => {
      if (fetched.has(key)) return fetched.get(key);
      const held = this.#tiles.get(key);
      return held === undefined ? undefined : Uint8Array.from(held);
    });
  }

  async putTiles(tiles: readonly IndexTile[]): Promise<void> {
    await this.#inner.putTiles(tiles);
    for (const { root, tile } of tiles) this.#keep(Buffer.from(root).toString('hex'), tile);
  }

  /** Tiles held. */
  get size(): number {
    return this.#tiles.size;
  }

  /** Whether `key` is held; marks it most recently used. */
  #touch(key: string): boolean {
    const tile = this.#tiles.get(key);
    if (tile === undefined) return false;
    this.#tiles.delete(key);
    this.#tiles.set(key, tile);
    return true;
  }

  #keep(key: string, tile: Uint8Array): void {
    if (this.#maxTiles === 0) return;
    this.#tiles.delete(key);
    this.#tiles.set(key, Uint8Array.from(tile));
    while (this.#tiles.size > this.#maxTiles) this.#tiles.delete(this.#tiles.keys().next().value as string);
  }
}

/** Whether `tile` decodes (strictly) to a tile whose root hash is `root`. */
function decodesTo(tile: Uint8Array, root: Uint8Array): boolean {
  try {
    return Buffer.from(decodeIndexTile(tile).root).equals(Buffer.from(root));
  } catch {
    return false;
  }
}
