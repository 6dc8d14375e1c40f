import type { IndexEntry } from '../index/index-entry';

/**
 * One stored node of the verifiable index (docs/verifiable-index.md, "Node store"). A leaf keeps
 * the entry it commits to, so a proof of presence can hand the value back; its key path and entry
 * digest are recomputed from the entry. Hashes are 32 raw bytes.
 */
export type IndexNode =
  | { readonly kind: 'leaf'; readonly entry: IndexEntry }
  | { readonly kind: 'interior'; readonly left: Uint8Array; readonly right: Uint8Array };

/**
 * Where the verifiable index keeps its nodes, content-addressed: a node is stored under its own
 * hash, never changed and never deleted, so every root ever returned stays provable and a write
 * is only ever a new node. Adapters: `MemoryIndexNodeStore` (shared/index) for tests and the
 * bench; a DynamoDB or S3 store later. Readers check each node against its address, so a store
 * the table writer can edit can hide nodes but not change them.
 */
export interface IndexNodeStore {
  /**
   * The nodes stored under `hashes` (32 bytes each), in the same order, `undefined` for a hash
   * not stored. One call per batch of reads (one `BatchGetItem`, say).
   */
  getNodes(hashes: readonly Uint8Array[]): Promise<(IndexNode | undefined)[]>;
  /** Stores nodes under their hashes; storing a node again is harmless. One call per update. */
  putNodes(nodes: readonly { readonly hash: Uint8Array; readonly node: IndexNode }[]): Promise<void>;
}
