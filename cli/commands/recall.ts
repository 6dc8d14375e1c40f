import type { Command } from 'commander';
import { escapedText } from '../../shared/schemas/escaped-text';
import { Identifier } from '../../shared/schemas/identifier';
import { parseInput } from '../../shared/schemas/parse';
import type { TrustedHead } from '../../shared/seal/trusted-head';
import { awaitRecallReport } from '../await-recall-report';
import { checkpointOption } from '../checkpoint-option';
import { CHECKPOINT_STORE_OPTION, connect, STACK_OPTION } from '../connect';
import type { CommandContext } from '../context';
import { BadInputError } from '../errors';
import { ExitCode } from '../exit-codes';
import { jsonText } from '../format/json-text';
import { recallJson, recallText } from '../format/recall';
import { integerOption } from '../integer-option';
import { formerMaxAgeOption, maxAgeSeconds, maxAgeSecondsOption } from '../max-age-option';
import { MAX_AGE_DESCRIPTION, POLICY_OPTION, readPolicyOption } from '../policy-option';
import { readEnvSnapshotFile } from '../read-env-snapshot';
import { recallExitCode, recallRefusalHint } from '../recall-exit';
import { statusLine } from '../status-line';
import { formerTimeoutOption, timeoutMs, timeoutSecondsOption } from '../timeout-option';

interface RecallOptions {
  readonly checkpointStore?: string;
  readonly lineage: string;
  readonly env: string;
  readonly seq?: number;
  readonly residualId?: string;
  readonly checkpoint?: TrustedHead;
  readonly requestId?: string;
  readonly wait: boolean;
  /** `--no-triage`: `false`, the client answers the recall itself (`ResealClient.recallDirect`). */
  readonly triage: boolean;
  readonly timeoutSeconds?: number;
  /** The former name of `--timeout-seconds`, in milliseconds. */
  readonly timeoutMs?: number;
  readonly json?: boolean;
  readonly stack: string;
  readonly policy?: string;
  readonly maxAgeSeconds?: number;
  /** The former name of `--max-age-seconds` (seconds too). */
  readonly maxAge?: number;
}

/** `recall --timeout-ms`, milliseconds: the former name of `--timeout-seconds`. */
const FORMER_TIMEOUT = { flag: '--timeout-ms', unitMs: 1 } as const;

/** `reseal recall`: puts a RecallRequested event and (by default) waits for the triage report. */
export function registerRecall(program: Command, ctx: CommandContext): void {
  program
    .command('recall')
    .summary(
      'request a recall (triage) of a stored record and wait for the report, or with --no-triage prove it here (online)',
    )
    .description(
      "Puts a RecallRequested event, waits for the triage answer and checks it itself: the record proven in the lineage's latest tree head (consistent with --checkpoint-store): by default a head the sealer MAC'd, which the lineage's entry in the deployment index vouches for (lineage checkpoints are unsigned unless signLineageCheckpoints is on), the delta recomputed from it and --env. Exit 0 or 10 when proven (by the delta verdict); 20 when the record or the answer does not verify, or a refusal the log contradicts; 2 NOT_FOUND (the lineage or record does not exist, as far as the log can tell); 10 MANIFEST_UNTRIAGEABLE (the record is proven but its manifest cannot be triaged); 3 when the record is proven only in a head the sealer MAC'd, past the head the index holds (awaiting integration: recall again after the integration interval); 1 when no answer arrives within --timeout-seconds. The deployment log adds freshness (docs/deployment-log.md, \"Clients\"): PROVEN, SEALED_AWAITING_INTEGRATION, or a NOT_FOUND proven ABSENT; a latest answer older than the head the index holds (not the newest), or a residual id the index maps but the table hides, exits 20.",
    )
    .requiredOption('--lineage <id>', 'lineage to recall from')
    .requiredOption('--env <CURRENT.json>', 'environment now: { "KEY": "value", ... }')
    .option('--seq <n>', 'recall the record at this seq (default: the latest)', integerOption)
    .option('--residual-id <id>', 'recall the record of this residual id')
    .option('--checkpoint <SEQ:RECORD_HASH>', 'a head you trust (detects truncation)', checkpointOption)
    .option('--request-id <id>', 'request id (default: generated)')
    .option('--no-wait', 'print the request id and return without waiting')
    .option(
      '--no-triage',
      'prove the record here from the table, with no RecallRequested/TriageCompleted round trip (no event put, no report stored; the same checks and exit codes)',
    )
    .addOption(timeoutSecondsOption('how long to wait for the report'))
    .addOption(formerTimeoutOption(FORMER_TIMEOUT))
    .option(...CHECKPOINT_STORE_OPTION)
    .option(...POLICY_OPTION)
    .addOption(maxAgeSecondsOption(MAX_AGE_DESCRIPTION))
    .addOption(formerMaxAgeOption())
    .option(
      '--json',
      'print the result as JSON (the reseal.recall/1 shape, docs/cli.md; with --no-wait: { requestId })',
    )
    .option(...STACK_OPTION)
    .action(async (options: RecallOptions) => {
      if (options.seq !== undefined && options.residualId !== undefined) {
        throw new BadInputError('recall: give at most one of --seq and --residual-id');
      }
      // Checked before the env file is read or the stack reached: bad input makes no AWS call.
      if (!options.triage && !options.wait)
        throw new BadInputError('recall: --no-triage answers at once; --no-wait has no request to leave');
      const waitMs = timeoutMs(ctx.io, options.timeoutSeconds, FORMER_TIMEOUT, options.timeoutMs);
      const status = statusLine(ctx.io, { quiet: options.json });
      const currentEnv = await readEnvSnapshotFile(ctx.io, options.env, status);
      status.finish();
      const target =
        options.seq !== undefined
          ? { seq: options.seq }
          : options.residualId !== undefined
            ? { residualId: parseInput(Identifier, options.residualId, '--residual-id') }
            : { latest: true as const };
      const policy = await readPolicyOption(ctx.io, options.policy, maxAgeSeconds(ctx.io, options));
      const client = await connect(ctx.io, options.stack, {
        checkpointStore: options.checkpointStore,
        ...(policy ? { policy } : {}),
      });
      const request = {
        lineageId: options.lineage,
        target,
        currentEnv,
        ...(options.checkpoint ? { checkpoint: options.checkpoint } : {}),
        ...(options.requestId ? { requestId: options.requestId } : {}),
      };
      if (!options.wait) {
        const requestId = await client.requestRecall(request);
        ctx.io.stdout(options.json ? jsonText({ requestId }) : `requested recall ${requestId}\n`);
        ctx.exit(ExitCode.OK);
        return;
      }
      // The answer (triage's, or with --no-triage the client's own) is checked with the log's public
      // key and the delta recomputed here: no stored report is acted on as is (docs/verifiable-log.md, "Recall").
      const recall = options.triage
        ? await awaitRecallReport(
            request.requestId ?? 'the recall',
            waitMs,
            client.recall(request, { timeoutMs: waitMs }),
          )
        : await client.recallDirect(request);
      ctx.io.stdout(options.json ? jsonText(recallJson(recall)) : recallText(recall));
      const hint = recallRefusalHint(recall);
      // A hint may quote a stored reason: shown escaped, as every stored string is (shared/schemas/escaped-text.ts).
      if (hint) ctx.io.stderr(`${escapedText(hint)}\n`);
      ctx.exit(recallExitCode(recall));
    });
}
