import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';

/** The part of `DynamoDBClient` the adapters that never page use (a fake with `send` serves unit tests). */
export type DynamoDBSend = Pick<DynamoDBClient, 'send'>;
