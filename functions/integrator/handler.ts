import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { KMSClient } from '@aws-sdk/client-kms';
import type { Context, SQSEvent } from 'aws-lambda';
import { DynamoDBDeploymentLogStore } from '../../adapters/dynamodb-deployment-log-store';
import { DynamoDBIndexNodeStore } from '../../adapters/dynamodb-index-node-store';
import { DynamoDBLineageStore } from '../../adapters/dynamodb-lineage-store';
import { HttpWitnessClient } from '../../adapters/http-witness-client';
import { KMSNoteSigner } from '../../adapters/kms-note-signer';
import { parseRecoveryKeys } from '../../shared/witness/recovery-keys';
import { parsePolicy } from '../../shared/witness/tlog-policy';
import { deploymentMinSize } from '../common/deployment-min-size';
import { PowertoolsPipelineMetrics, requireEnv } from '../common/observability';
import { createIntegratorHandler } from './create-handler';
import { createReAnchorHandler, isReAnchorEvent } from './create-re-anchor-handler';
import { IntegratorService, type IntegratorWitness } from './integrator-service';

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

const service = new IntegratorService({
  lineages: new DynamoDBLineageStore(dynamodb, tableName),
  deployment: new DynamoDBDeploymentLogStore(dynamodb, tableName),
  index: new DynamoDBIndexNodeStore(dynamodb, tableName),
  signer: new KMSNoteSigner(new KMSClient({}), requireEnv('LOG_KEY_ID'), requireEnv('LOG_NAME')),
  witness: witnessOf(),
  metrics: new PowertoolsPipelineMetrics(metrics),
  logger,
  clock: Date.now,
  minSize: deploymentMinSize(process.env.DEPLOYMENT_MIN_SIZE),
  recoveryKeys: parseRecoveryKeys(process.env.RECOVERY_KEYS),
});

const integration = createIntegratorHandler(service, logger, metrics);
const reAnchor = createReAnchorHandler(service, logger);

/**
 * Lambda entry point: the integration queue → one integration per batch (docs/deployment-log.md);
 * the operator's direct invocation `{ "reAnchor": … }` → a re-anchor ("Re-anchor").
 */
export const handler = (event: unknown, context: Context) =>
  isReAnchorEvent(event) ? reAnchor(event) : integration(event as SQSEvent, context);
