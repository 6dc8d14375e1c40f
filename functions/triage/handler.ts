import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { KMSClient } from '@aws-sdk/client-kms';
import { DynamoDBLineageStore } from '../../adapters/dynamodb-lineage-store';
import { EventBridgePublisher } from '../../adapters/eventbridge-publisher';
import { KMSNoteVerifierKey } from '../../adapters/kms-note-verifier-key';
import { PowertoolsPipelineMetrics } from '../common/powertools-pipeline-metrics';
import { requireEnv } from '../common/require-env';
import { createTriageHandler } from './create-handler';
import { tenantIdsFrom } from './tenant-ids';
import { TriageService } from './triage-service';

// Built once per cold start, reused by warm invocations.
const logger = new Logger({ serviceName: 'reseal-triage' });
const metrics = new Metrics({ namespace: 'Reseal', serviceName: 'reseal-triage' });

const service = new TriageService({
  store: new DynamoDBLineageStore(new DynamoDBClient({}), requireEnv('TABLE_NAME')),
  publisher: new EventBridgePublisher(new EventBridgeClient({}), requireEnv('EVENT_BUS_NAME')),
  logKey: (
    (key) => () =>
      key.get()
  )(new KMSNoteVerifierKey(new KMSClient({}), requireEnv('LOG_KEY_ID'), requireEnv('LOG_NAME'))),
  metrics: new PowertoolsPipelineMetrics(metrics),
  logger,
  clock: Date.now,
  tenantIds: tenantIdsFrom(process.env.TENANT_IDS),
});

/** Lambda entry point: EventBridge `RecallRequested` → prove the record, then delta triage (docs/verifiable-log.md, docs/triage.md). */
export const handler = createTriageHandler(service, logger, metrics);
