/**
 * Largest manifest a {@link ManifestCache} is given, in UTF-8 bytes of its canonical JSON: bounds
 * a client's memory or disk. Bytes, not UTF-16 code units: a manifest's keys may be any Unicode,
 * up to three bytes a unit.
 */
export const MAX_KEPT_MANIFEST_BYTES = 64 * 1024;

/**
 * Where a client keeps the manifests its record reads proved (docs/pipeline.md, "Learning the
 * outcome of a write"), keyed by the manifest item's key (`MANIFEST#<lineageId>#<digest>`: the
 * lineage id is any string the caller named, so a key is never trusted as a name). A manifest item
 * is content-addressed and a record names its digest, so a kept one is the item's bytes or
 * useless: the chain store keeps only a manifest that hashes to that digest and is at most
 * {@link MAX_KEPT_MANIFEST_BYTES}, and uses one it gets back only once it hashes to the digest
 * again, so a kept copy edited by anyone adds no trust (it costs one read of the item).
 * Implementations never throw: a cache that cannot read or write answers as if it kept nothing.
 */
export interface ManifestCache {
  /** The manifest kept under `key` (a copy the caller may change), or `undefined`. */
  get(key: string): Promise<unknown>;
  /** Keeps `manifest` under `key`, in place of any other; the cache's bound may drop the least recently used. */
  set(key: string, manifest: unknown): Promise<void>;
  /** Forgets `key` (its manifest no longer hashes to the digest the key names). */
  delete(key: string): Promise<void>;
}
