import type { IndexEntry } from '../index/index-entry';

/**
 * One node of the verifiable index (docs/verifiable-index.md, "Node store"). A leaf keeps the
 * entry it commits to, so a proof of presence can hand the value back; its key path and entry
 * digest are recomputed from the entry. Hashes are 32 raw bytes.
 */
export type IndexNode =
  | { readonly kind: 'leaf'; readonly entry: IndexEntry }
  | { readonly kind: 'interior'; readonly left: Uint8Array; readonly right: Uint8Array };

/** One stored tile: its bytes (`encodeIndexTile`, docs/verifiable-index.md, "Tiles") under its root's hash. */
export interface IndexTile {
  /** The tile root's hash, 32 bytes: the tile's address. */
  readonly root: Uint8Array;
  /** The tile in its binary layout. */
  readonly tile: Uint8Array;
}

/**
 * Where the verifiable index keeps its nodes, in tiles (docs/verifiable-index.md, "Tiles"),
 * content-addressed: a tile is stored under its root's hash, never changed and never deleted, so
 * every root ever returned stays provable and a write is only ever a new tile. Adapters:
 * `MemoryIndexNodeStore` (shared/index) for tests and the bench, `DynamoDBIndexNodeStore`.
 * Readers (`IndexNodeReader`) hash every tile they get and compare the root with its address, so
 * a store the table writer can edit can hide nodes but not change them.
 */
export interface IndexNodeStore {
  /** Levels per tile the writer should spell out (≥ 1): a storage trade of item size for items per path. */
  readonly tileLevels: number;
  /**
   * The tiles stored under `roots` (32 bytes each), in the same order, `undefined` for a root not
   * stored. One call per batch of reads (one `BatchGetItem`, say).
   */
  getTiles(roots: readonly Uint8Array[]): Promise<(Uint8Array | undefined)[]>;
  /** Stores tiles under their roots; storing a tile again is harmless. One call per update. */
  putTiles(tiles: readonly IndexTile[]): Promise<void>;
}
