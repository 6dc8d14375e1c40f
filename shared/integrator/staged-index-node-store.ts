import type { IndexNodeStore, IndexTile } from '../ports/index-node-store';

/**
 * An {@link IndexNodeStore} over another that caches reads and holds writes back: the integrator
 * tries a batch of updates, drops the lineages the index refuses and tries again, and only the
 * last try's tiles are written (docs/deployment-log.md, "Integration", step 4). Cached tiles are
 * still decoded and hashed against their address on every read (`IndexNodeReader`), so the cache
 * adds no trust.
 */
export class StagedIndexNodeStore implements IndexNodeStore {
  readonly #inner: IndexNodeStore;
  readonly #cache = new Map<string, Uint8Array | undefined>();
  #staged: readonly IndexTile[] = [];

  constructor(inner: IndexNodeStore) {
    this.#inner = inner;
  }

  get tileLevels(): number {
    return this.#inner.tileLevels;
  }

  async getTiles(roots: readonly Uint8Array[]): Promise<(Uint8Array | undefined)[]> {
    const keyOf = (h: Uint8Array) => Buffer.from(h).toString('hex');
    const missing = roots.filter((h) => !this.#cache.has(keyOf(h)));
    if (missing.length > 0) {
      const read = await this.#inner.getTiles(missing);
      for (const [i, h] of missing.entries()) this.#cache.set(keyOf(h), read[i]);
    }
    return roots.map((h) => this.#cache.get(keyOf(h)));
  }

  /** Replaces the held-back writes with these (one try of a batch). */
  async putTiles(tiles: readonly IndexTile[]): Promise<void> {
    this.#staged = [...tiles];
  }

  /** Tiles held back. */
  get staged(): number {
    return this.#staged.length;
  }

  /** Drops the held-back writes (a try that is not kept). */
  discard(): void {
    this.#staged = [];
  }

  /** Writes the held-back tiles to the store underneath, in one `putTiles` call (none when there are none). */
  async flush(): Promise<number> {
    const tiles = this.#staged;
    this.#staged = [];
    if (tiles.length > 0) await this.#inner.putTiles(tiles);
    return tiles.length;
  }
}
