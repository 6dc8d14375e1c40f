import { GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { encodeBase64 } from '../shared/log/strict-base64';
import type { WitnessStore } from '../shared/ports/witness-store';
import type { WitnessState } from '../shared/witness/witness-state';
import type { DynamoDBSend } from './dynamodb-send';

/**
 * {@link WitnessStore} over the witness's own DynamoDB table (docs/witness.md, "State"): one item
 * per origin, `{ origin (S, partition key), size (N), rootHash (S, base64), updatedAtMs (N) }`.
 * The save is one `PutItem` conditional on the state it replaces, so the check and the write are
 * atomic and two concurrent requests from the same old size cannot both be saved.
 */
export class DynamoDBWitnessStore implements WitnessStore {
  readonly #client: DynamoDBSend;
  readonly #tableName: string;
  readonly #clock: () => number;

  constructor(client: DynamoDBSend, tableName: string, clock: () => number = Date.now) {
    this.#client = client;
    this.#tableName = tableName;
    this.#clock = clock;
  }

  /**
   * @throws {Error} when the stored item is not a witness state (an edited item): the witness then
   *   answers 500 and cosigns nothing, rather than extend a state it cannot read
   */
  async read(origin: string): Promise<WitnessState | null> {
    const { Item } = await this.#client.send(
      new GetItemCommand({ TableName: this.#tableName, Key: { origin: { S: origin } }, ConsistentRead: true }),
    );
    if (!Item) return null;
    const size = Number(Item.size?.N);
    const rootHash = Buffer.from(Item.rootHash?.S ?? '', 'base64');
    if (Item.origin?.S !== origin || !Number.isSafeInteger(size) || size < 0 || rootHash.byteLength !== 32) {
      throw new Error(`witness state of ${JSON.stringify(origin)} is malformed`);
    }
    return { origin, size, rootHash: Uint8Array.from(rootHash) };
  }

  async replace(expected: WitnessState | null, next: WitnessState): Promise<boolean> {
    const condition =
      expected === null
        ? { ConditionExpression: 'attribute_not_exists(origin)' }
        : {
            ConditionExpression: '#size = :oldSize AND rootHash = :oldRoot',
            ExpressionAttributeNames: { '#size': 'size' },
            ExpressionAttributeValues: {
              ':oldSize': { N: String(expected.size) },
              ':oldRoot': { S: encodeBase64(expected.rootHash) },
            },
          };
    try {
      await this.#client.send(
        new PutItemCommand({
          TableName: this.#tableName,
          Item: {
            origin: { S: next.origin },
            size: { N: String(next.size) },
            rootHash: { S: encodeBase64(next.rootHash) },
            updatedAtMs: { N: String(this.#clock()) },
          },
          ...condition,
        }),
      );
      return true;
    } catch (error) {
      if ((error as Error)?.name === 'ConditionalCheckFailedException') return false;
      throw error;
    }
  }
}
