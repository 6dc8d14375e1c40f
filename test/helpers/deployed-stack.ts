import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { KMSClient } from '@aws-sdk/client-kms';
import { SQSClient } from '@aws-sdk/client-sqs';
import { inject } from 'vitest';
import { DynamoDBLineageStore } from '../../adapters/dynamodb-lineage-store';
import { KMSMacAnchor } from '../../adapters/kms-mac-anchor';
import { clientConfig } from '../../scripts/emulator/deploy';

/**
 * The stack the integration project's global setup deployed (test/integration/global-setup.ts):
 * its outputs, its endpoint, one SDK client per service on that endpoint, and the lineage store
 * and MAC anchor over its table and key, as the deployed functions build them. For integration
 * tests only (`inject` needs the global setup's values).
 */
export function deployedStack() {
  const stack = inject('stack');
  const endpoint = inject('endpoint');
  const config = clientConfig(endpoint);
  const dynamodb = new DynamoDBClient(config);
  const kms = new KMSClient(config);
  return {
    stack,
    endpoint,
    // Queue URLs name the emulator's host; the endpoint, not the URL, is where requests go.
    sqs: new SQSClient({ ...config, useQueueUrlAsEndpoint: false }),
    dynamodb,
    kms,
    events: new EventBridgeClient(config),
    store: new DynamoDBLineageStore(dynamodb, stack.TableName),
    anchor: new KMSMacAnchor(kms, stack.MacKeyArn),
  };
}
