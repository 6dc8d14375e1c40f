import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBIndexNodeStore } from '../adapters/dynamodb-index-node-store';
import { CachedIndexNodeStore } from '../shared/index/cached-index-node-store';
import type { IndexNodeStore } from '../shared/ports/index-node-store';

/** Tiles a client keeps ({@link clientTileCache}): tiles of 4 levels are under 1 KB, so about 2 MB. */
export const CLIENT_TILE_CACHE_TILES = 2_048;

/**
 * The index tiles a client reads, from the table behind a bounded cache (`CachedIndexNodeStore`,
 * docs/verifiable-index.md, "Tiles"): a tile is content-addressed and decoded against its address
 * on every use, so a kept one adds no trust, and the paths of a lineage and of a residual id, or of
 * one lineage across the polls of a wait and successive recalls, read their shared upper tiles once.
 */
export function clientTileCache(dynamodb: DynamoDBClient, tableName: string): IndexNodeStore {
  return new CachedIndexNodeStore(new DynamoDBIndexNodeStore(dynamodb, tableName), CLIENT_TILE_CACHE_TILES);
}
