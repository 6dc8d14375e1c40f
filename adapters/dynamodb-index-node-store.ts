import { BatchGetItemCommand, BatchWriteItemCommand } from '@aws-sdk/client-dynamodb';
import type { IndexEntry } from '../shared/index/index-entry';
import type { IndexNode, IndexNodeStore } from '../shared/ports/index-node-store';
import { type Item, itemOf, readString } from './dynamodb-item-codec';
import type { DynamoDBSend } from './dynamodb-table';
import { Keys } from './dynamodb-table-keys';

/** Keys per `BatchGetItem` and items per `BatchWriteItem` (the DynamoDB limits). */
const GET_LIMIT = 100;
const WRITE_LIMIT = 25;
/** Rounds of unprocessed keys or items retried before giving up (the call then fails, and the batch is retried). */
const MAX_ROUNDS = 8;

const pause = (round: number) =>
  new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(1000, 25 * 2 ** round)));

/**
 * {@link IndexNodeStore} in the lineage table (docs/deployment-log.md, "Storage"): one item per
 * node, `INDEX#<hash hex>` / `NODE`, attribute `node` = `I` + the two child hashes in hex, or `L`
 * + the leaf's entry as JSON. Content-addressed: a node is never changed, and the reader
 * (`readIndexNode`) hashes every node it gets, so an edited item is a missing node, never a
 * different one. A malformed item reads as `undefined`.
 */
export class DynamoDBIndexNodeStore implements IndexNodeStore {
  readonly #client: DynamoDBSend;
  readonly #tableName: string;

  constructor(client: DynamoDBSend, tableName: string) {
    this.#client = client;
    this.#tableName = tableName;
  }

  async getNodes(hashes: readonly Uint8Array[]): Promise<(IndexNode | undefined)[]> {
    const hexes = hashes.map((h) => Buffer.from(h).toString('hex'));
    const found = new Map<string, IndexNode | undefined>();
    const unique = [...new Set(hexes)];
    for (let i = 0; i < unique.length; i += GET_LIMIT) {
      let keys: Item[] = unique
        .slice(i, i + GET_LIMIT)
        .map((hex) => itemOf({ pk: Keys.indexNode(hex), sk: Keys.indexNodeSk }));
      for (let round = 0; keys.length > 0; round += 1) {
        if (round >= MAX_ROUNDS) throw new Error('index node reads left unprocessed after retries');
        if (round > 0) await pause(round);
        const out = await this.#client.send(
          new BatchGetItemCommand({ RequestItems: { [this.#tableName]: { Keys: keys, ConsistentRead: true } } }),
        );
        for (const item of out.Responses?.[this.#tableName] ?? []) {
          const pk = readString(item, 'pk') ?? '';
          found.set(pk.slice(Keys.indexNode('').length), indexNodeOf(item));
        }
        keys = (out.UnprocessedKeys?.[this.#tableName]?.Keys as Item[] | undefined) ?? [];
      }
    }
    return hexes.map((hex) => found.get(hex));
  }

  async putNodes(nodes: readonly { readonly hash: Uint8Array; readonly node: IndexNode }[]): Promise<void> {
    const items = nodes.map(({ hash, node }) => indexNodeItem(hash, node));
    const unique = [...new Map(items.map((item) => [item.pk?.S, item])).values()];
    for (let i = 0; i < unique.length; i += WRITE_LIMIT) {
      let requests = unique.slice(i, i + WRITE_LIMIT).map((Item) => ({ PutRequest: { Item } }));
      for (let round = 0; requests.length > 0; round += 1) {
        if (round >= MAX_ROUNDS) throw new Error('index node writes left unprocessed after retries');
        if (round > 0) await pause(round);
        const out = await this.#client.send(
          new BatchWriteItemCommand({ RequestItems: { [this.#tableName]: requests } }),
        );
        requests = (out.UnprocessedItems?.[this.#tableName] as typeof requests | undefined) ?? [];
      }
    }
  }
}

/** The item of one index node, `INDEX#<hash hex>` / `NODE` (docs/deployment-log.md, "Storage"). */
export function indexNodeItem(hash: Uint8Array, node: IndexNode): Item {
  return itemOf({ pk: Keys.indexNode(Buffer.from(hash).toString('hex')), sk: Keys.indexNodeSk, node: encode(node) });
}

/** The node an item stores, unverified (the reader re-hashes it), or `undefined` when it holds no node. */
export function indexNodeOf(item: Item): IndexNode | undefined {
  return decode(readString(item, 'node'));
}

function encode(node: IndexNode): string {
  return node.kind === 'leaf'
    ? `L${JSON.stringify(node.entry)}`
    : `I${Buffer.from(node.left).toString('hex')}${Buffer.from(node.right).toString('hex')}`;
}

/** The stored node, or `undefined` when the text is no node (the reader then reports it missing). */
function decode(text: string | undefined): IndexNode | undefined {
  if (text?.startsWith('I') && /^I[0-9a-f]{128}$/.test(text)) {
    return {
      kind: 'interior',
      left: Uint8Array.from(Buffer.from(text.slice(1, 65), 'hex')),
      right: Uint8Array.from(Buffer.from(text.slice(65), 'hex')),
    };
  }
  if (text?.startsWith('L')) {
    try {
      return { kind: 'leaf', entry: JSON.parse(text.slice(1)) as IndexEntry };
    } catch {
      return undefined;
    }
  }
  return undefined;
}
