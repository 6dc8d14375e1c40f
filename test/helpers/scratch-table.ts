import { CreateTableCommand, type DynamoDBClient, waitUntilTableExists } from '@aws-sdk/client-dynamodb';

/**
 * Creates the on-demand table `name` for one test file (beside the deployed stack's, so its
 * attacks and restores touch no other file's items) and waits until it is active.
 *
 * @param keys - string key attributes: the partition key, then the sort key if any
 */
export async function createScratchTable(client: DynamoDBClient, name: string, keys: readonly string[]): Promise<void> {
  await client.send(
    new CreateTableCommand({
      TableName: name,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: keys.map((k) => ({ AttributeName: k, AttributeType: 'S' })),
      KeySchema: keys.map((k, i) => ({ AttributeName: k, KeyType: i === 0 ? 'HASH' : 'RANGE' })),
    }),
  );
  await waitUntilTableExists({ client, maxWaitTime: 120 }, { TableName: name });
}
