import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { KMSClient } from '@aws-sdk/client-kms';
import { z } from 'zod';
import { KmsWriterSigner } from '../adapters/kms-writer-signer';
import type { CheckpointStore } from '../client/checkpoint-store';
import { type ConnectOptions, connectToStack } from '../client/connect';
import { FileCheckpointStore } from '../client/file-checkpoint-store';
import { DEFAULT_MAX_AGE_SECONDS, type FreshnessPolicy, freshnessPolicy } from '../client/freshness-policy';
import { MemoryCheckpointStore } from '../client/memory-checkpoint-store';
import type { ResealClient } from '../client/reseal-client';
import { loadResealConfig, RESEAL_CONFIG_FILE } from '../client/reseal-config';
import { snapshotProviders } from '../client/snapshot-providers';
import { clientOutputsFrom, DEFAULT_STACK_NAME, type ResealStackOutputs } from '../client/stack-outputs';
import { LocalWriterSigner } from '../shared/authorship/local-writer-signer';
import { parseStrictJson } from '../shared/canonical/strict-json';
import { InvalidInputError } from '../shared/errors';
import type { WriterSigner } from '../shared/ports/writer-signer';
import { parseInput } from '../shared/schemas/parse';
import { TenantId } from '../shared/tenancy/tenants';
import { MAX_POLICY_BYTES } from '../shared/witness/tlog-policy';
import { lazyMcpClient } from './lazy-client';
import { MissingPart } from './missing-part';
import type { ResealMcpDeps } from './reseal-mcp-deps';
import { type StackPlace, StackUnavailableError, stackUnavailableFrom } from './stack-unavailable';
import { tenantScopedClient } from './tenant-scoped-client';

const Path = z.string().min(1).max(4096);

/**
 * The environment variables the MCP server is configured by (docs/mcp.md, "Configuration"); an
 * agent never passes AWS details in a tool call. Empty values count as absent.
 */
export const McpEnvironmentSchema = z.object({
  /** CloudFormation stack of the deployment (default `ResealStack`), read with `DescribeStacks`. */
  RESEAL_STACK: z.string().min(1).max(128).optional(),
  /** Or the stack's outputs as a file (`cdk deploy --outputs-file`, or a flat `{ TableName, … }`). */
  RESEAL_STACK_OUTPUTS: Path.optional(),
  /** File where the client keeps the last verified signed checkpoint of each lineage (default: in memory only). */
  RESEAL_CHECKPOINTS: Path.optional(),
  /** The snapshot providers' config (default: `reseal.config.json` in the working directory, if any). */
  RESEAL_CONFIG: Path.optional(),
  /** The writer key every `reseal_write` is signed with: a PKCS #8 PEM Ed25519 key file (docs/authorship.md). */
  RESEAL_WRITER_KEY: Path.optional(),
  /** Or a KMS `ECC_NIST_EDWARDS25519` key ARN (`kms:Sign`, `kms:GetPublicKey`). */
  RESEAL_WRITER_KMS_KEY: z.string().min(1).max(2048).optional(),
  /**
   * The tenant the server acts for in a stack with tenants (docs/mcp.md, "Tenants"): recalls carry
   * its source, and a tool naming a lineage outside `<tenant>/` is the tool error `TENANT_MISMATCH`.
   */
  RESEAL_TENANT: TenantId.optional(),
  /**
   * A C2SP tlog-policy file the deployment checkpoints must meet (docs/mcp.md, "Freshness"); default
   * the stack's log key alone (`quorum none`, UNWITNESSED).
   */
  RESEAL_POLICY: Path.optional(),
  /** The policy's maximum age of a quorum of cosignatures, whole seconds (default 180; needs `RESEAL_POLICY`). */
  RESEAL_POLICY_MAX_AGE: z
    .string()
    .regex(/^[1-9][0-9]{0,8}$/, 'expected a positive whole number of seconds')
    .optional(),
  AWS_REGION: z.string().min(1).optional(),
  AWS_DEFAULT_REGION: z.string().min(1).optional(),
  /** An emulator's endpoint (MiniStack, LocalStack); real AWS when absent. */
  AWS_ENDPOINT_URL: z.url().optional(),
});

