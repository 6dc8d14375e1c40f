import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { KMSClient } from '@aws-sdk/client-kms';
import { SQSClient } from '@aws-sdk/client-sqs';
import { StackOutputsError } from '../client/errors';
import { FileCheckpointStore } from '../client/file-checkpoint-store';
import { FileManifestCache } from '../client/file-manifest-cache';
import type { FreshnessPolicy } from '../client/freshness-policy';
import { ResealClient } from '../client/reseal-client';
import { resolveStackOutputs } from '../client/stack-outputs';
import type { PinnedStack } from '../client/stack-pin';
import type { WriterSigner } from '../shared/ports/writer-signer';
import { CliError } from './errors';
import { ExitCode } from './exit-codes';
import type { CliIo } from './io';
import { manifestCacheDir } from './manifest-cache-dir';
import { sdkConfig } from './sdk-config';

/**
 * The SDK half of `connect` (cli/connect.ts), loaded only by online commands: SDK clients from
 * the run's environment, signing writes with `writer` when given; resources and the log and guard
 * keys from the stack pin when there is one
 * (no `DescribeStacks`, no `GetPublicKey`), else from the stack's outputs and KMS. The manifests
 * it proves are kept in {@link manifestCacheDir}, so a run reads no manifest item an earlier run proved.
 *
 * @throws {CliError} (exit 1) when the stack or one of its outputs cannot be found
 */
export async function connectStack(
  io: CliIo,
  stackName: string,
  storePath: string | null,
  pin: PinnedStack | null,
  writer?: WriterSigner,
  policy?: FreshnessPolicy,
): Promise<ResealClient> {
  const config = sdkConfig(io.env);
  const manifests = manifestCacheDir(io);
  try {
    const outputs = pin?.outputs ?? (await resolveStackOutputs(stackName, new CloudFormationClient(config)));
    return new ResealClient(outputs, {
      ...(pin ? { logKey: pin.logKey, guardKey: pin.guardKey, sealerKey: pin.sealerKey } : {}),
      sqs: new SQSClient(config),
      eventBridge: new EventBridgeClient(config),
      dynamodb: new DynamoDBClient(config),
      kms: new KMSClient(config),
      nowMs: io.nowMs,
      ...(writer ? { writer } : {}),
      ...(policy ? { policy } : {}),
      // The tenant this user acts for in a stack with tenants: recalls carry its source (docs/cli.md, "Tenants").
      ...(io.env.RESEAL_TENANT ? { tenantId: io.env.RESEAL_TENANT } : {}),
      ...(storePath ? { checkpointStore: new FileCheckpointStore(storePath) } : {}),
      ...(manifests ? { manifestCache: new FileManifestCache(manifests) } : {}),
    });
  } catch (error) {
    if (error instanceof StackOutputsError) throw new CliError(error.message, ExitCode.UNEXPECTED, { cause: error });
    throw error;
  }
}
