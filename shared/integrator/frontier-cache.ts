import type { LineageIndexValue } from '../index/index-entry';

/** How many lineages a {@link FrontierCache} keeps by default. */
export const FRONTIER_CACHE_LINEAGES = 10_000;

/** A lineage's tree as a warm integrator last saw the index hold it. */
export interface CachedFrontier {
  /** Leaves. */
  readonly treeSize: number;
  /** The tree's root, 64 lowercase hex. */
  readonly rootHash: string;
  /** Its compact range (RFC 9162 §2.1), hex, left to right: one hash per one-bit of `treeSize`. */
  readonly frontier: readonly string[];
}

/**
 * A warm integrator's memory of each lineage's compact range, least recently used dropped first
 * (docs/deployment-log.md, "Integration", "A warm integrator"). A hint, never evidence: a frontier
 * is offered only for the exact size and root the index holds, and `integrate` recomputes its root
 * and extends it before it proves anything (`checkFrontierExtension`), so an entry that is stale,
 * of a lost commit or edited in memory costs a fallback to the proofs, never a wrong decision.
 *
 * Memory: one hash (64-character string, about 100 bytes in V8) per one-bit of the size, at most 20
 * for a lineage under a million records, so about 2.5 KB a lineage with the map's overhead, about
 * 25 MB for the default {@link FRONTIER_CACHE_LINEAGES}.
 */
export class FrontierCache {
  readonly #entries = new Map<string, CachedFrontier>();
  readonly #capacity: number;

  /** @param capacity - lineages kept, ≥ 1 */
  constructor(capacity: number = FRONTIER_CACHE_LINEAGES) {
    this.#capacity = Math.max(1, Math.floor(capacity));
  }

  /** The frontier kept for `lineageId` when it is of exactly the held size and root, else `null`. */
  frontierOf(lineageId: string, held: LineageIndexValue): readonly string[] | null {
    const entry = this.#entries.get(lineageId);
    if (!entry || entry.treeSize !== held.treeSize || entry.rootHash !== held.rootHash) return null;
    this.#entries.delete(lineageId);
    this.#entries.set(lineageId, entry);
    return entry.frontier;
  }

  /** Keeps `tree` for `lineageId` (replacing what was kept), dropping the least recently used lineage when full. */
  remember(lineageId: string, tree: CachedFrontier): void {
    this.#entries.delete(lineageId);
    this.#entries.set(lineageId, { treeSize: tree.treeSize, rootHash: tree.rootHash, frontier: [...tree.frontier] });
    if (this.#entries.size > this.#capacity) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
  }

  /** Lineages kept. */
  get size(): number {
    return this.#entries.size;
  }
}
