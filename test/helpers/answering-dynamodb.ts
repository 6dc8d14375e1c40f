import { DynamoDBClient } from '@aws-sdk/client-dynamodb';

/**
 * A real `DynamoDBClient` (the SDK's paginators refuse anything else) whose `send` is `send`:
 * every command goes to the fake and nothing leaves the process.
 */
export function answeringDynamoDB(send: (command: unknown) => unknown): DynamoDBClient {
  const client = new DynamoDBClient({
    region: 'us-east-1',
    credentials: { accessKeyId: 'unit-test', secretAccessKey: 'unit-test' },
  });
  return Object.assign(client, { send: async (command: unknown) => send(command) }) as DynamoDBClient;
}
