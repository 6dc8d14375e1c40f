import type { IndexNode, IndexNodeStore } from '../ports/index-node-store';

type Written = { readonly hash: Uint8Array; readonly node: IndexNode };

/**
 * An {@link IndexNodeStore} over another that caches reads and holds writes back: the integrator
 * tries a batch of updates, drops the lineages the index refuses and tries again, and only the
 * last try's nodes are written (docs/deployment-log.md, "Integration", step 4). Cached nodes are
 * still checked against their address on every read (`readIndexNode`), so the cache adds no trust.
 */
export class StagedIndexNodeStore implements IndexNodeStore {
  readonly #inner: IndexNodeStore;
  readonly #cache = new Map<string, IndexNode | undefined>();
  #staged: readonly Written[] = [];

  constructor(inner: IndexNodeStore) {
    this.#inner = inner;
  }

  async getNodes(hashes: readonly Uint8Array[]): Promise<(IndexNode | undefined)[]> {
    const keyOf = (h: Uint8Array) => Buffer.from(h).toString('hex');
    const missing = hashes.filter((h) => !this.#cache.has(keyOf(h)));
    if (missing.length > 0) {
      const read = await this.#inner.getNodes(missing);
      for (const [i, h] of missing.entries()) this.#cache.set(keyOf(h), read[i]);
    }
    return hashes.map((h) => this.#cache.get(keyOf(h)));
  }

  /** Replaces the held-back writes with these (one try of a batch). */
  async putNodes(nodes: readonly Written[]): Promise<void> {
    this.#staged = [...nodes];
  }

  /** Nodes held back. */
  get staged(): number {
    return this.#staged.length;
  }

  /** Drops the held-back writes (a try that is not kept). */
  discard(): void {
    this.#staged = [];
  }

  /** Writes the held-back nodes to the store underneath, in one `putNodes` call (none when there are none). */
  async flush(): Promise<number> {
    const nodes = this.#staged;
    this.#staged = [];
    if (nodes.length > 0) await this.#inner.putNodes(nodes);
    return nodes.length;
  }
}
