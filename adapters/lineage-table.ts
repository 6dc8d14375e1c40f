import {
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  paginateQuery,
  type QueryCommandInput,
  type QueryCommandOutput,
} from '@aws-sdk/client-dynamodb';
import { type Item, itemOf } from './item';

/** What a lineage table query says; the table name and `ConsistentRead` are the table's. */
export type TableQuery = Pick<
  QueryCommandInput,
  | 'KeyConditionExpression'
  | 'FilterExpression'
  | 'ExpressionAttributeValues'
  | 'ProjectionExpression'
  | 'ScanIndexForward'
>;

/** The reads and writes the chain store and the outcome store share, on one table. */
export class LineageTable {
  /**
   * A `DynamoDBClient` itself, not only its `send`: the SDK's paginators (`paginateQuery`) accept
   * nothing else (unit tests give a client whose `send` they replace).
   */
  readonly client: DynamoDBClient;
  readonly tableName: string;

  constructor(client: DynamoDBClient, tableName: string) {
    this.client = client;
    this.tableName = tableName;
  }

  /**
   * The item at (`pk`, `sk`), or `undefined`: strongly consistent unless `consistent` is `false`
   * (half the read units, possibly a second stale: only for a value nothing is decided on).
   */
  async get(
    pk: string,
    sk: string,
    { consistent = true }: { readonly consistent?: boolean } = {},
  ): Promise<Item | undefined> {
    const out = await this.client.send(
      new GetItemCommand({ TableName: this.tableName, Key: itemOf({ pk, sk }), ConsistentRead: consistent }),
    );
    return out.Item;
  }

  /**
   * The item at (`pk`, `sk`) of an item written once and authenticated by its reader (a record by
   * seq, a deployment leaf), or `undefined`: eventually consistent first (half the read units),
   * strongly again only when that copy misses it. A stale copy of such an item is the item or
   * nothing, so only a miss could change an answer, and a miss is never taken from the stale copy.
   */
  async getWritten(pk: string, sk: string): Promise<Item | undefined> {
    return (await this.get(pk, sk, { consistent: false })) ?? (await this.get(pk, sk));
  }

  /**
   * Every item a query matches, all pages, strongly consistent unless `consistent` is `false`
   * (half the read units; only for items written once, whose caller can tell a miss).
   */
  async queryAll(query: TableQuery, { consistent = true }: { readonly consistent?: boolean } = {}): Promise<Item[]> {
    const items: Item[] = [];
    for await (const page of this.queryPages(query, { consistent })) items.push(...(page.Items ?? []));
    return items;
  }

  /**
   * The pages of a query, in order (the SDK's `paginateQuery`, following `LastEvaluatedKey`),
   * strongly consistent unless `paging.consistent` is `false`.
   * @param paging.pageSize - `Limit` of every page (DynamoDB's 1 MB page bound without it)
   * @param paging.startingToken - the `LastEvaluatedKey` of a page already read, to go on after it
   */
  queryPages(
    query: TableQuery,
    paging: { readonly pageSize?: number; readonly startingToken?: Item; readonly consistent?: boolean } = {},
  ): AsyncIterable<QueryCommandOutput> {
    const { consistent = true, ...pages } = paging;
    return paginateQuery(
      { client: this.client, ...pages },
      { TableName: this.tableName, ...query, ConsistentRead: consistent },
    );
  }

  /** Put that never overwrites; an identical key already present means the same fact is recorded. */
  async putIfAbsent(item: Item): Promise<void> {
    try {
      await this.client.send(
        new PutItemCommand({ TableName: this.tableName, Item: item, ConditionExpression: 'attribute_not_exists(pk)' }),
      );
    } catch (error) {
      if ((error as Error)?.name !== 'ConditionalCheckFailedException') throw error;
    }
  }
}
