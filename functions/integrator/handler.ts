import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { KMSClient } from '@aws-sdk/client-kms';
import { DynamoDBDeploymentLogStore } from '../../adapters/dynamodb-deployment-log-store';
import { DynamoDBIndexNodeStore } from '../../adapters/dynamodb-index-node-store';
import { DynamoDBLineageStore } from '../../adapters/dynamodb-lineage-store';
import { HttpWitnessClient } from '../../adapters/http-witness-client';
import { KMSNoteSigner } from '../../adapters/kms-note-signer';
import { parsePolicy } from '../../shared/witness/tlog-policy';
import { PowertoolsPipelineMetrics, requireEnv } from '../common/observability';
import { createIntegratorHandler } from './create-handler';
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

/** `DEPLOYMENT_MIN_SIZE`: the operator's floor for a cold start, leaves (docs/deployment-log.md, "Cold start"). */
function minSizeOf(): number {
  const text = process.env.DEPLOYMENT_MIN_SIZE ?? '';
  if (text === '') return 0;
  if (!/^(?:0|[1-9][0-9]{0,15})$/.test(text) || !Number.isSafeInteger(Number(text))) {
    throw new Error(`DEPLOYMENT_MIN_SIZE must be a whole number of leaves, got ${JSON.stringify(text)}`);
  }
  return Number(text);
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
  minSize: minSizeOf(),
});

/** Lambda entry point: the integration queue → one integration per batch (docs/deployment-log.md). */
export const handler = createIntegratorHandler(service, logger, metrics);
