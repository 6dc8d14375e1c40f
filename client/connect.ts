import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { KMSClient } from '@aws-sdk/client-kms';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDeploymentLogStore } from '../adapters/dynamodb-deployment-log-store';
import { KMSMacAnchor } from '../adapters/kms-mac-anchor';
import type { LineagePolicy } from '../shared/authorship/lineage-policy';
import { InvalidInputError } from '../shared/errors';
import type { NoteVerifierKey } from '../shared/log/note-key';
import type { MacAnchor } from '../shared/ports/mac-anchor';
import type { ManifestCache } from '../shared/ports/manifest-cache';
import type { WriterSigner } from '../shared/ports/writer-signer';
import type { CheckpointStore } from './checkpoint-store';
import { clientLineageStore } from './client-lineage-store';
import { clientTileCache } from './client-tile-cache';
import type { FreshnessPolicy } from './freshness-policy';
import { type LineageReader, ResealClient } from './reseal-client';
import { DEFAULT_STACK_NAME, type ResealStackOutputs, resolveStackOutputs } from './stack-outputs';
import { writerKeyFile } from './writer-key-file';

/** Options of {@link connectToStack}; each defaults to the usual AWS SDK configuration. */
export interface ConnectOptions {
  /** CloudFormation stack whose outputs name the resources (default `ResealStack`). */
  readonly stackName?: string;
  /** The outputs, when already known (a `cdk deploy --outputs-file`): no `DescribeStacks` call. */
  readonly outputs?: ResealStackOutputs;
  /** AWS region (default: the SDK's, from `AWS_REGION`, the profile, …). */
  readonly region?: string;
  /** Endpoint of every AWS call, e.g. an emulator's (default: the SDK's, from `AWS_ENDPOINT_URL`). */
  readonly endpoint?: string;
  /** Static credentials (default: the SDK's chain: environment, profile, role, …). */
  readonly credentials?: {
    readonly accessKeyId: string;
    readonly secretAccessKey: string;
    readonly sessionToken?: string;
  };
  /** Clock of the client, ms since the Unix epoch (default `Date.now`). */
  readonly nowMs?: () => number;
  /** Where the client keeps the last verified checkpoint per lineage (docs/verifiable-log.md). */
  readonly checkpointStore?: CheckpointStore;
  /** Where the client keeps the manifests it proved (default the last 64 in memory; a `FileManifestCache` across processes). */
  readonly manifestCache?: ManifestCache;
  /** The log's, the guard's and the sealer's verifier keys, pinned (default: read once with KMS `GetPublicKey`). */
  readonly logKey?: NoteVerifierKey;
  readonly guardKey?: NoteVerifierKey;
  readonly sealerKey?: NoteVerifierKey;
  /** The writer key that signs every published write (docs/authorship.md, "Signed writes"). */
  readonly writer?: WriterSigner;
  /** The tlog-policy deployment checkpoints must meet (default: the stack's log key alone, docs/deployment-log.md, "Clients"). */
  readonly policy?: FreshnessPolicy;
  /**
   * Or the file of that key (a PKCS #8 PEM Ed25519 key, as `reseal writer-key new` writes it):
   * read, or made there when absent (`writerKeyFile`). Not with `writer`.
   */
  readonly writerKeyFile?: string;
  /**
   * The policy a lineage's first write sets when the request names none, so a client names its
   * lineage by policy (`lineageIdFor(label, policy)`), e.g. with recovery keys
   * (docs/authorship.md, "Self-certifying lineage ids"); default `soleWriterPolicy(writer)`.
   */
  readonly inceptionPolicy?: LineagePolicy;
  /** The tenant the client acts for in a stack with tenants: recalls carry its source (`ResealClientDeps.tenantId`). */
  readonly tenantId?: string;
}

/**
 * A client connected to a deployed stack, with the record reader and MAC anchor it uses (for
 * callers that read records or run the MAC audit themselves).
 */
export interface StackConnection {
  readonly client: ResealClient;
  readonly outputs: ResealStackOutputs;
  /** Reads of the lineage table (DynamoDB). */
  readonly store: LineageReader;
  /** Checks record MACs with the stack's KMS key. */
  readonly anchor: MacAnchor;
}

/**
 * Connects to a deployed Reseal stack: resolves its outputs (unless given) and builds a
 * {@link ResealClient} whose SDK clients share one region and endpoint.
 *
 * @throws {StackOutputsError} when the stack or one of its outputs cannot be found
 * @throws {InvalidInputError} when both `writer` and `writerKeyFile` are given, or the file holds
 *   no Ed25519 private key
 * @example
 * const { client } = await connectToStack(); // ResealStack, region and endpoint from the environment
 */
export async function connectToStack(options: ConnectOptions = {}): Promise<StackConnection> {
  if (options.writer && options.writerKeyFile !== undefined) {
    throw new InvalidInputError('connect options', [
      { path: 'writerKeyFile', message: 'give either writer or writerKeyFile, not both' },
    ]);
  }
  const writer =
    options.writer ?? (options.writerKeyFile === undefined ? undefined : await writerKeyFile(options.writerKeyFile));
  const config = {
    ...(options.region ? { region: options.region } : {}),
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    ...(options.credentials ? { credentials: { ...options.credentials } } : {}),
  };
  const outputs =
    options.outputs ??
    (await resolveStackOutputs(options.stackName ?? DEFAULT_STACK_NAME, new CloudFormationClient(config)));
  const dynamodb = new DynamoDBClient(config);
  const store = clientLineageStore(dynamodb, outputs.tableName, options.manifestCache);
  const kms = new KMSClient(config);
  const anchor = new KMSMacAnchor(kms, outputs.macKeyArn);
  const client = new ResealClient(outputs, {
    // With an endpoint of its own (an emulator), send to it, not to the host a queue URL names.
    sqs: new SQSClient({ ...config, ...(options.endpoint ? { useQueueUrlAsEndpoint: false } : {}) }),
    eventBridge: new EventBridgeClient(config),
    store,
    deploymentLog: new DynamoDBDeploymentLogStore(dynamodb, outputs.tableName),
    indexNodes: clientTileCache(dynamodb, outputs.tableName),
    anchor,
    // The log, guard and sealer public keys are read with the same configuration.
    kms,
    ...(options.nowMs ? { nowMs: options.nowMs } : {}),
    ...(options.checkpointStore ? { checkpointStore: options.checkpointStore } : {}),
    ...(options.logKey ? { logKey: options.logKey } : {}),
    ...(options.guardKey ? { guardKey: options.guardKey } : {}),
    ...(options.sealerKey ? { sealerKey: options.sealerKey } : {}),
    ...(writer ? { writer } : {}),
    ...(options.inceptionPolicy ? { inceptionPolicy: options.inceptionPolicy } : {}),
    ...(options.tenantId === undefined ? {} : { tenantId: options.tenantId }),
    ...(options.policy ? { policy: options.policy } : {}),
  });
  return { client, outputs, store, anchor };
}
