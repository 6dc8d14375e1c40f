import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { KMSClient } from '@aws-sdk/client-kms';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDeploymentLogStore } from '../../adapters/dynamodb-deployment-log-store';
import { DynamoDBIndexNodeStore } from '../../adapters/dynamodb-index-node-store';
import { DynamoDBLineageStore } from '../../adapters/dynamodb-lineage-store';
import type { FreshnessPolicy } from '../../client/freshness-policy';
import { MemoryCheckpointStore } from '../../client/memory-checkpoint-store';
import { ResealClient } from '../../client/reseal-client';
import type { ResealStackOutputs } from '../../client/stack-outputs';
import type { NoteVerifierKey } from '../../shared/log/note-key';
import type { RelayTenant } from './relay-tenants';

/** The SDK clients, the stack's public keys (read from KMS) and the freshness policy a remote MCP client is built on. */
export interface RemoteMcpClientDeps {
  readonly dynamodb: DynamoDBClient;
  readonly kms: KMSClient;
  readonly sqs: SQSClient;
  readonly eventBridge: EventBridgeClient;
  readonly logKey: NoteVerifierKey;
  readonly guardKey: NoteVerifierKey;
  readonly sealerKey: NoteVerifierKey;
  /** The stack's policy (`FRESHNESS_POLICY`), or `null`: the client's default (log key alone). */
  readonly policy: FreshnessPolicy | null;
}

/**
 * The client one remote MCP request is served with (docs/mcp.md, "Remote MCP"): no writer key, a
 * checkpoint store of its own (nothing a caller verified carries over to another call or caller),
 * and the table's lineage items, deployment log and verifiable index, so a whole-lineage walk is
 * tied to the tree head the index holds (docs/verifiable-log.md, "Verifying a whole lineage"):
 * without the deployment log, a head that carries no signed lineage checkpoint (the default,
 * docs/deployment-log.md) would have no tree head to tie to and read `UNVERIFIED_TAMPER_RISK`.
 * A tenant's caller writes through its tenant's queue and recalls under its tenant's source
 * (docs/mcp.md, "Tenants"; the handler scopes the lineages).
 */
export function remoteMcpClient(
  outputs: ResealStackOutputs,
  deps: RemoteMcpClientDeps,
  tenant: RelayTenant | null,
): ResealClient {
  const { dynamodb, kms, sqs, eventBridge, logKey, guardKey, sealerKey, policy } = deps;
  return new ResealClient(tenant === null ? outputs : { ...outputs, residualWritesQueueUrl: tenant.queueUrl }, {
    store: new DynamoDBLineageStore(dynamodb, outputs.tableName),
    deploymentLog: new DynamoDBDeploymentLogStore(dynamodb, outputs.tableName),
    indexNodes: new DynamoDBIndexNodeStore(dynamodb, outputs.tableName),
    kms,
    sqs,
    eventBridge,
    logKey,
    guardKey,
    sealerKey,
    checkpointStore: new MemoryCheckpointStore(),
    ...(policy ? { policy } : {}),
    ...(tenant === null ? {} : { tenantId: tenant.id }),
  });
}