/** How the MCP server reaches the stack and where it keeps its state (all paths absolute). */
export interface McpServerConfig {
  readonly stackName: string;
  readonly outputsFile: string | null;
  readonly checkpointsFile: string | null;
  readonly configFile: string | null;
  readonly region: string | null;
  readonly endpoint: string | null;
  /** The writer key file (absolute), or `null`: then `reseal_write` has no key and is refused. */
  readonly writerKeyFile?: string | null;
  /** The writer's KMS key ARN, or `null`. */
  readonly writerKmsKey?: string | null;
  /** The tlog-policy file (absolute), or `null`: the stack's default policy. */
  readonly policyFile?: string | null;
  /** Its maximum age, seconds, or `null` (the default, 180). */
  readonly policyMaxAgeSeconds?: number | null;
  /** The tenant the server acts for (`RESEAL_TENANT`), or `null`: one tenant, nothing scoped. */
  readonly tenantId?: string | null;
}

/** Settings given on the command line (`reseal mcp --stack …`), which win over the environment. */
export interface McpConfigOverrides {
  readonly stackName?: string;
  readonly outputsFile?: string;
  readonly checkpointsFile?: string;
  readonly configFile?: string;
  readonly policyFile?: string;
}

/**
 * The server's configuration from its environment and command-line overrides. The snapshot
 * config defaults to `reseal.config.json` in `cwd` when that file exists.
 *
 * @throws {InvalidInputError} naming each malformed variable
 */
export function mcpConfigFrom(
  env: Readonly<Record<string, string | undefined>>,
  overrides: McpConfigOverrides = {},
  cwd = process.cwd(),
): McpServerConfig {
  const present = Object.fromEntries(
    Object.keys(McpEnvironmentSchema.shape)
      .map((key) => [key, env[key]] as const)
      .filter(([, value]) => value !== undefined && value !== ''),
  );
  const vars = parseInput(McpEnvironmentSchema, present, 'MCP server environment');
  const path = (value: string | undefined) => (value === undefined ? null : resolve(cwd, value));
  const defaultConfig = resolve(cwd, RESEAL_CONFIG_FILE);
  return {
    stackName: overrides.stackName ?? vars.RESEAL_STACK ?? DEFAULT_STACK_NAME,
    outputsFile: path(overrides.outputsFile ?? vars.RESEAL_STACK_OUTPUTS),
    checkpointsFile: path(overrides.checkpointsFile ?? vars.RESEAL_CHECKPOINTS),
    configFile: path(overrides.configFile ?? vars.RESEAL_CONFIG) ?? (existsSync(defaultConfig) ? defaultConfig : null),
    region: vars.AWS_REGION ?? vars.AWS_DEFAULT_REGION ?? null,
    endpoint: vars.AWS_ENDPOINT_URL ?? null,
    writerKeyFile: path(vars.RESEAL_WRITER_KEY),
    writerKmsKey: vars.RESEAL_WRITER_KMS_KEY ?? null,
    policyFile: path(overrides.policyFile ?? vars.RESEAL_POLICY),
    policyMaxAgeSeconds: vars.RESEAL_POLICY_MAX_AGE === undefined ? null : Number(vars.RESEAL_POLICY_MAX_AGE),
    tenantId: vars.RESEAL_TENANT ?? null,
  };
}

/**
 * The server's freshness policy (docs/mcp.md, "Freshness"): the tlog-policy of `RESEAL_POLICY`
 * with `RESEAL_POLICY_MAX_AGE`, or `null` for the stack's default. Read at start-up, so a bad
 * policy fails there, naming the variable.
 *
 * @throws {InvalidInputError} at `RESEAL_POLICY` when the file cannot be read or is not a valid
 *   tlog-policy (naming the line), or at `RESEAL_POLICY_MAX_AGE` when it is set without a policy
 */
