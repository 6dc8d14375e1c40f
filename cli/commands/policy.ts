import type { Command } from 'commander';
import {
  DEFAULT_INTEGRATION_INTERVAL_SECONDS,
  DEFAULT_MAX_AGE_SECONDS,
  defaultPolicyText,
  freshnessPolicy,
} from '../../client/freshness-policy';
import { policyShape } from '../../client/shapes/policy-shape';
import { InvalidInputError } from '../../shared/errors';
import { connect, STACK_OPTION } from '../connect';
import type { CommandContext } from '../context';
import { BadInputError } from '../errors';
import { ExitCode } from '../exit-codes';
import { jsonText } from '../format/json-text';
import { formerMaxAgeOption, maxAgeSeconds, maxAgeSecondsOption } from '../max-age-option';

interface PolicyOptions {
  readonly witnessVkey?: string;
  readonly witnessUrl?: string;
  readonly maxAgeSeconds: number;
  /** The former name of `--max-age-seconds` (seconds too). */
  readonly maxAge?: number;
  readonly json?: boolean;
  readonly stack: string;
}

const UNWITNESSED_NOTE =
  'UNWITNESSED: the log alone. Deployment checkpoints are checked with the log key, but a cold client cannot detect a rollback of the whole table; deploy a witness and pass --witness-vkey and --witness-url.';

/** `reseal policy`: prints the stack's default C2SP tlog-policy (docs/deployment-log.md, "Clients"). */
export function registerPolicy(program: Command, ctx: CommandContext): void {
  program
    .command('policy')
    .summary("print the stack's default tlog-policy for freshness (online: reads the log key)")
    .description(
      "Prints the C2SP tlog-policy a client checks deployment checkpoints against by default: the stack's log key; with --witness-vkey and --witness-url (the witness stack's WitnessVkey and WitnessUrl outputs), that witness and quorum w1; else quorum none (UNWITNESSED). Save it and pass it with --policy to recall, publish --wait, export --receipt and verify --receipt (or RESEAL_POLICY to reseal mcp). The maximum age is a client setting, not a policy line.",
    )
    .option('--witness-vkey <VKEY>', "the witness's cosigner vkey (the witness stack's WitnessVkey)")
    .option('--witness-url <URL>', "the witness's submission prefix (the witness stack's WitnessUrl)")
    .addOption(maxAgeSecondsOption('oldest quorum of cosignatures accepted, seconds', DEFAULT_MAX_AGE_SECONDS))
    .addOption(formerMaxAgeOption())
    .option('--json', 'print the policy and its settings as JSON (the reseal.policy/1 shape, docs/cli.md)')
    .option(...STACK_OPTION)
    .action(async (options: PolicyOptions, command: Command) => {
      if ((options.witnessVkey === undefined) !== (options.witnessUrl === undefined)) {
        throw new BadInputError('policy: give both --witness-vkey and --witness-url, or neither');
      }
      const client = await connect(ctx.io, options.stack);
      const witness =
        options.witnessVkey !== undefined && options.witnessUrl !== undefined
          ? { vkey: options.witnessVkey, url: options.witnessUrl }
          : undefined;
      const text = defaultPolicyText(await client.logKey(), witness);
      let policy: ReturnType<typeof freshnessPolicy>;
      try {
        policy = freshnessPolicy(
          text,
          maxAgeSeconds(ctx.io, options, command.getOptionValueSource('maxAgeSeconds') === 'cli') ??
            DEFAULT_MAX_AGE_SECONDS,
          // The stack's own interval (its IntegrationIntervalSeconds output); a stack deployed before that output: 2 s.
          client.outputs.integrationIntervalSeconds ?? DEFAULT_INTEGRATION_INTERVAL_SECONDS,
        );
      } catch (error) {
        if (!(error instanceof InvalidInputError)) throw error;
        throw new BadInputError(`policy: ${error.message}`, { cause: error });
      }
      if (options.json) {
        ctx.io.stdout(jsonText(policyShape(policy)));
      } else {
        ctx.io.stdout(policy.text);
        if (policy.witnessing === 'UNWITNESSED') ctx.io.stderr(`${UNWITNESSED_NOTE}\n`);
        else ctx.io.stderr(`freshness window of a cold client: ${policy.windowSeconds} s (max age + interval)\n`);
      }
      ctx.exit(ExitCode.OK);
    });
}
