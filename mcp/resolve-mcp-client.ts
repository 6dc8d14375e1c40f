import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { KMSClient } from '@aws-sdk/client-kms';
import { KmsWriterSigner } from '../adapters/kms-writer-signer';
import type { CheckpointStore } from '../client/checkpoint-store';
import { type ConnectOptions, connectToStack } from '../client/connect';
import type { FreshnessPolicy } from '../client/freshness-policy';
import type { ResealClient } from '../client/reseal-client';
import type { ResealStackOutputs } from '../client/stack-outputs';
import { describeError } from '../shared/describe-error';
import type { WriterSigner } from '../shared/ports/writer-signer';
import type { McpServerConfig } from './config';
import { loadWriterKey } from './load-writer-key';
import { MissingPart } from './missing-part';
import { readStackOutputsFile } from './read-stack-outputs-file';
import { stackPlace } from './stack-place';
import { StackUnavailableError, stackUnavailableFrom } from './stack-unavailable';

/**
 * A {@link ResealClient} of a deployed stack for the MCP server: `connectToStack` (one region,
 * endpoint and credentials for every SDK client) with the server's checkpoint store.
 *
 * @throws {StackOutputsError} when the stack or one of its outputs cannot be found
 */
export async function connectMcpClient(
  options: ConnectOptions & { readonly checkpointStore: CheckpointStore },
): Promise<ResealClient> {
  return (await connectToStack(options)).client;
}

/**
 * Resolves the stack of `config` and connects a client to it, checking on the way, in order,
 * each part the server needs (docs/mcp.md, "Start-up and an unreachable stack"): the outputs
 * file when one is set, a region, credentials (the SDK's chain, resolved here rather than at the
 * first AWS call), then the stack's outputs (`DescribeStacks`) unless the file gave them.
 *
 * @throws {StackUnavailableError} naming the first part missing
 * @throws the error of `DescribeStacks` when it shows nothing missing (e.g. access denied)
 */
export async function resolveMcpClient(
  config: McpServerConfig,
  options: {
    readonly checkpointStore: CheckpointStore;
    readonly nowMs?: () => number;
    /** The writer key already loaded ({@link loadWriterKey}); else loaded here. */
    readonly writer?: WriterSigner | null;
    /** The freshness policy ({@link loadPolicy}); `null` or absent: the stack's default. */
    readonly policy?: FreshnessPolicy | null;
  },
): Promise<ResealClient> {
  const place = stackPlace(config);
  const unavailable = (error: unknown) => stackUnavailableFrom(error, place) ?? error;
  let outputs: ResealStackOutputs | undefined;
  if (config.outputsFile) {
    try {
      outputs = await readStackOutputsFile(config.outputsFile, config.stackName);
    } catch (error) {
      throw new StackUnavailableError(MissingPart.OUTPUTS, place, describeError(error), { cause: error });
    }
  }
  const sdkConfig = {
    ...(config.region ? { region: config.region } : {}),
    ...(config.endpoint ? { endpoint: config.endpoint } : {}),
  };
  const probe = new CloudFormationClient(sdkConfig);
  try {
    await probe.config.region();
    await probe.config.credentials();
  } catch (error) {
    throw unavailable(error);
  } finally {
    probe.destroy();
  }
  const writer =
    options.writer !== undefined && !config.writerKmsKey ? options.writer : await writerSignerOf(config, sdkConfig);
  try {
    return await connectMcpClient({
      ...(writer ? { writer } : {}),
      stackName: config.stackName,
      ...(outputs ? { outputs } : {}),
      ...sdkConfig,
      ...(options.nowMs ? { nowMs: options.nowMs } : {}),
      ...(options.policy ? { policy: options.policy } : {}),
      ...(config.tenantId ? { tenantId: config.tenantId } : {}),
      checkpointStore: options.checkpointStore,
    });
  } catch (error) {
    throw unavailable(error);
  }
}

/**
 * The server's writer key (`RESEAL_WRITER_KMS_KEY`, else `RESEAL_WRITER_KEY`), or none.
 * @throws {InvalidInputError} when the key file cannot be read or is not a PKCS #8 PEM Ed25519 private key
 */
async function writerSignerOf(
  config: McpServerConfig,
  sdkConfig: { region?: string; endpoint?: string },
): Promise<WriterSigner | undefined> {
  if (config.writerKmsKey) return KmsWriterSigner.create(new KMSClient(sdkConfig), config.writerKmsKey);
  return (await loadWriterKey(config)) ?? undefined;
}
