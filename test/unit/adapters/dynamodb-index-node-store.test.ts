import { type AttributeValue, BatchGetItemCommand, BatchWriteItemCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { DynamoDBIndexNodeStore, indexTileItem, indexTileOf } from '../../../adapters/dynamodb-index-node-store';
import type { DynamoDBSend } from '../../../adapters/dynamodb-send';
import { LineageKeys } from '../../../adapters/lineage-keys';
import { applyIndexUpdates } from '../../../shared/index/apply-index-updates';
import { entryKey, type IndexEntry } from '../../../shared/index/index-entry';
import { emptyIndexHash } from '../../../shared/index/index-hash';
import { decodeIndexTile, INDEX_TILE_LEVELS } from '../../../shared/index/index-tile';
import { proveIndexKey } from '../../../shared/index/prove-index-key';
import { hashIndexNode } from '../../../shared/index/read-index-node';
import {
  hexOf,
  lineageEntry,
  lineageValue,
  residualEntry,
  residualValue,
  updatesFor,
} from '../../helpers/index-factories';

const TABLE = 'reseal-table';
type Item = Record<string, AttributeValue>;

/**
 * A table in memory behind `send`, answering `BatchGetItem` and `BatchWriteItem`. An eventually
 * consistent read does not see the items in `lagging` yet; every read is recorded with its
 * `ConsistentRead`.
 */
function fakeTable() {
  const items = new Map<string, Item>();
  const lagging = new Set<string>();
  const reads: { consistent: boolean; keys: number }[] = [];
  const client: DynamoDBSend = {
    send: (async (command: unknown) => {
      if (command instanceof BatchGetItemCommand) {
        const request = command.input.RequestItems?.[TABLE];
        const consistent = request?.ConsistentRead === true;
        reads.push({ consistent, keys: request?.Keys?.length ?? 0 });
        const found = (request?.Keys ?? [])
          .map((key) => key.pk?.S as string)
          .filter((pk) => consistent || !lagging.has(pk))
          .map((pk) => items.get(pk))
          .filter((item): item is Item => item !== undefined);
        return { Responses: { [TABLE]: found } };
      }
      if (command instanceof BatchWriteItemCommand) {
        for (const request of command.input.RequestItems?.[TABLE] ?? []) {
          const item = request.PutRequest?.Item as Item;
          items.set(item.pk?.S as string, item);
        }
        return {};
      }
      throw new Error('unexpected command');
    }) as DynamoDBSend['send'],
  };
  return { client, items, lagging, reads };
}

const MAP: IndexEntry[] = Array.from({ length: 60 }, (_, i) =>
  i % 4 === 0
    ? lineageEntry(`lineage-${i}`, lineageValue(1 + i, `l${i}`))
    : residualEntry(`lineage-${i - (i % 4)}`, `r-${i}`, residualValue(i, `r${i}`)),
);

describe('DynamoDBIndexNodeStore (docs/deployment-log.md, "Storage")', () => {
  it(`stores tiles of ${INDEX_TILE_LEVELS} levels as one binary attribute under the root's hash, and proves from them`, async () => {
    const table = fakeTable();
    const store = new DynamoDBIndexNodeStore(table.client, TABLE);
    const { root, tilesWritten, nodesWritten } = await applyIndexUpdates(store, emptyIndexHash(), updatesFor(MAP));
    expect(table.items.size).toBe(tilesWritten);
    expect(tilesWritten).toBeLessThan(nodesWritten / 2);
    const rootItem = table.items.get(LineageKeys.indexNode(hexOf(root))) as Item;
    expect(Object.keys(rootItem).sort()).toEqual(['pk', 'sk', 'tile']);
    expect(hexOf(decodeIndexTile(rootItem.tile?.B as Uint8Array).root)).toBe(hexOf(root));
    for (const entry of MAP) {
      expect(await proveIndexKey(store, root, entryKey(entry))).toMatchObject({ kind: 'presence', entry });
    }
  });

  it('reads eventually consistent, and asks a tile the read missed once more with a consistent read', async () => {
    const table = fakeTable();
    const store = new DynamoDBIndexNodeStore(table.client, TABLE);
    const { root } = await applyIndexUpdates(store, emptyIndexHash(), updatesFor(MAP));
    table.reads.length = 0;
    table.lagging.add(LineageKeys.indexNode(hexOf(root)));
    const [tile, absent] = await store.getTiles([root, new Uint8Array(32).fill(7)]);
    expect(hexOf(decodeIndexTile(tile as Uint8Array).root)).toBe(hexOf(root));
    expect(absent).toBeUndefined();
    expect(table.reads).toEqual([
      { consistent: false, keys: 2 },
      { consistent: true, keys: 2 },
    ]);
    table.reads.length = 0;
    table.lagging.clear();
    await store.getTiles([root]);
    expect(table.reads).toEqual([{ consistent: false, keys: 1 }]);
  });

  it('still reads an index of one-node items (the form before tiles) and updates it with tiles', async () => {
    const table = fakeTable();
    // One node per item, as written before tiles: `node` = `I` + two hashes in hex, or `L` + the entry's JSON.
    const legacy = new DynamoDBIndexNodeStore(table.client, TABLE, { tileLevels: 1 });
    const first = await applyIndexUpdates(legacy, emptyIndexHash(), updatesFor(MAP.slice(0, 40)));
    for (const [pk, item] of table.items) {
      const node = decodeIndexTile(item.tile?.B as Uint8Array).nodes.get(
        Buffer.from(pk.slice(LineageKeys.indexNode('').length), 'hex').toString('latin1'),
      );
      if (node === undefined) throw new Error('a one-level tile holds its root');
      const text = node.kind === 'leaf' ? `L${JSON.stringify(node.entry)}` : `I${hexOf(node.left)}${hexOf(node.right)}`;
      table.items.set(pk, { pk: { S: pk }, sk: { S: LineageKeys.indexNodeSk }, node: { S: text } });
    }
    const store = new DynamoDBIndexNodeStore(table.client, TABLE);
    for (const entry of MAP.slice(0, 40)) {
      expect(await proveIndexKey(store, first.root, entryKey(entry))).toMatchObject({ kind: 'presence', entry });
    }
    const second = await applyIndexUpdates(store, first.root, updatesFor(MAP.slice(40)));
    for (const entry of MAP) {
      expect(await proveIndexKey(store, second.root, entryKey(entry))).toMatchObject({ kind: 'presence', entry });
    }
  });

  it('an item of neither form reads as no bytes, which the reader refuses as an edited node', async () => {
    const entry = MAP[1] as IndexEntry;
    const { hash } = hashIndexNode({ kind: 'leaf', entry });
    const table = fakeTable();
    const pk = LineageKeys.indexNode(hexOf(hash));
    table.items.set(pk, { pk: { S: pk }, sk: { S: LineageKeys.indexNodeSk }, node: { S: 'X' } });
    expect(indexTileOf(table.items.get(pk) as Item)).toEqual(new Uint8Array(0));
    const store = new DynamoDBIndexNodeStore(table.client, TABLE);
    await expect(proveIndexKey(store, hash, entryKey(entry))).rejects.toMatchObject({ corrupt: true });
    table.items.set(pk, indexTileItem(hash, new Uint8Array([1, 2])));
    await expect(proveIndexKey(store, hash, entryKey(entry))).rejects.toMatchObject({ corrupt: true });
  });
});
