import type { ManifestCache } from '../ports/manifest-cache';

/**
 * A {@link ManifestCache} in this process's memory: a long-lived client's (SDK, MCP server).
 * Bounded by count, the least recently used out first; each manifest is cloned in and out, so a
 * caller's edit of a record never reaches the kept copy.
 */
export class MemoryManifestCache implements ManifestCache {
  readonly #entries = new Map<string, unknown>();
  readonly #maxEntries: number;

  /** @param maxEntries - manifests kept at most (≥ 0; 0 keeps none) */
  constructor(maxEntries: number) {
    this.#maxEntries = Math.max(0, maxEntries);
  }

  /** Manifests kept now. */
  get size(): number {
    return this.#entries.size;
  }

  async get(key: string): Promise<unknown> {
    if (!this.#entries.has(key)) return undefined;
    const manifest = this.#entries.get(key);
    this.#entries.delete(key);
    this.#entries.set(key, manifest);
    return structuredClone(manifest);
  }

  async set(key: string, manifest: unknown): Promise<void> {
    this.#entries.delete(key);
    this.#entries.set(key, structuredClone(manifest));
    while (this.#entries.size > this.#maxEntries) this.#entries.delete(this.#entries.keys().next().value as string);
  }

  async delete(key: string): Promise<void> {
    this.#entries.delete(key);
  }
}
