import { BatchGetItemCommand } from '@aws-sdk/client-dynamodb';
import type { DynamoDBSend } from './dynamodb-send';
import type { Item } from './item';
import { retryUnprocessed } from './retry-unprocessed';

/** Keys per `BatchGetItem` call (the DynamoDB limit). */
export const BATCH_GET_LIMIT = 100;

/** How {@link batchGetItems} reads: consistency, and an optional projection. */
export interface BatchGetOptions {
  /** Strongly consistent (a full read unit per 4 KB) or eventually consistent (half). */
  readonly consistentRead: boolean;
  /** A `ProjectionExpression` and its `ExpressionAttributeNames`; every attribute without it. */
  readonly projection?: { readonly expression: string; readonly names: Record<string, string> };
}

/**
 * Every item of `keys` present in table `tableName`, in no particular order (absent keys are
 * simply missing): one `BatchGetItem` per {@link BATCH_GET_LIMIT} keys, each call's
 * `UnprocessedKeys` sent again with backoff ({@link retryUnprocessed}).
 * @throws {UnprocessedAfterRetriesError} when DynamoDB leaves keys unprocessed round after round
 */
export async function batchGetItems(
  client: DynamoDBSend,
  tableName: string,
  keys: readonly Item[],
  options: BatchGetOptions,
): Promise<Item[]> {
  const { consistentRead, projection } = options;
  const found: Item[] = [];
  for (let i = 0; i < keys.length; i += BATCH_GET_LIMIT) {
    await retryUnprocessed(
      keys.slice(i, i + BATCH_GET_LIMIT),
      async (pending) => {
        const out = await client.send(
          new BatchGetItemCommand({
            RequestItems: {
              [tableName]: {
                Keys: [...pending],
                ConsistentRead: consistentRead,
                ...(projection
                  ? { ProjectionExpression: projection.expression, ExpressionAttributeNames: projection.names }
                  : {}),
              },
            },
          }),
        );
        found.push(...(out.Responses?.[tableName] ?? []));
        return (out.UnprocessedKeys?.[tableName]?.Keys as Item[] | undefined) ?? [];
      },
      `BatchGetItem on ${tableName}`,
    );
  }
  return found;
}
