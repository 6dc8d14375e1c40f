import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Command, InvalidArgumentError } from 'commander';
import { deployShape } from '../../client/shapes/deploy-shape';
import { DEFAULT_STACK_NAME } from '../../client/stack-name';
import { deployEstimate } from '../../shared/cost/deploy-estimate';
import { PriceTableSchema } from '../../shared/cost/price-table';
import { parseInput } from '../../shared/schemas/parse';
import { connect } from '../connect';
import type { CommandContext } from '../context';
import { checkDeployContext, deployContext } from '../deploy-context-check';
import { deployEstimateText } from '../format/deploy-estimate';
import { jsonText } from '../format/json-text';
import { monthlyResources } from '../monthly-resources';
import { repositoryRoot } from '../repository-root';
import { runCdk } from '../run-cdk';
import { sdkConfig } from '../sdk-config';
import { stackContext } from '../stack-context';
import { templateDeploySettings } from '../template-deploy-settings';

interface DeployOptions {
  readonly context: string[];
  readonly dryRun?: boolean;
  readonly json?: boolean;
  readonly stack: string;
}

/** Collects `-c KEY=VALUE` values. @throws {InvalidArgumentError} for one without `KEY=` */
function contextOption(value: string, previous: string[]): string[] {
  if (!/^[A-Za-z][\w.:-]*=/.test(value))
    throw new InvalidArgumentError('expected KEY=VALUE, e.g. removalPolicy=retain');
  return [...previous, value];
}

/**
 * `reseal deploy`: deploys the stack to the configured AWS account with the project's CDK
 * (bootstrapping the environment first when it has no `CDKToolkit` stack), then prints the stack
 * outputs, the log key to pin and the cost estimate for the settings the synthesized template holds
 * (docs/infrastructure.md, "Deploying", "What a deployment costs").
 * `--dry-run` only synthesizes and estimates: no account, credentials or network.
 */
export function registerDeploy(program: Command, ctx: CommandContext): void {
  program
    .command('deploy')
    .summary('deploy the stack with the CDK, then print its outputs, the log key and a cost estimate')
    .description(
      'Deploys the Reseal stack to the AWS account and region of the usual SDK configuration (bootstrapping it first when needed) with the CDK of this repository, then prints the stack outputs, the log key to pin (reseal verify --receipt --log-key), and a cost estimate per million writes and recalls from the bench-measured usage and bench/prices.json, for the settings deployed (-c guardBatchingWindowSeconds, integrationIntervalSeconds, tableCapacity) and beside it for the alternatives. --dry-run synthesizes and estimates with no AWS account. Runs in a clone of the repository.',
    )
    .option('--dry-run', 'synthesize the stack and print the estimate; deploy nothing (no AWS account needed)')
    .option('--json', 'print the result as JSON (the reseal.deploy/1 shape, docs/cli.md); the CDK output is not shown')
    .option('--stack <name>', 'CloudFormation stack name', DEFAULT_STACK_NAME)
    .option(
      '-c, --context <KEY=VALUE>',
      'a context value of the CDK app, repeatable (docs/infrastructure.md, "Configuration"), e.g. removalPolicy=retain',
      contextOption,
      [],
    )
    .action(async (options: DeployOptions) => {
      const root = repositoryRoot();
      // Before the CDK: a bad setting is one line and exit 2, with nothing bootstrapped or bundled.
      checkDeployContext(await deployContext(root, options.context));
      const quiet = options.json === true;
      const say = (line: string) => {
        if (!quiet) ctx.io.stderr(`${line}\n`);
      };
      const env = { ...ctx.io.env, CDK_DISABLE_VERSION_CHECK: '1' } as NodeJS.ProcessEnv;
      const out = await mkdtemp(join(tmpdir(), 'reseal-deploy-'));
      try {
        const cdkOptions = { quiet, env };
        const context = [...stackContext(options.stack), ...options.context.flatMap((c) => ['-c', c])];
        let outputs: Record<string, string> | null = null;
        let logKey: string | null = null;
        if (options.dryRun) {
          say(`deploy --dry-run: synthesizing ${options.stack} (cdk synth; nothing is deployed)…`);
          await runCdk(
            ctx.io,
            root,
            ['synth', 'ResealStack', '--quiet', '--no-notices', '--output', out, ...context],
            cdkOptions,
          );
        } else {
          if (!(await bootstrapped(ctx))) {
            say('deploy: this account and region have no CDKToolkit stack: cdk bootstrap…');
            await runCdk(ctx.io, root, ['bootstrap', '--no-notices', ...context], cdkOptions);
          }
          say(`deploy: cdk deploy ${options.stack} (a few minutes)…`);
          const outputsFile = join(out, 'outputs.json');
          await runCdk(
            ctx.io,
            root,
            [
              'deploy',
              'ResealStack',
              '--require-approval',
              'never',
              '--no-notices',
              '--output',
              out,
              '--outputs-file',
              outputsFile,
              ...context,
            ],
            cdkOptions,
          );
          const { parseStackOutputs } = await import('../../client/stack-outputs');
          const { formatVerifierKey } = await import('../../shared/log/note-key');
          outputs = { ...parseStackOutputs(JSON.parse(await readFile(outputsFile, 'utf8')), options.stack) };
          // From KMS, never from a stack pin: a pin kept from an earlier deployment (or planted in
          // the working directory) would print a key this deployment does not hold.
          logKey = formatVerifierKey(await (await connect(ctx.io, options.stack, { pin: false })).logKey());
        }
        const prices = parseInput(
          PriceTableSchema,
          JSON.parse(await readFile(join(root, 'bench', 'prices.json'), 'utf8')),
          'bench/prices.json',
        );
        // The settings the synthesized template holds (the -c values given and cdk.json's context).
        const templateFile = join(out, 'ResealStack.template.json');
        const settings = templateDeploySettings(JSON.parse(await readFile(templateFile, 'utf8')));
        const estimate = deployEstimate(prices, await monthlyResources(templateFile), settings);
        if (options.json) {
          ctx.io.stdout(
            jsonText(deployShape({ stack: options.stack, dryRun: options.dryRun === true, outputs, logKey, estimate })),
          );
          return;
        }
        const lines = options.dryRun
          ? [`stack ${options.stack}: synthesized (dry run, nothing deployed)`]
          : [
              `stack ${options.stack}: deployed (${sdkConfig(ctx.io.env).region})`,
              'outputs:',
              ...Object.entries(outputs ?? {}).map(([key, value]) => `  ${key.padEnd(24)} ${value}`),
              `log key (pin it: RESEAL_LOG_KEY, or reseal verify --receipt --log-key): ${logKey}`,
            ];
        ctx.io.stdout(`${[...lines, deployEstimateText(estimate)].join('\n')}\n`);
      } finally {
        await rm(out, { recursive: true, force: true });
      }
    });
}

/** Whether the account and region already have the CDK's bootstrap stack (`CDKToolkit`). */
async function bootstrapped(ctx: CommandContext): Promise<boolean> {
  const { CloudFormationClient, DescribeStacksCommand } = await import('@aws-sdk/client-cloudformation');
  try {
    const { Stacks } = await new CloudFormationClient(sdkConfig(ctx.io.env)).send(
      new DescribeStacksCommand({ StackName: 'CDKToolkit' }),
    );
    return (Stacks ?? []).some((s) => s.StackStatus?.endsWith('_COMPLETE') && !s.StackStatus.startsWith('DELETE'));
  } catch (error) {
    if ((error as { name?: string }).name === 'ValidationError') return false; // "Stack with id CDKToolkit does not exist"
    throw error;
  }
}
