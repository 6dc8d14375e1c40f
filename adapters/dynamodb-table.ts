import {
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  type QueryCommandInput,
} from '@aws-sdk/client-dynamodb';
import { type Item, itemOf } from './dynamodb-item-codec';

/** The part of `DynamoDBClient` the lineage table adapters use (a fake with `send` serves unit tests). */
export type DynamoDBSend = Pick<DynamoDBClient, 'send'>;

/** The reads and writes the chain store and the outcome store share, on one table. */
export class LineageTable {
  readonly client: DynamoDBSend;
  readonly tableName: string;

  constructor(client: DynamoDBSend, tableName: string) {
    this.client = client;
    this.tableName = tableName;
  }

  /** The item at (`pk`, `sk`), strongly consistent, or `undefined`. */
  async get(pk: string, sk: string): Promise<Item | undefined> {
    const out = await this.client.send(
      new GetItemCommand({ TableName: this.tableName, Key: itemOf({ pk, sk }), ConsistentRead: true }),
    );
    return out.Item;
  }

  /** Every item a query matches, all pages, strongly consistent. */
  async queryAll(
    query: Pick<QueryCommandInput, 'KeyConditionExpression' | 'FilterExpression' | 'ExpressionAttributeValues'>,
  ): Promise<Item[]> {
    const items: Item[] = [];
    let startKey: Item | undefined;
    do {
      const out = await this.client.send(
        new QueryCommand({ TableName: this.tableName, ...query, ConsistentRead: true, ExclusiveStartKey: startKey }),
      );
      items.push(...(out.Items ?? []));
      startKey = out.LastEvaluatedKey;
    } while (startKey);
    return items;
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