export async function loadPolicy(config: McpServerConfig): Promise<FreshnessPolicy | null> {
  const file = config.policyFile;
  const maxAge = config.policyMaxAgeSeconds ?? null;
  const refuse = (path: string, message: string, cause?: unknown): never => {
    throw new InvalidInputError('MCP server environment', [{ path, message }], cause ? { cause } : undefined);
  };
  if (!file) {
    if (maxAge !== null) refuse('RESEAL_POLICY_MAX_AGE', 'needs RESEAL_POLICY (the default policy has no witness)');
    return null;
  }
  let text = '';
  try {
    const bytes = await readFile(file);
    if (bytes.byteLength > MAX_POLICY_BYTES)
      refuse('RESEAL_POLICY', `${file} is larger than ${MAX_POLICY_BYTES} bytes`);
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch (error) {
    if (error instanceof InvalidInputError) throw error;
    refuse('RESEAL_POLICY', `cannot read the policy ${file}: ${describeError(error)}`, error);
  }
  try {
    return freshnessPolicy(text, maxAge ?? DEFAULT_MAX_AGE_SECONDS);
  } catch (error) {
    if (!(error instanceof InvalidInputError)) throw error;
    return refuse('RESEAL_POLICY', `${file} is not a valid tlog-policy: ${error.message}`, error);
  }
}

/**
 * Reads a stack outputs file: a `cdk deploy --outputs-file` document (`{ <stack>: { TableName, … } }`)
 * or one stack's flat outputs.
 *
 * @throws {InvalidInputError} when the file is not JSON; {@link StackOutputsError} when an output is missing
 */
export async function readStackOutputsFile(path: string, stackName: string): Promise<ResealStackOutputs> {
  const what = `stack outputs file ${path}`;
  const document = parseInput(
    z.record(z.string(), z.unknown()),
    parseStrictJson(await readFile(path, 'utf8'), what),
    what,
  );
  const nested = document[stackName];
  const outputs = nested !== null && typeof nested === 'object' && !Array.isArray(nested) ? nested : document;
  const strings = Object.fromEntries(
    Object.entries(outputs as Record<string, unknown>).filter(
      (entry): entry is [string, string] => typeof entry[1] === 'string',
    ),
  );
  return clientOutputsFrom(strings, stackName);
}

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

/**
 * The local writer key of `config` (`RESEAL_WRITER_KEY`, docs/mcp.md, "Configuration"), key id
 * its file's base name without `.pem`; `null` without one. Reaches no AWS, so the server loads it
 * at start-up and a bad key file fails there, naming the variable.
 *
 * @throws {InvalidInputError} at `RESEAL_WRITER_KEY` when the file cannot be read or is not a
 *   PKCS #8 PEM Ed25519 private key
 */
export async function loadWriterKey(config: McpServerConfig): Promise<LocalWriterSigner | null> {
  const file = config.writerKeyFile;
  if (!file) return null;
  const refuse = (message: string, cause: unknown): never => {
    throw new InvalidInputError('MCP server environment', [{ path: 'RESEAL_WRITER_KEY', message }], { cause });
  };
  let pem = '';
  try {
    pem = await readFile(file, 'utf8');
  } catch (error) {
    refuse(`cannot read writer key ${file}: ${describeError(error)}`, error);
  }
  try {
    return LocalWriterSigner.fromPem(basename(file).replace(/\.pem$/i, '') || 'writer', pem);
  } catch (error) {
    if (!(error instanceof InvalidInputError)) throw error;
    return refuse(`writer key ${file} is not a PKCS #8 PEM Ed25519 private key (${error.message})`, error);
  }
}

const describeError = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Where `config` looks for its stack, as an `UNAVAILABLE` answer reports it. */
export function stackPlace(config: McpServerConfig): StackPlace {
  return {
    stackName: config.stackName,
    outputsFile: config.outputsFile,
    region: config.region,
    endpoint: config.endpoint,
  };
}

/**
 * Everything the tools need, from a {@link McpServerConfig}, without reaching the stack: a client
 * that resolves the stack on its first call and again after each call that finds a part missing
 * ({@link lazyMcpClient}, {@link resolveMcpClient}), so the server starts and lists its tools
 * with no stack reachable and each tool call answers `UNAVAILABLE` naming what is missing until
 * it is there. The client keeps the last verified signed checkpoint of each lineage (in
 * `checkpointsFile`, else in memory for the server's lifetime). The snapshot providers, a
 * writer key file ({@link loadWriterKey}) and the freshness policy ({@link loadPolicy}) are loaded
 * now (a KMS writer key at the first call).
 *
 * @throws {InvalidInputError} when the snapshot config, the writer key file or the policy is malformed
 */
export async function connectMcpDeps(
  config: McpServerConfig,
  options: { nowMs?: () => number } = {},
): Promise<ResealMcpDeps> {
  const writer = await loadWriterKey(config);
  const policy = await loadPolicy(config);
  const checkpointStore = config.checkpointsFile
    ? new FileCheckpointStore(config.checkpointsFile)
    : new MemoryCheckpointStore();
  const lazy = lazyMcpClient(
    () =>
      resolveMcpClient(config, {
        checkpointStore,
        writer,
        policy,
        ...(options.nowMs ? { nowMs: options.nowMs } : {}),
      }),
    stackPlace(config),
  );
  // Every tool naming a lineage of another tenant is TENANT_MISMATCH, nothing read or sent (docs/mcp.md, "Tenants").
  const client = config.tenantId ? tenantScopedClient(lazy, config.tenantId) : lazy;
  const loaded = config.configFile ? await loadResealConfig(config.configFile) : null;
  return {
    client,
    snapshots: loaded ? snapshotProviders(loaded.config.snapshot, { dir: loaded.dir }) : null,
    ...(options.nowMs ? { nowMs: options.nowMs } : {}),
  };
}
