import { PutItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { INTEGRATION_LEASE_MS, type IntegrationLease, LEASE_CLOCK_SKEW_MS } from '../shared/ports/integration-lease';
import type { DynamoDBSend } from './dynamodb-send';
import { itemOf } from './item';
import { LineageKeys } from './lineage-keys';

const LEASE_SK = 'LEASE';

/**
 * {@link IntegrationLease} as one item of the lineage table, `DEPLOYMENT#lease` / `LEASE`
 * (`holder`, `expiresAtMs`; docs/deployment-log.md, "Storage"): taken with one conditional
 * `PutItem`, released with one conditional `UpdateItem` that sets the expiry to 0 (the integrator
 * holds no `DeleteItem`). The emulator honours the conditions as DynamoDB does, so the lease holds
 * there too, where Lambda's concurrency settings may not.
 */
export class DynamoDBIntegrationLease implements IntegrationLease {
  readonly #client: DynamoDBSend;
  readonly #tableName: string;

  constructor(client: DynamoDBSend, tableName: string) {
    this.#client = client;
    this.#tableName = tableName;
  }

  async take(holder: string, nowMs: number, untilMs: number): Promise<boolean> {
    try {
      await this.#client.send(
        new PutItemCommand({
          TableName: this.#tableName,
          Item: itemOf({ pk: LineageKeys.deploymentLease, sk: LEASE_SK, holder, expiresAtMs: untilMs }),
          // A lease without a numeric expiry in range is no integrator's: taken as lapsed. A string or
          // map expiry compares false with every number, so its type is checked on its own.
          ConditionExpression:
            'attribute_not_exists(pk) OR attribute_not_exists(expiresAtMs) OR NOT attribute_type(expiresAtMs, :number) OR expiresAtMs <= :now OR expiresAtMs > :latest',
          ExpressionAttributeValues: {
            ...itemOf({ ':now': nowMs, ':latest': nowMs + INTEGRATION_LEASE_MS + LEASE_CLOCK_SKEW_MS }),
            ':number': { S: 'N' },
          },
        }),
      );
      return true;
    } catch (error) {
      if ((error as Error)?.name === 'ConditionalCheckFailedException') return false;
      throw error;
    }
  }

  async release(holder: string): Promise<void> {
    try {
      await this.#client.send(
        new UpdateItemCommand({
          TableName: this.#tableName,
          Key: itemOf({ pk: LineageKeys.deploymentLease, sk: LEASE_SK }),
          UpdateExpression: 'SET expiresAtMs = :zero',
          ConditionExpression: 'holder = :holder',
          ExpressionAttributeValues: itemOf({ ':holder': holder, ':zero': 0 }),
        }),
      );
    } catch (error) {
      if ((error as Error)?.name !== 'ConditionalCheckFailedException') throw error;
    }
  }
}
