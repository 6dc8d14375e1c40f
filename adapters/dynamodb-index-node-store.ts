import { BatchWriteItemCommand, type WriteRequest } from '@aws-sdk/client-dynamodb';
import { type IndexEntry, parseIndexEntry } from '../shared/index/index-entry';
import { encodeIndexNodeTile, INDEX_TILE_LEVELS } from '../shared/index/index-tile';
import type { IndexNode, IndexNodeStore, IndexTile } from '../shared/ports/index-node-store';
import { batchGetItems } from './batch-get-items';
import type { DynamoDBSend } from './dynamodb-send';
import { type Item, itemOf } from './item';
import { LineageKeys } from './lineage-keys';
import { readBinary, readString } from './read-attribute';
import { retryUnprocessed } from './retry-unprocessed';

/** Items per `BatchWriteItem` (the DynamoDB limit). */
const WRITE_LIMIT = 25;

/**
 * {@link IndexNodeStore} in the lineage table (docs/deployment-log.md, "Storage"): one item per
 * tile, `INDEX#<root hash hex>` / `NODE`, binary attribute `tile` (docs/verifiable-index.md,
 * "Tiles"), {@link INDEX_TILE_LEVELS} levels each. Still reads the items written before tiles,
 * one node per item in the text attribute `node` (`I` + two child hashes in hex, or `L` + the
 * leaf's entry as JSON), as the one-level tile of that node. Content-addressed: a tile is never
 * changed, and the reader (`IndexNodeReader`) hashes every tile it gets, so an edited item is a
 * missing node, never a different one. A malformed item reads as bytes the reader refuses.
 *
 * Reads are eventually consistent (half the read units): a tile is either absent or holds its
 * one content, so a stale read can only miss a tile just written; the keys a read misses are
 * asked again once with a strongly consistent read.
 */
export class DynamoDBIndexNodeStore implements IndexNodeStore {
  readonly #client: DynamoDBSend;
  readonly #tableName: string;
  readonly tileLevels: number;

  /** @param options.tileLevels - levels per tile written (default {@link INDEX_TILE_LEVELS}) */
  constructor(client: DynamoDBSend, tableName: string, options: { readonly tileLevels?: number } = {}) {
    this.#client = client;
    this.#tableName = tableName;
    this.tileLevels = options.tileLevels ?? INDEX_TILE_LEVELS;
  }

  async getTiles(roots: readonly Uint8Array[]): Promise<(Uint8Array | undefined)[]> {
    const hexes = roots.map((h) => Buffer.from(h).toString('hex'));
    const found = new Map<string, Uint8Array>();
    const unique = [...new Set(hexes)];
    await this.#read(unique, false, found);
    const missed = unique.filter((hex) => !found.has(hex));
    if (missed.length > 0) await this.#read(missed, true, found);
    return hexes.map((hex) => found.get(hex));
  }

  async #read(hexes: readonly string[], consistent: boolean, found: Map<string, Uint8Array>): Promise<void> {
    const keys = hexes.map((hex) => itemOf({ pk: LineageKeys.indexNode(hex), sk: LineageKeys.indexNodeSk }));
    for (const item of await batchGetItems(this.#client, this.#tableName, keys, { consistentRead: consistent })) {
      const pk = readString(item, 'pk') ?? '';
      found.set(pk.slice(LineageKeys.indexNode('').length), indexTileOf(item));
    }
  }

  async putTiles(tiles: readonly IndexTile[]): Promise<void> {
    const items = tiles.map(({ root, tile }) => indexTileItem(root, tile));
    const unique = [...new Map(items.map((item) => [item.pk?.S, item])).values()];
    for (let i = 0; i < unique.length; i += WRITE_LIMIT) {
      await retryUnprocessed<WriteRequest>(
        unique.slice(i, i + WRITE_LIMIT).map((Item) => ({ PutRequest: { Item } })),
        async (requests) => {
          const out = await this.#client.send(
            new BatchWriteItemCommand({ RequestItems: { [this.#tableName]: [...requests] } }),
          );
          return out.UnprocessedItems?.[this.#tableName] ?? [];
        },
        'index tile writes',
      );
    }
  }
}

/** The item of one index tile, `INDEX#<root hash hex>` / `NODE`, `tile` binary (docs/deployment-log.md, "Storage"). */
export function indexTileItem(root: Uint8Array, tile: Uint8Array): Item {
  return itemOf({ pk: LineageKeys.indexNode(Buffer.from(root).toString('hex')), sk: LineageKeys.indexNodeSk, tile });
}

/**
 * The tile an item stores, unverified (the reader decodes and re-hashes it): the `tile` attribute,
 * or an item of the one-node form as that node's one-level tile. An item holding neither reads
 * as an empty byte string, which the reader refuses as an edited tile.
 */
export function indexTileOf(item: Item): Uint8Array {
  const tile = readBinary(item, 'tile');
  if (tile !== undefined) return Uint8Array.from(tile);
  const node = legacyNodeOf(readString(item, 'node'));
  if (node === undefined) return new Uint8Array(0);
  try {
    return encodeIndexNodeTile(node);
  } catch {
    return new Uint8Array(0);
  }
}

/** A node of the one-node-per-item form, or `undefined` when the text is none. */
function legacyNodeOf(text: string | undefined): IndexNode | undefined {
  if (text !== undefined && /^I[0-9a-f]{128}$/.test(text)) {
    return {
      kind: 'interior',
      left: Uint8Array.from(Buffer.from(text.slice(1, 65), 'hex')),
      right: Uint8Array.from(Buffer.from(text.slice(65), 'hex')),
    };
  }
  if (text?.startsWith('L')) {
    try {
      return { kind: 'leaf', entry: parseIndexEntry(JSON.parse(text.slice(1))) as IndexEntry };
    } catch {
      return undefined;
    }
  }
  return undefined;
}
