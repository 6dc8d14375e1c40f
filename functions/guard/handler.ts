import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { KMSClient } from '@aws-sdk/client-kms';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBLineageStore } from '../../adapters/dynamodb-lineage-store';
import { EventBridgePublisher } from '../../adapters/eventbridge-publisher';
import { KMSNoteSigner } from '../../adapters/kms-note-signer';
import { SQSSealQueue } from '../../adapters/sqs-seal-queue';
import { DEFAULT_MAX_RECEIPT_AGE_SECONDS } from '../../shared/guard/policy';
import { guardKeyName } from '../../shared/log/log-names';
import { PowertoolsPipelineMetrics } from '../common/powertools-pipeline-metrics';
import { requireEnv } from '../common/require-env';
import { createGuardHandler } from './create-handler';
import { GuardService } from './guard-service';
import { tenantQueuesFrom } from './tenant-queues';

// Built once per cold start, reused by warm invocations.
const logger = new Logger({ serviceName: 'reseal-guard' });
const metrics = new Metrics({ namespace: 'Reseal', serviceName: 'reseal-guard' });

const service = new GuardService({
  store: new DynamoDBLineageStore(new DynamoDBClient({}), requireEnv('TABLE_NAME')),
  publisher: new EventBridgePublisher(new EventBridgeClient({}), requireEnv('EVENT_BUS_NAME')),
  queue: new SQSSealQueue(new SQSClient({}), requireEnv('SEAL_QUEUE_URL')),
  signer: new KMSNoteSigner(new KMSClient({}), requireEnv('GUARD_KEY_ID'), guardKeyName(requireEnv('LOG_NAME'))),
  logName: requireEnv('LOG_NAME'),
  metrics: new PowertoolsPipelineMetrics(metrics),
  logger,
  clock: Date.now,
  maxReceiptAgeSeconds: Number(process.env.MAX_RECEIPT_AGE_SECONDS ?? DEFAULT_MAX_RECEIPT_AGE_SECONDS),
  tenantQueues: tenantQueuesFrom(process.env.TENANT_QUEUES),
});

/** Lambda entry point: SQS `residual-writes` → stale-state guard (docs/guard.md). */
export const handler = createGuardHandler(service, logger, metrics);
