import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { KMSClient } from '@aws-sdk/client-kms';
import { SQSClient } from '@aws-sdk/client-sqs';
import middy from '@middy/core';
import { KMSNoteVerifierKey } from '../../adapters/kms-note-verifier-key';
import { guardKeyName, sealerKeyName } from '../../shared/log/log-names';
import { requireEnv } from '../common/require-env';
import { createMcpHttpHandler } from './create-handler';
import { relayTenantsFrom } from './relay-tenants';
import { remoteFreshnessPolicy } from './remote-freshness-policy';
import { remoteMcpClient } from './remote-mcp-client';

// Built once per cold start, reused by warm invocations.
const logger = new Logger({ serviceName: 'reseal-mcp' });
const outputs = {
  tableName: requireEnv('TABLE_NAME'),
  residualWritesQueueUrl: requireEnv('RESIDUAL_WRITES_QUEUE_URL'),
  eventBusName: requireEnv('EVENT_BUS_NAME'),
  macKeyArn: requireEnv('MAC_KEY_ID'),
  logKeyArn: requireEnv('LOG_KEY_ID'),
  guardKeyArn: requireEnv('GUARD_KEY_ID'),
  sealerKeyArn: requireEnv('SEALER_KEY_ID'),
  logName: requireEnv('LOG_NAME'),
};
const tenants = relayTenantsFrom(process.env.TENANTS);
// The stack's freshness policy (docs/mcp.md, "Freshness"); a malformed one fails the cold start.
const policy = remoteFreshnessPolicy(
  {
    policy: process.env.FRESHNESS_POLICY,
    maxAgeSeconds: process.env.FRESHNESS_MAX_AGE_SECONDS,
    intervalSeconds: process.env.INTEGRATION_INTERVAL_SECONDS,
  },
  outputs.logName,
);
const kms = new KMSClient({});
// The SDK clients each request's client is built on (remoteMcpClient: the lineage store, the
// deployment log and the index over one DynamoDB client).
const sdk = {
  dynamodb: new DynamoDBClient({}),
  kms,
  sqs: new SQSClient({}),
  eventBridge: new EventBridgeClient({}),
};
// The stack's own public keys, read from KMS (never from the table) once per cold start.
const logKey = new KMSNoteVerifierKey(kms, outputs.logKeyArn, outputs.logName);
const guardKey = new KMSNoteVerifierKey(kms, outputs.guardKeyArn, guardKeyName(outputs.logName));
const sealerKey = new KMSNoteVerifierKey(kms, outputs.sealerKeyArn, sealerKeyName(outputs.logName));

/**
 * Lambda entry point of the remote MCP server (docs/mcp.md, "Remote MCP"): HTTP API `POST /mcp`
 * (`AWS_IAM`) → the MCP answer. Each request gets a client with no writer key and a checkpoint
 * store of its own, so nothing a caller verified carries over to another call or caller; with
 * tenants (`TENANTS`), a caller's client serves its own tenant's lineages only. Freshness is
 * checked under the stack's policy (`FRESHNESS_POLICY`), else the stack's default.
 */
export const handler = middy(
  createMcpHttpHandler({
    logger,
    tenants,
    deps: async (_caller, tenant) => {
      // A tenant's caller writes through its tenant's queue (the guard binds the tenant from it);
      // the handler scopes the client to the tenant's lineages (docs/mcp.md, "Tenants").
      const client = remoteMcpClient(
        outputs,
        {
          ...sdk,
          logKey: await logKey.get(),
          guardKey: await guardKey.get(),
          sealerKey: await sealerKey.get(),
          policy,
        },
        tenant,
      );
      return { client, snapshots: null };
    },
  }),
).use(injectLambdaContext(logger, { resetKeys: true }));
