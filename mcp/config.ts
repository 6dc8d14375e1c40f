import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { RESEAL_CONFIG_FILE } from '../client/reseal-config';
import { DEFAULT_STACK_NAME } from '../client/stack-outputs';
import { parseInput } from '../shared/schemas/parse';
import { McpEnvironmentSchema } from './mcp-environment-schema';

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
