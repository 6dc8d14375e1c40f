import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { KMSClient } from '@aws-sdk/client-kms';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSEvent } from 'aws-lambda';
import { DynamoDBDeploymentLogStore } from '../../adapters/dynamodb-deployment-log-store';
import { DynamoDBIndexNodeStore } from '../../adapters/dynamodb-index-node-store';
import { DynamoDBIntegrationLease } from '../../adapters/dynamodb-integration-lease';
import { DynamoDBLineageStore } from '../../adapters/dynamodb-lineage-store';
import { HttpWitnessClient } from '../../adapters/http-witness-client';
import { KMSMacAnchor } from '../../adapters/kms-mac-anchor';
import { KMSNoteSigner } from '../../adapters/kms-note-signer';
import { KmsNoticeKey } from '../../adapters/kms-notice-key';
import { sqsBatchRetry } from '../../adapters/sqs-batch-retry';
import { CachedIndexNodeStore } from '../../shared/index/cached-index-node-store';
import { heartbeatThresholdSeconds } from '../../shared/integrator/heartbeat-due';
import { isHeartbeatEvent } from '../../shared/integrator/heartbeat-event';
import { DEFAULT_HEAD_LAYOUT } from '../../shared/ports/head-layout';
import { MemoryManifestCache } from '../../shared/triage/memory-manifest-cache';
import { parseRecoveryKeys } from '../../shared/witness/recovery-keys';
import { parsePolicy } from '../../shared/witness/tlog-policy';
import { deploymentMinSize } from '../common/deployment-min-size';
import { PowertoolsPipelineMetrics } from '../common/powertools-pipeline-metrics';
import { requireEnv } from '../common/require-env';
import { createIntegratorHandler } from './create-handler';
import { createHeartbeatHandler } from './create-heartbeat-handler';
import { createReAnchorHandler, isReAnchorEvent } from './create-re-anchor-handler';
import { DeploymentHeartbeat } from './heartbeat';
import { IntegratorService } from './integrator-service';
import type { IntegratorWitness } from './witness-submission';

// Built once per cold start, reused by warm invocations. A bad policy fails the cold start.
const logger = new Logger({ serviceName: 'reseal-integrator' });
const metrics = new Metrics({ namespace: 'Reseal', serviceName: 'reseal-integrator' });

const dynamodb = new DynamoDBClient({});
const tableName = requireEnv('TABLE_NAME');

/** The witness, when `WITNESS_URL` and `WITNESS_POLICY` are set (docs/deployment-log.md, "Integration", step 6). */
function witnessOf(): IntegratorWitness | null {
  const url = process.env.WITNESS_URL;
  if (!url) return null;
  const maxAgeSeconds = Number(requireEnv('WITNESS_MAX_AGE_SECONDS'));
  return { client: new HttpWitnessClient(url), policy: parsePolicy(requireEnv('WITNESS_POLICY')), maxAgeSeconds };
}

const witness = witnessOf();
const kms = new KMSClient({});
const logKey = new KMSNoteSigner(kms, requireEnv('LOG_KEY_ID'), requireEnv('LOG_NAME'));
const deployment = new DynamoDBDeploymentLogStore(dynamodb, tableName);

/** `HEARTBEAT_THRESHOLD_SECONDS` (whole seconds ≥ 1), else a third of the maximum age; a bad value fails the cold start. */
function thresholdOf(maxAgeSeconds: number): number {
  const text = process.env.HEARTBEAT_THRESHOLD_SECONDS;
  if (!text) return heartbeatThresholdSeconds(maxAgeSeconds);
  const seconds = Number(text);
  if (!Number.isSafeInteger(seconds) || seconds < 1) {
    throw new Error(`HEARTBEAT_THRESHOLD_SECONDS=${text}: expected whole seconds, 1 or more`);
  }
  return seconds;
}

/** Manifests the warm integrator keeps: about one per lineage it integrates often. */
const INTEGRATOR_MANIFEST_CACHE_ENTRIES = 1_024;

const service = new IntegratorService({
  // Kept warm across invocations: the lineages' manifests, read once each (content-addressed,
  // used only when they hash to the record's digest; at most 64 KiB each, so 64 MiB at the most).
  lineages: new DynamoDBLineageStore(dynamodb, tableName, DEFAULT_HEAD_LAYOUT, {
    manifestCache: new MemoryManifestCache(INTEGRATOR_MANIFEST_CACHE_ENTRIES),
  }),
  deployment,
  // Kept warm across invocations: tiles are content-addressed and hashed on every read.
  index: new CachedIndexNodeStore(new DynamoDBIndexNodeStore(dynamodb, tableName)),
  signer: logKey,
  // Lineage heads are authenticated by the sealer's head-state MAC (KMS `VerifyMac` only).
  anchor: new KMSMacAnchor(kms, requireEnv('MAC_KEY_ID')),
  // Unless an authenticated notice of the batch names it (`kms:Decrypt` of the notice key's data keys).
  noticeKey: process.env.NOTICE_KEY_ID
    ? new KmsNoticeKey(kms, process.env.NOTICE_KEY_ID, requireEnv('LOG_NAME'))
    : null,
  witness,
  metrics: new PowertoolsPipelineMetrics(metrics),
  logger,
  clock: Date.now,
  minSize: deploymentMinSize(process.env.DEPLOYMENT_MIN_SIZE),
  recoveryKeys: parseRecoveryKeys(process.env.RECOVERY_KEYS),
  // One integration at a time, on AWS and on the emulator alike (docs/deployment-log.md).
  lease: new DynamoDBIntegrationLease(dynamodb, tableName),
});

// The heartbeat gets the log key's name and public key only: it never signs with it.
const heartbeat = new DeploymentHeartbeat({
  deployment,
  logKey: { keyName: logKey.keyName, publicKey: () => logKey.publicKey() },
  witness,
  thresholdSeconds: witness ? thresholdOf(witness.maxAgeSeconds) : 0,
  metrics: new PowertoolsPipelineMetrics(metrics),
  logger,
  clock: Date.now,
});

// A batch failed for a held lease comes back in seconds (docs/deployment-log.md, "One integration at a time").
const queueUrl = process.env.INTEGRATION_QUEUE_URL;
const integration = createIntegratorHandler(
  service,
  logger,
  metrics,
  queueUrl ? { retrySoon: sqsBatchRetry(new SQSClient({}), queueUrl) } : {},
);
const reAnchor = createReAnchorHandler(service, logger);
const beat = createHeartbeatHandler(heartbeat, logger, metrics);

/**
 * Lambda entry point (docs/deployment-log.md): the integration queue → one integration per batch;
 * the stack's schedule (`HEARTBEAT_EVENT`) → one heartbeat ("Freshness window and interval"); the
 * operator's direct invocation `{ "reAnchor": … }` → a re-anchor ("Re-anchor").
 */
export const handler = (event: unknown, context: Context) => {
  if (isHeartbeatEvent(event)) return beat(event, context);
  if (isReAnchorEvent(event)) return reAnchor(event);
  return integration(event as SQSEvent, context);
};
