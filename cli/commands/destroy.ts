import type { Command } from 'commander';
import { destroyShape } from '../../client/shapes/destroy-shape';
import { DEFAULT_STACK_NAME } from '../../client/stack-name';
import { escapedText } from '../../shared/schemas/escaped-text';
import type { CommandContext } from '../context';
import { BadInputError } from '../errors';
import { jsonText } from '../format/json-text';
import { repositoryRoot } from '../repository-root';
import { runCdk } from '../run-cdk';
import { stackContext } from '../stack-context';

interface DestroyOptions {
  readonly yes?: boolean;
  readonly json?: boolean;
  readonly stack: string;
}

/**
 * `reseal destroy --yes`: deletes the stack `reseal deploy` made, with the project's CDK
 * (docs/infrastructure.md, "Deploying"). Without `--yes` it refuses (exit 2): what the stack
 * holds (the lineage table and, after their waiting period, the KMS keys) goes with it unless the
 * stack was deployed with `removalPolicy=retain`.
 */
export function registerDestroy(program: Command, ctx: CommandContext): void {
  program
    .command('destroy')
    .summary('delete the deployed stack (cdk destroy); needs --yes')
    .description(
      'Deletes the Reseal stack with the CDK of this repository. The lineage table and its records are deleted with it (unless deployed with -c removalPolicy=retain), and the KMS keys are scheduled for deletion: records sealed under them can no longer be verified. Give --yes to confirm. Runs in a clone of the repository.',
    )
    .option('--yes', 'confirm: delete the stack and what it holds')
    .option('--json', 'print the result as JSON (the reseal.destroy/1 shape, docs/cli.md); the CDK output is not shown')
    .option('--stack <name>', 'CloudFormation stack name', DEFAULT_STACK_NAME)
    .action(async (options: DestroyOptions) => {
      if (!options.yes) {
        throw new BadInputError(
          `destroy deletes stack ${options.stack}, its lineage table and (after their waiting period) its KMS keys: records sealed under them can no longer be verified. Run again with --yes to confirm.`,
        );
      }
      const root = repositoryRoot();
      const quiet = options.json === true;
      if (!quiet) ctx.io.stderr(`destroy: cdk destroy ${escapedText(options.stack)}…\n`);
      await runCdk(
        ctx.io,
        root,
        ['destroy', 'ResealStack', '--force', '--no-notices', ...stackContext(options.stack)],
        { quiet, env: { ...ctx.io.env, CDK_DISABLE_VERSION_CHECK: '1' } as NodeJS.ProcessEnv },
      );
      ctx.io.stdout(
        options.json ? jsonText(destroyShape(options.stack)) : `stack ${escapedText(options.stack)}: destroyed\n`,
      );
    });
}
