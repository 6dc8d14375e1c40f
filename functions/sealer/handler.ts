import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { KMSClient } from '@aws-sdk/client-kms';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDeploymentLogStore } from '../../adapters/dynamodb-deployment-log-store';
import { DynamoDBIndexNodeStore } from '../../adapters/dynamodb-index-node-store';
import { DynamoDBLineageStore } from '../../adapters/dynamodb-lineage-store';
import { EventBridgePublisher } from '../../adapters/eventbridge-publisher';
import { KMSMacAnchor } from '../../adapters/kms-mac-anchor';
import { KMSNoteSigner } from '../../adapters/kms-note-signer';
import { KmsNoticeKey } from '../../adapters/kms-notice-key';
import { SqsIntegrationNotifier } from '../../adapters/sqs-integration-notifier';
import { CachedIndexNodeStore } from '../../shared/index/cached-index-node-store';
import { sealerKeyName } from '../../shared/log/log-names';
import { headLayoutOf } from '../../shared/ports/head-layout';
import { RememberedMacAnchor } from '../../shared/seal/remembered-mac-anchor';
import { parsePolicy } from '../../shared/witness/tlog-policy';
import { deploymentMinSize } from '../common/deployment-min-size';
import { PowertoolsPipelineMetrics } from '../common/powertools-pipeline-metrics';
import { requireEnv } from '../common/require-env';
import { createSealerHandler } from './create-handler';
import { SealerService } from './sealer-service';
import { signLineageCheckpoints } from './sign-lineage-checkpoints';

// Built once per cold start, reused by warm invocations.
const logger = new Logger({ serviceName: 'reseal-sealer' });
const metrics = new Metrics({ namespace: 'Reseal', serviceName: 'reseal-sealer' });

const kms = new KMSClient({});
const dynamodb = new DynamoDBClient({});
const tableName = requireEnv('TABLE_NAME');
// The witness policy the integrator publishes under, when one is configured; a bad policy fails the cold start.
const witnessPolicy = process.env.WITNESS_POLICY;
const service = new SealerService({
  // The head item it writes (docs/sealing.md, "Migration"); a value naming no layout fails the cold start.
  store: new DynamoDBLineageStore(dynamodb, tableName, headLayoutOf(process.env.HEAD_LAYOUT)),
  publisher: new EventBridgePublisher(new EventBridgeClient({}), requireEnv('EVENT_BUS_NAME')),
  // Kept warm across invocations: a head this container stored is checked without `VerifyMac`
  // (docs/verifiable-log.md, "Appending"); every other check still goes to KMS.
  anchor: new RememberedMacAnchor(new KMSMacAnchor(kms, requireEnv('MAC_KEY_ID'))),
  signer: new KMSNoteSigner(kms, requireEnv('LOG_KEY_ID'), requireEnv('LOG_NAME')),
  // Its refusals are signed with its own key, never the log key (docs/verifiable-log.md, "Keys").
  refusalSigner: new KMSNoteSigner(kms, requireEnv('SEALER_KEY_ID'), sealerKeyName(requireEnv('LOG_NAME'))),
  metrics: new PowertoolsPipelineMetrics(metrics),
  logger,
  clock: Date.now,
  // The sealer re-runs the guard before sealing, with the guard's receipt-age policy.
  maxReceiptAgeSeconds: Number(requireEnv('MAX_RECEIPT_AGE_SECONDS')),
  maxRequestAgeSeconds: Number(requireEnv('SEAL_QUEUE_RETENTION_SECONDS')),
  // One notice per sealed run to the integrator, an invocation's sent together in `SendMessageBatch`
  // calls (docs/deployment-log.md, "Sealed-run notices").
  notifier: process.env.INTEGRATION_QUEUE_URL
    ? new SqsIntegrationNotifier(new SQSClient({}), process.env.INTEGRATION_QUEUE_URL)
    : null,
  // Each notice's and each head's MAC under a data key of the notice key, one `GenerateDataKey` per
  // container and quarter hour (docs/deployment-log.md; docs/verifiable-log.md, "Appending"), and
  // the `Decrypt` of another container's data key, kept, to authenticate the heads it MAC'd.
  noticeKey: process.env.NOTICE_KEY_ID
    ? new KmsNoticeKey(kms, process.env.NOTICE_KEY_ID, requireEnv('LOG_NAME'))
    : null,
  // Every run is checked against the deployment index first (docs/sealing.md, "The index floor").
  index: {
    deployment: new DynamoDBDeploymentLogStore(dynamodb, tableName),
    // Kept warm across invocations: tiles are content-addressed and hashed on every read.
    nodes: new CachedIndexNodeStore(new DynamoDBIndexNodeStore(dynamodb, tableName)),
    witness: witnessPolicy
      ? { policy: parsePolicy(witnessPolicy), maxAgeSeconds: Number(requireEnv('WITNESS_MAX_AGE_SECONDS')) }
      : null,
    minSize: deploymentMinSize(process.env.DEPLOYMENT_MIN_SIZE),
  },
  // Transitional (docs/deployment-log.md, "What changes for the sealer"): signed unless set to `false`.
  signLineageCheckpoints: signLineageCheckpoints(process.env.SIGN_LINEAGE_CHECKPOINTS),
});

/** Lambda entry point: SQS FIFO `seal-requests` → seal and append (docs/sealing.md, docs/verifiable-log.md). */
export const handler = createSealerHandler(service, logger, metrics);
