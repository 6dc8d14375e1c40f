/**
 * Deploys the real stack with the real CDK CLI (from node_modules) to an emulator endpoint, then
 * checks — and on the embedded emulator repairs — the queue attributes emulators have dropped
 * (docs/infrastructure.md, "Emulator notes": after every deploy, assert FifoQueue, redrive and
 * size limits).
 *
 * CLI: `npx tsx scripts/emulator/deploy.ts` deploys to `AWS_ENDPOINT_URL`.
 */
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CloudFormationClient, DescribeStackResourcesCommand } from '@aws-sdk/client-cloudformation';
import { GetQueueAttributesCommand, SetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { parseStackOutputs, type StackOutputs } from '../../client/stack-outputs';
import { checkEndpoint } from './check-endpoint';
import { EMULATOR_DIR, ROOT } from './emulator';

/** CloudFormation stack name the emulator deploy uses (the app's default stack). */
export const STACK_NAME = 'ResealStack';
/** The emulators' default account. */
export const EMULATOR_ACCOUNT = '000000000000';
/** The region the stack is deployed to in the emulator (also set as `AWS_REGION` for its clients). */
export const EMULATOR_REGION = 'us-east-1';

/** Options of {@link deployStack}. */
export interface DeployOptions {
  /** True when the endpoint is the embedded MiniStack: only then are dropped attributes re-applied. */
  readonly embedded?: boolean;
  /** Progress lines. @default console.log with a `[deploy]` prefix */
  readonly log?: (line: string) => void;
  /**
   * Deploy the app's stack under this CloudFormation name (the `stackName` context), beside the
   * default one, e.g. a stack with tenants. @default {@link STACK_NAME}
   */
  readonly stackName?: string;
  /** Further context values (`-c name=value`), e.g. `tenants`. @default none */
  readonly context?: Readonly<Record<string, string>>;
}

/** Credentials and settings every emulator call uses (never a real account's). */
export function emulatorEnv(endpoint: string): Record<string, string> {
  return {
    AWS_ENDPOINT_URL: endpoint,
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
    AWS_REGION: EMULATOR_REGION,
    AWS_DEFAULT_REGION: EMULATOR_REGION,
  };
}

/** SDK client settings for the emulator. */
export function clientConfig(endpoint: string) {
  return {
    endpoint,
    region: EMULATOR_REGION,
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  };
}

/**
 * Where `cdk deploy` writes a stack's outputs on the emulator at `port`: keyed by port (as the
 * cloud assembly `cdk.out-<port>` is), so two emulators started from one clone never overwrite
 * each other's; another `stackName` is in the name too.
 */
export function stackOutputsFile(port: string, stackName: string = STACK_NAME): string {
  const suffix = stackName === STACK_NAME ? '' : `-${stackName}`;
  return join(EMULATOR_DIR, `outputs${suffix}-${port}.json`);
}

/**
 * `cdk bootstrap` then `cdk deploy ResealStack` against `endpoint`, then {@link verifyQueues}.
 *
 * The cloud assembly goes to `.emulator/cdk.out-<port>` so that runs in the same tree do not share
 * one; outputs go to `.emulator/outputs-<port>.json` ({@link stackOutputsFile}; another
 * `stackName`: `cdk.out-<stackName>-<port>` and `outputs-<stackName>-<port>.json`). `RESEAL_ENDPOINT_OVERRIDE`, when set, is passed as
 * the `endpointOverride` context (functions get it as `AWS_ENDPOINT_URL`) for emulators that do not
 * set that variable in function processes themselves; MiniStack does.
 *
 * @throws {Error} when a CDK command fails or a queue's attributes are wrong after the repair
 */
export async function deployStack(endpoint: string, options: DeployOptions = {}): Promise<StackOutputs> {
  const log = options.log ?? ((line: string) => console.log(`[deploy] ${line}`));
  checkEndpoint(endpoint);
  const port = new URL(endpoint).port || 'default';
  const stackName = options.stackName ?? STACK_NAME;
  // Another stack's assembly and outputs go to files of their own.
  const suffix = stackName === STACK_NAME ? '' : `-${stackName}`;
  const output = join(EMULATOR_DIR, `cdk.out${suffix}-${port}`);
  const outputsFile = stackOutputsFile(port, stackName);
  const {
    AWS_PROFILE: _profile,
    AWS_SESSION_TOKEN: _token,
    AWS_DEFAULT_PROFILE: _defaultProfile,
    ...hostEnv
  } = process.env;
  const env = { ...hostEnv, ...emulatorEnv(endpoint), CDK_DISABLE_VERSION_CHECK: '1' };
  const context = [
    ...(process.env.RESEAL_ENDPOINT_OVERRIDE ? ['-c', `endpointOverride=${process.env.RESEAL_ENDPOINT_OVERRIDE}`] : []),
    ...(stackName === STACK_NAME ? [] : ['-c', `stackName=${stackName}`]),
    ...Object.entries(options.context ?? {}).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
  ];

  const started = Date.now();
  // Run from .emulator/ (no cdk.json there): with an explicit environment, bootstrap then needs no
  // synthesis of the app, which would bundle every function once more (about 20 s).
  await cdk(['bootstrap', `aws://${EMULATOR_ACCOUNT}/${EMULATOR_REGION}`, '--no-notices'], env, log, EMULATOR_DIR);
  log(`bootstrap done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const deployStarted = Date.now();
  await cdk(
    [
      'deploy',
      STACK_NAME,
      '--require-approval',
      'never',
      '--no-notices',
      '--progress',
      'events',
      '--output',
      output,
      '--outputs-file',
      outputsFile,
      ...context,
    ],
    env,
    log,
    ROOT,
  );
  log(`deploy done in ${((Date.now() - deployStarted) / 1000).toFixed(1)} s`);
  const outputs = parseStackOutputs(JSON.parse(readFileSync(outputsFile, 'utf8')), stackName);
  const template = JSON.parse(readFileSync(join(output, `${STACK_NAME}.template.json`), 'utf8')) as Template;
  rmSync(output, { recursive: true, force: true });

  await verifyQueues(endpoint, template, { repair: options.embedded === true, log, stackName });
  return outputs;
}

/** CloudFormation stack name of the witness on the emulator (infra/app.ts, `ResealWitnessStack`). */
export const WITNESS_STACK_NAME = 'ResealWitnessStack';

/** The outputs of a deployed witness stack (infra/witness-stack.ts). */
export interface WitnessStackOutputs {
  /** Submission prefix, `https://<id>.lambda-url.<region>.on.aws/`. */
  readonly WitnessUrl: string;
  readonly WitnessName: string;
  /** Cosigner vkey (`cosignature/v1`). */
  readonly WitnessVkey: string;
  readonly WitnessKeyArn: string;
  readonly WitnessTableName: string;
  readonly WitnessFunctionName: string;
}

const WITNESS_OUTPUT_KEYS = [
  'WitnessUrl',
  'WitnessName',
  'WitnessVkey',
  'WitnessKeyArn',
  'WitnessTableName',
  'WitnessFunctionName',
] as const;

/**
 * The second phase of docs/witness.md, "Deployment": `cdk deploy ResealWitnessStack` with the
 * log's vkey(s) as `witnessLogKeys`, against an endpoint where {@link deployStack} already
 * bootstrapped the environment. The app holds the witness stack only with that context, so the
 * ResealStack deploy is unchanged.
 *
 * @throws {Error} when the deploy fails or an output is missing
 */
export async function deployWitnessStack(
  endpoint: string,
  logKeys: string,
  options: Pick<DeployOptions, 'log'> = {},
): Promise<WitnessStackOutputs> {
  const log = options.log ?? ((line: string) => console.log(`[deploy] ${line}`));
  checkEndpoint(endpoint);
  const port = new URL(endpoint).port || 'default';
  const output = join(EMULATOR_DIR, `cdk.out-witness-${port}`);
  const outputsFile = join(EMULATOR_DIR, `witness-outputs-${port}.json`);
  const {
    AWS_PROFILE: _profile,
    AWS_SESSION_TOKEN: _token,
    AWS_DEFAULT_PROFILE: _defaultProfile,
    ...hostEnv
  } = process.env;
  const env = { ...hostEnv, ...emulatorEnv(endpoint), CDK_DISABLE_VERSION_CHECK: '1' };
  const context = process.env.RESEAL_ENDPOINT_OVERRIDE
    ? ['-c', `endpointOverride=${process.env.RESEAL_ENDPOINT_OVERRIDE}`]
    : [];
  const started = Date.now();
  await cdk(
    [
      'deploy',
      WITNESS_STACK_NAME,
      '--require-approval',
      'never',
      '--no-notices',
      '--progress',
      'events',
      '--output',
      output,
      '--outputs-file',
      outputsFile,
      '-c',
      `witnessLogKeys=${logKeys}`,
      ...context,
    ],
    env,
    log,
    ROOT,
  );
  log(`witness deploy done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const document = JSON.parse(readFileSync(outputsFile, 'utf8')) as Record<string, Record<string, unknown>>;
  rmSync(output, { recursive: true, force: true });
  rmSync(outputsFile, { force: true });
  const stack = document[WITNESS_STACK_NAME] ?? {};
  const missing = WITNESS_OUTPUT_KEYS.filter((key) => typeof stack[key] !== 'string' || stack[key] === '');
  if (missing.length > 0) throw new Error(`${WITNESS_STACK_NAME}: missing outputs ${missing.join(', ')}`);
  return Object.fromEntries(WITNESS_OUTPUT_KEYS.map((key) => [key, stack[key]])) as unknown as WitnessStackOutputs;
}

/**
 * The URL at which the emulator serves a function URL's `path` (MiniStack's path-based form
 * `<endpoint>/_aws/lambda-url/<url id>/<path>`); on real AWS the function URL itself.
 */
export function emulatorFunctionUrl(endpoint: string, functionUrl: string, path: string): string {
  const id = new URL(functionUrl).hostname.split('.')[0] ?? '';
  return `${endpoint.replace(/\/$/, '')}/_aws/lambda-url/${id}${path}`;
}

type Template = { Resources: Record<string, { Type: string; Properties?: Record<string, unknown> }> };

/** Runs the CDK CLI from node_modules; rejects with the output's tail when it fails. */
function cdk(args: string[], env: NodeJS.ProcessEnv, log: (line: string) => void, cwd: string): Promise<void> {
  const bin = join(ROOT, 'node_modules', '.bin', 'cdk');
  log(`cdk ${args.join(' ')}`);
  return new Promise((resolveRun, reject) => {
    const child = spawn(bin, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    const keep = (chunk: Buffer) => {
      text = (text + chunk.toString()).slice(-20_000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0
        ? resolveRun()
        : reject(new Error(`cdk ${args[0]} failed (exit ${code}):\n${text.split('\n').slice(-40).join('\n')}`)),
    );
  });
}

/** The attributes a queue must have, from its template properties (SQS attribute names and string values). */
function expectedAttributes(
  props: Record<string, unknown>,
  arnOf: (logicalId: string) => string,
): Record<string, string> {
  const expected: Record<string, string> = {
    FifoQueue: String(props.FifoQueue === true),
    MaximumMessageSize: String(props.MaximumMessageSize ?? 262_144),
    VisibilityTimeout: String(props.VisibilityTimeout ?? 30),
  };
  if (props.MessageRetentionPeriod !== undefined)
    expected.MessageRetentionPeriod = String(props.MessageRetentionPeriod);
  if (props.SqsManagedSseEnabled !== undefined) expected.SqsManagedSseEnabled = String(props.SqsManagedSseEnabled);
  const redrive = props.RedrivePolicy as
    | { deadLetterTargetArn: { 'Fn::GetAtt': [string, string] }; maxReceiveCount: number }
    | undefined;
  if (redrive) {
    expected.RedrivePolicy = JSON.stringify({
      deadLetterTargetArn: arnOf(redrive.deadLetterTargetArn['Fn::GetAtt'][0]),
      maxReceiveCount: redrive.maxReceiveCount,
    });
  }
  return expected;
}

/** Compares attribute values; RedrivePolicy as parsed JSON with a numeric maxReceiveCount. */
function sameAttribute(name: string, actual: string | undefined, expected: string): boolean {
  if (actual === undefined) return name === 'FifoQueue' && expected === 'false';
  if (name !== 'RedrivePolicy') return actual === expected;
  try {
    const a = JSON.parse(actual) as { deadLetterTargetArn: string; maxReceiveCount: number | string };
    const e = JSON.parse(expected) as { deadLetterTargetArn: string; maxReceiveCount: number };
    return a.deadLetterTargetArn === e.deadLetterTargetArn && Number(a.maxReceiveCount) === e.maxReceiveCount;
  } catch {
    return false;
  }
}

/**
 * Asserts with GetQueueAttributes that every queue of the template has its FifoQueue,
 * RedrivePolicy, MaximumMessageSize, VisibilityTimeout (and retention, SSE) as declared. With
 * `repair`, first re-applies the stack's own values of any dropped mutable attribute through
 * SetQueueAttributes, and logs each one it re-applied.
 *
 * @throws {Error} listing every queue attribute that is still wrong
 */
export async function verifyQueues(
  endpoint: string,
  template: Template,
  options: { repair: boolean; log: (line: string) => void; stackName?: string },
): Promise<void> {
  const stackName = options.stackName ?? STACK_NAME;
  const sqs = new SQSClient({ ...clientConfig(endpoint), useQueueUrlAsEndpoint: false });
  const cfn = new CloudFormationClient(clientConfig(endpoint));
  const { StackResources = [] } = await cfn.send(new DescribeStackResourcesCommand({ StackName: stackName }));
  const urlOf = (logicalId: string): string => {
    const url = StackResources.find((r) => r.LogicalResourceId === logicalId)?.PhysicalResourceId;
    if (!url) throw new Error(`stack ${stackName} has no deployed resource ${logicalId}`);
    return url;
  };
  const queues = Object.entries(template.Resources).filter(([, r]) => r.Type === 'AWS::SQS::Queue');
  const attributes = new Map<string, Record<string, string>>();
  for (const [id] of queues) {
    const { Attributes = {} } = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: urlOf(id), AttributeNames: ['All'] }),
    );
    attributes.set(id, Attributes);
  }
  const arnOf = (logicalId: string): string => {
    const arn = attributes.get(logicalId)?.QueueArn;
    if (!arn) throw new Error(`no QueueArn for ${logicalId}`);
    return arn;
  };

  const problems: string[] = [];
  for (const [id, resource] of queues) {
    const expected = expectedAttributes(resource.Properties ?? {}, arnOf);
    let actual = attributes.get(id) ?? {};
    const wrong = Object.keys(expected).filter((name) => !sameAttribute(name, actual[name], expected[name] as string));
    const fixable = wrong.filter((name) => name !== 'FifoQueue');
    if (options.repair && fixable.length > 0) {
      const patch = Object.fromEntries(fixable.map((name) => [name, expected[name] as string]));
      await sqs.send(new SetQueueAttributesCommand({ QueueUrl: urlOf(id), Attributes: patch }));
      options.log(
        `EMULATOR GAP: queue ${id} was deployed without the stack's ${fixable.join(', ')}; ` +
          `re-applied the stack's own values with SetQueueAttributes: ${JSON.stringify(patch)}`,
      );
      ({ Attributes: actual = {} } = await sqs.send(
        new GetQueueAttributesCommand({ QueueUrl: urlOf(id), AttributeNames: ['All'] }),
      ));
    }
    for (const name of Object.keys(expected)) {
      if (!sameAttribute(name, actual[name], expected[name] as string)) {
        problems.push(`${id}.${name}: expected ${expected[name]}, got ${actual[name] ?? '(absent)'}`);
      }
    }
  }
  if (problems.length > 0) throw new Error(`deployed queues differ from the stack:\n  ${problems.join('\n  ')}`);
  options.log(
    `checked ${queues.length} queues: FifoQueue, RedrivePolicy, MaximumMessageSize, VisibilityTimeout as declared`,
  );
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const endpoint = process.env.AWS_ENDPOINT_URL;
  if (!endpoint) {
    console.error('set AWS_ENDPOINT_URL (e.g. from `npx tsx scripts/emulator/emulator.ts start`)');
    process.exit(2);
  }
  deployStack(checkEndpoint(endpoint), { embedded: process.env.RESEAL_EMBEDDED_EMULATOR === '1' })
    .then((outputs) => console.log(JSON.stringify(outputs, null, 2)))
    .catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
}
