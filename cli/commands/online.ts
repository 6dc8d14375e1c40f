import { writeFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import type { Command } from 'commander';
import { LogVerificationError, TimeoutError, UnverifiedOutcomeError } from '../../client/errors';
import { LineageExportEnvelopeSchema } from '../../client/lineage-export';
import type { PublishedWrite } from '../../client/publisher';
import type { ResealClient } from '../../client/reseal-client';
import { timelineRows } from '../../client/timeline-rows';
import { verifyRecords } from '../../client/verify-records';
import { publishWaitSince, type WriteOutcome } from '../../client/write-outcomes';
import { LineageNotFoundError } from '../../shared/errors';
import { parseInput } from '../../shared/schemas/parse';
import { EnvSnapshot, Identifier } from '../../shared/schemas/primitives';
import type { ChainCheckpoint } from '../../shared/seal/chain-verification';
import { VerificationVerdict } from '../../shared/seal/verification-verdict';
import { type ResidualWriteRequest, ResidualWriteRequestSchema } from '../../shared/write/write-request';
import { checkpointOption } from '../checkpoint-option';
import type { CommandContext } from '../context';
import { BadInputError, CliError } from '../errors';
import { ExitCode } from '../exit-codes';
import { fieldLines, jsonText, terminalText } from '../format/output';
import { recallJson, recallText } from '../format/recall';
import { refusalsJson, refusalsText, timelineJson, timelineText } from '../format/timeline';
import { writeOutcomeExitCode, writeOutcomeJson, writeOutcomeText } from '../format/write-outcome';
import { type AnchorOptions, chooseAnchor } from '../mac-anchor-choice';
import { CHECKPOINT_STORE_OPTION, connect, STACK_OPTION } from '../online';
import { progressBar } from '../progress';
import { readJsonFile, readSchemaFile, validateFileContent } from '../read-input';
import { awaitRecallReport, recallExitCode, recallRefusalHint } from '../recall-exit';
import { integerOption } from './guard';
import { exportHeadOf } from './verify';

/** Options of `reseal publish`. */
interface PublishOptions {
  readonly checkpointStore?: string;
  readonly request: string;
  readonly wait?: boolean;
  /** Seconds to wait for the outcome with `--wait`. */
  readonly timeout: number;
  readonly json?: boolean;
  readonly stack: string;
}

/**
 * `reseal publish`: sends a residual write request to the stack's `residual-writes` queue; with
 * `--wait`, polls the table for the write's outcome (sealed, rejected or in conflict).
 */
export function registerPublish(program: Command, ctx: CommandContext): void {
  program
    .command('publish')
    .summary('send a residual write request to the residual-writes queue; --wait for its outcome (online)')
    .requiredOption('--request <REQUEST.json>', 'residual write request (validated before sending)')
    .option('--wait', 'wait until the write is sealed, rejected or in conflict (exit 0, 10, 10; 1 on timeout)')
    .option('--timeout <s>', 'with --wait: seconds to wait for the outcome', integerOption, 60)
    .option(...CHECKPOINT_STORE_OPTION)
    .option('--json', 'print the result as JSON (snake_case)')
    .option(...STACK_OPTION)
    .action(async (options: PublishOptions) => {
      const request = await readSchemaFile(
        ctx.io,
        options.request,
        ResidualWriteRequestSchema,
        'residual write request',
      );
      const client = await connect(ctx.io, options.stack, { checkpointStore: options.checkpointStore });
      const publish = await client.publishWrite(request);
      const { messageId } = publish;
      const out = { message_id: messageId, residual_id: request.residualId, lineage_id: request.lineageId };
      const published = fieldLines([
        ['published', request.residualId],
        ['lineage', request.lineageId],
        ['message id', messageId],
      ]);
      if (!options.wait) {
        ctx.io.stdout(options.json ? jsonText(out) : published);
        ctx.exit(ExitCode.OK);
        return;
      }
      if (!options.json) ctx.io.stdout(published);
      await waitAndReport(ctx, client, request, publish, out, options);
    });
}

// --- publish --wait: the outcome of the write, read from the table ---
async function waitAndReport(
  ctx: CommandContext,
  client: ResealClient,
  request: ResidualWriteRequest,
  publish: PublishedWrite,
  publishedJson: Record<string, string>,
  options: PublishOptions,
): Promise<void> {
  let outcome: WriteOutcome;
  try {
    // Only this publish's outcome: a seal of this request's content, or a refusal recorded since.
    outcome = await client.waitForOutcome(request.lineageId, request.residualId, {
      request,
      sinceMs: publishWaitSince(publish),
      timeoutMs: options.timeout * 1000,
    });
  } catch (error) {
    if (error instanceof TimeoutError) {
      if (options.json) ctx.io.stdout(jsonText({ ...publishedJson, outcome: 'TIMEOUT', waited_s: options.timeout }));
      throw new CliError(
        `no outcome for ${request.residualId} after ${options.timeout} s: the write may still be in flight, ` +
          'or its outcome may have been deleted from the table (the ResidualSealed or ResidualRejected event ' +
          `on the stack's bus carries it too; see reseal inspect --lineage ${request.lineageId})`,
        ExitCode.UNEXPECTED,
        { cause: error },
      );
    }
    if (error instanceof UnverifiedOutcomeError) {
      throw new CliError(`tamper risk: ${error.message}`, ExitCode.TAMPER, { cause: error });
    }
    throw error;
  }
  ctx.io.stdout(
    options.json ? jsonText({ ...publishedJson, ...writeOutcomeJson(outcome) }) : writeOutcomeText(outcome),
  );
  ctx.exit(writeOutcomeExitCode(outcome));
}
// --- end publish --wait ---

interface RecallOptions {
  readonly checkpointStore?: string;
  readonly lineage: string;
  readonly env: string;
  readonly seq?: number;
  readonly residualId?: string;
  readonly checkpoint?: ChainCheckpoint;
  readonly requestId?: string;
  readonly wait: boolean;
  readonly timeoutMs: number;
  readonly json?: boolean;
  readonly stack: string;
}

/** `reseal recall`: puts a RecallRequested event and (by default) waits for the triage report. */
export function registerRecall(program: Command, ctx: CommandContext): void {
  program
    .command('recall')
    .summary('request a recall (triage) of a stored record and wait for the report (online)')
    .description(
      'Puts a RecallRequested event, waits for the triage answer and checks it itself: the record proven in the latest signed checkpoint (consistent with --checkpoint-store), the delta recomputed from it and --env. Exit 0 or 10 when proven (by the delta verdict); 20 when the record or the answer does not verify, or a refusal the log contradicts; 2 NOT_FOUND (the lineage or record does not exist, as far as the log can tell); 10 MANIFEST_UNTRIAGEABLE (the record is proven but its manifest cannot be triaged); 1 when no answer arrives within --timeout-ms.',
    )
    .requiredOption('--lineage <id>', 'lineage to recall from')
    .requiredOption('--env <CURRENT.json>', 'environment now: { "KEY": "value", ... }')
    .option('--seq <n>', 'recall the record at this seq (default: the latest)', integerOption)
    .option('--residual-id <id>', 'recall the record of this residual id')
    .option('--checkpoint <SEQ:RECORD_HASH>', 'a head you trust (detects truncation)', checkpointOption)
    .option('--request-id <id>', 'request id (default: generated)')
    .option('--no-wait', 'print the request id and return without waiting')
    .option('--timeout-ms <ms>', 'how long to wait for the report', integerOption, 60_000)
    .option(...CHECKPOINT_STORE_OPTION)
    .option('--json', 'print the result as JSON (snake_case)')
    .option(...STACK_OPTION)
    .action(async (options: RecallOptions) => {
      if (options.seq !== undefined && options.residualId !== undefined) {
        throw new BadInputError('recall: give at most one of --seq and --residual-id');
      }
      const currentEnv = await readSchemaFile(ctx.io, options.env, EnvSnapshot, 'environment snapshot');
      const target =
        options.seq !== undefined
          ? { seq: options.seq }
          : options.residualId !== undefined
            ? { residualId: parseInput(Identifier, options.residualId, '--residual-id') }
            : { latest: true as const };
      const client = await connect(ctx.io, options.stack, { checkpointStore: options.checkpointStore });
      const request = {
        lineageId: options.lineage,
        target,
        currentEnv,
        ...(options.checkpoint ? { checkpoint: options.checkpoint } : {}),
        ...(options.requestId ? { requestId: options.requestId } : {}),
      };
      if (!options.wait) {
        const requestId = await client.requestRecall(request);
        ctx.io.stdout(options.json ? jsonText({ request_id: requestId }) : `requested recall ${requestId}\n`);
        ctx.exit(ExitCode.OK);
        return;
      }
      // The answer is checked with the log's public key and the delta recomputed here: the stored
      // report is never acted on as is (docs/verifiable-log.md, "Recall").
      const recall = await awaitRecallReport(
        request.requestId ?? 'the recall',
        options.timeoutMs,
        client.recall(request, { timeoutMs: options.timeoutMs }),
      );
      ctx.io.stdout(options.json ? jsonText(recallJson(recall)) : recallText(recall));
      const hint = recallRefusalHint(recall);
      // A hint may quote a stored reason: shown escaped, as every stored string is (cli/format/output.ts).
      if (hint) ctx.io.stderr(`${terminalText(hint)}\n`);
      ctx.exit(recallExitCode(recall));
    });
}

/** Options of `reseal export`. */
interface ExportOptions {
  readonly lineage: string;
  readonly out?: string;
  readonly receipt?: boolean;
  readonly seq?: number;
  readonly checkpointStore?: string;
  readonly stack: string;
}

/**
 * `reseal export`: writes a whole lineage as a LineageExport JSON file (or to stdout); with
 * `--receipt --seq N`, a portable receipt for one record instead (record, inclusion proof,
 * signed checkpoint: docs/verifiable-log.md, "Receipts"), proven before it is written.
 */
export function registerExport(program: Command, ctx: CommandContext): void {
  program
    .command('export')
    .summary('export a stored lineage to a JSON file, or a receipt for one record (online)')
    .requiredOption('--lineage <id>', 'lineage to export')
    .option('--receipt', 'write a receipt for the record at --seq (checkable offline with reseal verify --receipt)')
    .option('--seq <n>', 'with --receipt: the record', integerOption)
    .option('--out <FILE.json>', 'file to write (default: stdout)')
    .option(...CHECKPOINT_STORE_OPTION)
    .option(...STACK_OPTION)
    .action(async (options: ExportOptions) => {
      if (options.receipt && options.seq === undefined) throw new BadInputError('export --receipt: give --seq <n>');
      if (!options.receipt && options.seq !== undefined) throw new BadInputError('export: --seq goes with --receipt');
      const client = await connect(ctx.io, options.stack, { checkpointStore: options.checkpointStore });
      let text: string;
      let what: string;
      if (options.receipt) {
        const seq = options.seq as number;
        try {
          const receipt = await client.receipt(options.lineage, seq);
          text = jsonText(receipt);
          what = `a receipt for seq ${seq} of ${options.lineage}`;
        } catch (error) {
          if (error instanceof LogVerificationError) {
            throw new CliError(`no receipt: ${error.message}`, ExitCode.TAMPER, { cause: error });
          }
          throw error;
        }
      } else {
        const bar = progressBar(ctx.io, `exporting ${options.lineage}`);
        const exported = await client
          .exportLineage(options.lineage, { onProgress: bar.update })
          .catch((error: unknown) => {
            if (error instanceof LogVerificationError) {
              throw new CliError(`no export: ${error.message}`, ExitCode.TAMPER, { cause: error });
            }
            throw error;
          })
          .finally(bar.finish);
        text = jsonText(exported);
        what = `${exported.records.length} records of ${options.lineage}`;
      }
      if (options.out) {
        await writeFile(isAbsolute(options.out) ? options.out : resolve(ctx.io.cwd, options.out), text);
        ctx.io.stderr(`wrote ${what} to ${options.out}\n`);
      } else {
        ctx.io.stdout(text);
      }
      ctx.exit(ExitCode.OK);
    });
}

interface InspectOptions extends AnchorOptions {
  readonly checkpointStore?: string;
  readonly lineage?: string;
  readonly export?: string;
  readonly checkpoint?: ChainCheckpoint;
  readonly json?: boolean;
  readonly stack: string;
}

/** `reseal inspect`: a readable timeline of a lineage (stored, or from an export file). */
export function registerInspect(program: Command, ctx: CommandContext): void {
  program
    .command('inspect')
    .summary('show a lineage as a timeline: seqs, epochs, authority, verdicts')
    .option('--lineage <id>', 'stored lineage of the deployed stack (online)')
    .option('--export <LINEAGE.json>', 'or a lineage export file (offline)')
    .option('--checkpoint <SEQ:RECORD_HASH>', 'a head you trust (detects truncation)', checkpointOption)
    .option('--local-key-hex <hex>', 'with --export: check MACs with this local HMAC key')
    .option('--offline', 'with --export: never call KMS')
    .option(...CHECKPOINT_STORE_OPTION)
    .option('--json', 'print the timeline as JSON (snake_case)')
    .option(...STACK_OPTION)
    .action(async (options: InspectOptions) => {
      if ((options.export === undefined) === (options.lineage === undefined)) {
        throw new BadInputError('inspect: give exactly one of --lineage <id> or --export <LINEAGE.json>');
      }
      const checkpoint = options.checkpoint ? { checkpoint: options.checkpoint } : {};
      let lineageId: string;
      let records: unknown[];
      let verification: Awaited<ReturnType<typeof verifyRecords>>;
      let refusals: Awaited<ReturnType<ResealClient['readRefusals']>> | null = null;
      // Whether the tail was checked against a checkpoint (`--lineage`: kept or given), said in
      // both outputs, so a walk that could not see a rollback never passes for one that could.
      let truncation: { readonly checked: boolean; readonly line: string } | null = null;
      if (options.export) {
        const raw = await readJsonFile(ctx.io, options.export, 'lineage export');
        const envelope = validateFileContent(options.export, 'lineage export', () =>
          parseInput(LineageExportEnvelopeSchema, raw, 'lineage export', { unknownFieldPerKey: true }),
        );
        lineageId = envelope.lineageId;
        records = envelope.records;
        const keyId = (records[0] as { header?: { keyId?: unknown } } | undefined)?.header?.keyId;
        const choice = chooseAnchor(ctx.io, options, typeof keyId === 'string' ? keyId : null);
        // The export's head (the table's claim) is checked against its records, as verify --export does.
        verification = await verifyRecords(records, {
          lineageId,
          anchor: choice.anchor,
          storedHead: exportHeadOf(options.export, envelope),
          ...checkpoint,
        });
      } else {
        lineageId = options.lineage as string;
        const client = await connect(ctx.io, options.stack, { checkpointStore: options.checkpointStore });
        const bar = progressBar(ctx.io, `reading ${lineageId}`);
        const exported = await client
          .exportLineage(lineageId, { onProgress: bar.update })
          .catch((error: unknown) => {
            // A lineage that is gone although a checkpoint saw it was cut, not unknown (as verify and recall say).
            if (error instanceof LogVerificationError) {
              throw new CliError(error.message, ExitCode.TAMPER, { cause: error });
            }
            if (error instanceof LineageNotFoundError && options.checkpoint) {
              throw new CliError(
                `TRUNCATION_DETECTED: lineage ${lineageId} has no records, but the trusted checkpoint saw seq ${options.checkpoint.seq}`,
                ExitCode.TAMPER,
                { cause: error },
              );
            }
            throw error;
          })
          .finally(bar.finish);
        records = exported.records;
        // The stored head is checked against the records (a claim, not a checkpoint), and the walk
        // against the signed log.
        const walked = await client.checkWalkAgainstLog(lineageId, await client.verifyExport(exported, checkpoint));
        verification = walked.verification;
        truncation = truncationLine(walked.log, options.checkpoint);
        refusals = await client.readRefusals(lineageId); // listed after the timeline
      }
      const rows = timelineRows(records, verification);
      // --- inspect --lineage: the lineage's rejections and conflicts after the timeline ---
      ctx.io.stdout(
        options.json
          ? jsonText({
              ...timelineJson(lineageId, rows, verification),
              ...(truncation ? { truncation_checked: truncation.checked, truncation: truncation.line } : {}),
              ...(refusals ? refusalsJson(refusals.rejections, refusals.conflicts) : {}),
            })
          : timelineText(lineageId, rows, verification) +
              (truncation ? fieldLines([['truncation', truncation.line]]) : '') +
              (refusals ? refusalsText(refusals.rejections, refusals.conflicts) : ''),
      );
      // --- end inspect refusals ---
      ctx.exit(verification.verdict === VerificationVerdict.VERIFIED_INTACT ? ExitCode.OK : ExitCode.TAMPER);
    });
}

/**
 * What `inspect --lineage` says of truncation: checked against `--checkpoint` (the walk's tail)
 * and / or the kept signed checkpoint (`--checkpoint-store`), or NOT checked.
 */
export function truncationLine(
  log: { readonly size: number; readonly truncationChecked: boolean } | null,
  given: ChainCheckpoint | undefined,
): { readonly checked: boolean; readonly line: string } {
  const against = [
    ...(given ? [`--checkpoint (seq ${given.seq})`] : []),
    ...(log?.truncationChecked ? ['the kept signed checkpoint (--checkpoint-store)'] : []),
  ];
  if (against.length > 0) return { checked: true, line: `checked against ${against.join(' and ')}` };
  return {
    checked: false,
    line: 'NOT checked: no kept checkpoint (--checkpoint-store) and no --checkpoint; a rollback of the whole lineage cannot be seen',
  };
}
