import { type CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { z } from 'zod';
import { MAX_BATCHING_WINDOW_SECONDS } from '../shared/cost/deploy-settings';
import { TenantId } from '../shared/tenancy/tenants';
import { StackOutputsError } from './errors';
import { IntegrationIntervalSeconds } from './integration-interval-seconds';

import { DEFAULT_STACK_NAME } from './stack-name';

export { DEFAULT_STACK_NAME };

/**
 * Every CloudFormation output of a deployed Reseal stack, by its output name: the names are
 * defined here, and infra/reseal-stack.ts creates exactly these (its output table is typed by
 * this interface). Tests and the emulator deploy find every resource through them, never by
 * guessing names; a client needs the few in {@link ResealStackOutputs}.
 */
export interface StackOutputs {
  readonly TableName: string;
  readonly ResidualWritesQueueUrl: string;
  readonly ResidualWritesQueueArn: string;
  readonly ResidualWritesDlqUrl: string;
  /** FIFO; `MessageGroupId` = lineage id, `MessageDeduplicationId` = residual id. */
  readonly SealRequestsQueueUrl: string;
  readonly SealRequestsQueueArn: string;
  readonly SealRequestsDlqUrl: string;
  /** RecallRequested events EventBridge could not deliver to triage. */
  readonly TriageDlqUrl: string;
  readonly EventBusName: string;
  readonly EventBusArn: string;
  /** KMS HMAC_256 key ARN (the sealer's `MAC_KEY_ID`). */
  readonly MacKeyArn: string;
  /** `alias/<stack name>-mac`. */
  readonly MacKeyAlias: string;
  /** KMS Ed25519 key of checkpoints (and of sealer refusals stored before the sealer key). */
  readonly LogKeyArn: string;
  /** KMS Ed25519 key of guard refusals. */
  readonly GuardKeyArn: string;
  /** KMS Ed25519 key of sealer refusals (key name `<LogName>/sealer`). */
  readonly SealerKeyArn: string;
  /** Signed-note key name of the log, `reseal/<stack name>`. */
  readonly LogName: string;
  readonly GuardFunctionName: string;
  readonly SealerFunctionName: string;
  readonly TriageFunctionName: string;
  /** The remote MCP endpoint, `https://<McpApiId>.execute-api.<region>.amazonaws.com/mcp` (docs/mcp.md, "Remote MCP"). */
  readonly McpUrl: string;
  /** The HTTP API serving {@link StackOutputs.McpUrl}. */
  readonly McpApiId: string;
  readonly McpFunctionName: string;
  /**
   * The integration interval the stack deploys with, whole seconds as text (`-c
   * integrationIntervalSeconds=N`; docs/deployment-log.md, "Freshness window and interval").
   */
  readonly IntegrationIntervalSeconds: string;
}

/** Every key of {@link StackOutputs}. */
export const STACK_OUTPUT_KEYS = [
  'TableName',
  'ResidualWritesQueueUrl',
  'ResidualWritesQueueArn',
  'ResidualWritesDlqUrl',
  'SealRequestsQueueUrl',
  'SealRequestsQueueArn',
  'SealRequestsDlqUrl',
  'TriageDlqUrl',
  'EventBusName',
  'EventBusArn',
  'MacKeyArn',
  'MacKeyAlias',
  'LogKeyArn',
  'GuardKeyArn',
  'SealerKeyArn',
  'LogName',
  'GuardFunctionName',
  'SealerFunctionName',
  'TriageFunctionName',
  'McpUrl',
  'McpApiId',
  'McpFunctionName',
  'IntegrationIntervalSeconds',
] as const satisfies readonly (keyof StackOutputs)[];

/**
 * The resources of a deployed Reseal stack a client needs, from its CloudFormation outputs
 * (`TableName`, `ResidualWritesQueueUrl`, `EventBusName`, `MacKeyArn`, `LogKeyArn`, `GuardKeyArn`,
 * `SealerKeyArn`, `LogName`).
 */
export interface ResealStackOutputs {
  /** DynamoDB lineage table name. */
  readonly tableName: string;
  /** URL of the standard SQS `residual-writes` queue agents send to. */
  readonly residualWritesQueueUrl: string;
  /** Name of the EventBridge bus carrying `RecallRequested` and the other Reseal events. */
  readonly eventBusName: string;
  /** ARN of the KMS `HMAC_256` key records are sealed with (the `keyId` in their headers). */
  readonly macKeyArn: string;
  /** ARN of the KMS Ed25519 log key (checkpoints, and the sealer's refusals stored before the sealer key); its public key verifies them. */
  readonly logKeyArn: string;
  /** ARN of the KMS Ed25519 guard key (the guard's refusals). */
  readonly guardKeyArn: string;
  /** ARN of the KMS Ed25519 sealer key (the sealer's refusals; docs/verifiable-log.md, "Keys"). */
  readonly sealerKeyArn: string;
  /** The log name, `reseal/<stackName>`: key name of the log key and prefix of every checkpoint origin. */
  readonly logName: string;
  /**
   * In a stack with tenants (docs/authorship.md, "Tenancy"), each tenant's residual-writes queue
   * URL by tenant id (the `TenantQueueUrls` output): a write goes to its tenant's queue, and a
   * write or recall of no tenant is refused at the caller (`TenantRequiredError`). Absent: one tenant.
   */
  readonly tenantQueueUrls?: Readonly<Record<string, string>>;
  /**
   * The stack's integration interval, whole seconds 1..300 (the `IntegrationIntervalSeconds`
   * output): a client states its freshness window as maximum age + this (docs/deployment-log.md,
   * "Freshness window and interval"). Absent in a stack deployed before that output: the default
   * interval, 2 s (`DEFAULT_INTEGRATION_INTERVAL_SECONDS`), which such a stack deployed with.
   */
  readonly integrationIntervalSeconds?: number;
}

const OUTPUT_KEYS: Record<
  Exclude<keyof ResealStackOutputs, 'tenantQueueUrls' | 'integrationIntervalSeconds'>,
  keyof StackOutputs
> = {
  tableName: 'TableName',
  residualWritesQueueUrl: 'ResidualWritesQueueUrl',
  eventBusName: 'EventBusName',
  macKeyArn: 'MacKeyArn',
  logKeyArn: 'LogKeyArn',
  guardKeyArn: 'GuardKeyArn',
  sealerKeyArn: 'SealerKeyArn',
  logName: 'LogName',
};

/**
 * Reads a deployed stack's outputs with `DescribeStacks`.
 *
 * @param stackName - CloudFormation stack name, default {@link DEFAULT_STACK_NAME}
 * @param cfn - a CloudFormation client (or anything with its `send`)
 * @throws {StackOutputsError} when the stack is missing or an output is absent (naming it)
 * @example
 * const outputs = await resolveStackOutputs('ResealStack', new CloudFormationClient({}));
 */
export async function resolveStackOutputs(
  stackName: string,
  cfn: Pick<CloudFormationClient, 'send'>,
): Promise<ResealStackOutputs> {
  let outputs: { OutputKey?: string; OutputValue?: string }[] | undefined;
  try {
    const out = await cfn.send(new DescribeStacksCommand({ StackName: stackName }));
    outputs = out.Stacks?.[0]?.Outputs;
    if (!out.Stacks?.[0]) throw new StackOutputsError(stackName, 'stack not found');
  } catch (error) {
    if (error instanceof StackOutputsError) throw error;
    const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    throw new StackOutputsError(stackName, `cannot describe the stack (${reason})`, { cause: error });
  }
  const byKey = Object.fromEntries((outputs ?? []).map((o) => [o.OutputKey ?? '', o.OutputValue]));
  return clientOutputsFrom(byKey, stackName);
}

/**
 * Picks what a client needs out of a stack's outputs as CloudFormation names them (the
 * `DescribeStacks` outputs, or one stack of a `cdk deploy --outputs-file` document).
 *
 * @param outputs - output name → value, e.g. `{ TableName: 'reseal-…', MacKeyArn: 'arn:…', … }`
 * @param stackName - for the error message
 * @throws {StackOutputsError} naming every output that is absent or empty, or when
 *   `IntegrationIntervalSeconds` (optional) or `TenantQueueUrls` (optional) is malformed
 */
export function clientOutputsFrom(
  outputs: Readonly<Record<string, string | undefined>>,
  stackName = DEFAULT_STACK_NAME,
): ResealStackOutputs {
  const resolved: Partial<Record<keyof ResealStackOutputs, string>> = {};
  const missing: string[] = [];
  for (const [field, key] of Object.entries(OUTPUT_KEYS) as [keyof ResealStackOutputs, string][]) {
    const value = outputs[key];
    if (value) resolved[field] = value;
    else missing.push(key);
  }
  if (missing.length > 0) throw new StackOutputsError(stackName, `missing outputs ${missing.join(', ')}`);
  const interval = outputs[INTEGRATION_INTERVAL_OUTPUT];
  const tenants = outputs[TENANT_QUEUE_URLS_OUTPUT];
  return {
    ...(resolved as ResealStackOutputs),
    ...(interval === undefined ? {} : { integrationIntervalSeconds: integrationIntervalOf(interval, stackName) }),
    ...(tenants ? { tenantQueueUrls: tenantQueueUrlsOf(tenants, stackName) } : {}),
  };
}

const INTEGRATION_INTERVAL_OUTPUT = 'IntegrationIntervalSeconds' satisfies keyof StackOutputs;

/** @throws {StackOutputsError} when the output is not whole seconds 1..300 (never read as the default) */
function integrationIntervalOf(text: string, stackName: string): number {
  const parsed = IntegrationIntervalSeconds.safeParse(/^[0-9]{1,3}$/.test(text) ? Number(text) : Number.NaN);
  if (!parsed.success) {
    throw new StackOutputsError(
      stackName,
      `output ${INTEGRATION_INTERVAL_OUTPUT} is ${JSON.stringify(text.slice(0, 32))}, not whole seconds 1 to ${MAX_BATCHING_WINDOW_SECONDS}`,
    );
  }
  return parsed.data;
}

/** The output naming each tenant's queue URL (infra/reseal-stack.ts creates it in a stack with tenants). */
export const TENANT_QUEUE_URLS_OUTPUT = 'TenantQueueUrls';

/** `TenantQueueUrls` as JSON, tenant id → queue URL, at least one tenant. */
const TenantQueueUrlsSchema = z.record(TenantId, z.string().min(1)).refine((urls) => Object.keys(urls).length > 0, {
  message: 'names no tenant',
});

/** @throws {StackOutputsError} when the output is not a JSON object of tenant ids to queue URLs */
function tenantQueueUrlsOf(text: string, stackName: string): Readonly<Record<string, string>> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const parsed = TenantQueueUrlsSchema.safeParse(json);
  if (!parsed.success) {
    throw new StackOutputsError(stackName, `output ${TENANT_QUEUE_URLS_OUTPUT} is not tenant id → queue URL JSON`);
  }
  return parsed.data;
}

/**
 * Picks one stack's outputs, every one of {@link STACK_OUTPUT_KEYS}, out of a
 * `cdk deploy --outputs-file` document.
 * @throws {StackOutputsError} when the stack or any expected output is missing or empty (naming them)
 */
export function parseStackOutputs(document: unknown, stackName = DEFAULT_STACK_NAME): StackOutputs {
  const stack = (document as Record<string, Record<string, unknown> | undefined> | null)?.[stackName];
  if (!stack) throw new StackOutputsError(stackName, 'not in the outputs file');
  const missing = STACK_OUTPUT_KEYS.filter((key) => typeof stack[key] !== 'string' || stack[key] === '');
  if (missing.length > 0) throw new StackOutputsError(stackName, `missing outputs ${missing.join(', ')}`);
  return Object.fromEntries(STACK_OUTPUT_KEYS.map((key) => [key, stack[key]])) as unknown as StackOutputs;
}
