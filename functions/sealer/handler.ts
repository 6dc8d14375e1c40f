import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { KMSClient } from '@aws-sdk/client-kms';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBLineageStore } from '../../adapters/dynamodb-lineage-store';
import { EventBridgePublisher } from '../../adapters/eventbridge-publisher';
import { KMSMacAnchor } from '../../adapters/kms-mac-anchor';
import { KMSNoteSigner } from '../../adapters/kms-note-signer';
import { SqsIntegrationNotifier } from '../../adapters/sqs-integration-notifier';
import { PowertoolsPipelineMetrics, requireEnv } from '../common/observability';
import { createSealerHandler } from './create-handler';
import { SealerService } from './sealer-service';

// Built once per cold start, reused by warm invocations.
const logger = new Logger({ serviceName: 'reseal-sealer' });
const metrics = new Metrics({ namespace: 'Reseal', serviceName: 'reseal-sealer' });

const kms = new KMSClient({});
const service = new SealerService({
  store: new DynamoDBLineageStore(new DynamoDBClient({}), requireEnv('TABLE_NAME')),
  publisher: new EventBridgePublisher(new EventBridgeClient({}), requireEnv('EVENT_BUS_NAME')),
  anchor: new KMSMacAnchor(kms, requireEnv('MAC_KEY_ID')),
  signer: new KMSNoteSigner(kms, requireEnv('LOG_KEY_ID'), requireEnv('LOG_NAME')),
  metrics: new PowertoolsPipelineMetrics(metrics),
  logger,
  clock: Date.now,
  // The sealer re-runs the guard before sealing, with the guard's receipt-age policy.
  maxReceiptAgeSeconds: Number(requireEnv('MAX_RECEIPT_AGE_SECONDS')),
  maxRequestAgeSeconds: Number(requireEnv('SEAL_QUEUE_RETENTION_SECONDS')),
  // One notice per sealed run to the integrator (docs/deployment-log.md, "Sealed-run notices").
  notifier: process.env.INTEGRATION_QUEUE_URL
    ? new SqsIntegrationNotifier(new SQSClient({}), process.env.INTEGRATION_QUEUE_URL)
    : null,
});

/** Lambda entry point: SQS FIFO `seal-requests` → seal and append (docs/sealing.md, docs/verifiable-log.md). */
export const handler = createSealerHandler(service, logger, metrics);
