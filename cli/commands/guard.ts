import type { Command } from 'commander';
import { guardVerdictShape } from '../../client/shapes/guard-verdict-shape';
import { evaluateValidatedWrite } from '../../shared/guard/evaluate-write';
import {
  DEFAULT_MAX_RECEIPT_AGE_SECONDS,
  MAX_RECEIPT_AGE_LIMIT_SECONDS,
  resolveGuardPolicy,
} from '../../shared/guard/policy';
import { parseWriteRequest } from '../../shared/write/write-request';
import type { CommandContext } from '../context';
import { ExitCode } from '../exit-codes';
import { jsonText } from '../format/json-text';
import { writeVerdictText } from '../format/write-verdict';
import { integerOption } from '../integer-option';
import { readJsonFile, validateFileContent } from '../read-file';

interface GuardOptions {
  readonly request: string;
  readonly json?: boolean;
  readonly nowMs?: number;
  readonly maxReceiptAgeSeconds: number;
  readonly maxClockSkewSeconds?: number;
}

/**
 * `reseal guard`: runs the stale-state guard (docs/guard.md) on a residual write request and prints
 * the verdict.
 */
export function registerGuard(program: Command, ctx: CommandContext): void {
  program
    .command('guard')
    .summary('run the stale-state guard on a write request (offline)')
    .description(
      'Runs the stale-state guard on a residual write request (the body an agent sends to SQS) and prints the verdict.',
    )
    .requiredOption('--request <REQUEST.json>', 'residual write request (camelCase JSON, formatVersion 1)')
    .option('--json', 'print the verdict as JSON (the reseal.guard-verdict/1 shape, docs/cli.md)')
    .option('--now-ms <ms>', 'the guard\'s "now", ms since the Unix epoch (default: the clock)', integerOption)
    .option(
      '--max-receipt-age-seconds <s>',
      `oldest probe receipt accepted (1 to ${MAX_RECEIPT_AGE_LIMIT_SECONDS})`,
      integerOption,
      // The deployed guard's default too, so an offline check predicts what the pipeline decides.
      DEFAULT_MAX_RECEIPT_AGE_SECONDS,
    )
    .option(
      '--max-clock-skew-seconds <s>',
      'clock skew tolerated for receipts and the boundary (0 to 300, default 5)',
      integerOption,
    )
    .action(async (options: GuardOptions) => {
      const what = 'residual write request';
      const raw = await readJsonFile(ctx.io, options.request, what);
      // Parsed once, at this boundary: the guard's validated entry point takes the branded request.
      const request = validateFileContent(options.request, what, () =>
        parseWriteRequest(raw, { unknownFieldPerKey: true }),
      );
      const verdict = evaluateValidatedWrite(
        request,
        resolveGuardPolicy({
          nowMs: options.nowMs ?? ctx.io.nowMs(),
          maxReceiptAgeSeconds: options.maxReceiptAgeSeconds,
          ...(options.maxClockSkewSeconds === undefined ? {} : { maxClockSkewSeconds: options.maxClockSkewSeconds }),
        }),
      );
      const { authority } = request;
      ctx.io.stdout(
        options.json ? jsonText(guardVerdictShape(verdict, authority)) : writeVerdictText(verdict, authority),
      );
      ctx.exit(verdict.isSafe ? ExitCode.OK : ExitCode.ACTION_NEEDED);
    });
}
