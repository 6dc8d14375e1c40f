import { writeFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import type { Command } from 'commander';
import { LogVerificationError } from '../../client/errors';
import { LineageExportEnvelopeSchema } from '../../client/lineage-export';
import { readLineageReport } from '../../client/read-lineage-report';
import { reportShape } from '../../client/shapes/report-shape';
import { verifyRecords } from '../../client/verify-records';
import { FreshnessState } from '../../shared/integrator/record-freshness';
import { lineageReport } from '../../shared/report/lineage-report';
import type { LineageReport, ReportCheckpoint, ReportPage } from '../../shared/report/report-page';
import { escapedText } from '../../shared/schemas/escaped-text';
import type { TrustedHead } from '../../shared/seal/trusted-head';
import type { VerificationVerdict } from '../../shared/seal/verification-verdict';
import { checkpointOption } from '../checkpoint-option';
import { CHECKPOINT_STORE_OPTION, connect, STACK_OPTION } from '../connect';
import type { CommandContext } from '../context';
import { BadInputError, CliError } from '../errors';
import { ExitCode } from '../exit-codes';
import { exportHeadOf } from '../export-head';
import { jsonText } from '../format/json-text';
import { keyIdNamedBy } from '../key-id-named-by';
import { type AnchorOptions, chooseAnchor } from '../mac-anchor-choice';
import { progressBar } from '../progress';
import { readSchemaFile } from '../read-file';
import { stackKeyPin } from '../stack-key-pin';
import { walkExitCode } from '../walk-exit-code';

interface ReportOptions extends AnchorOptions {
  readonly lineage?: string;
  readonly export?: string;
  readonly out?: string;
  readonly checkpoint?: TrustedHead;
  readonly checkpointStore?: string;
  readonly json?: boolean;
  readonly stack: string;
}

/**
 * `reseal report`: a self-contained HTML page of one lineage (docs/cli.md, "reseal report"), from
 * the deployed stack (`--lineage`) or an export file (`--export`), built only from what the
 * client verified. Exit 0 when the chain verified, 20 otherwise (the page is written either way).
 */
export function registerReport(program: Command, ctx: CommandContext): void {
  program
    .command('report')
    .summary('write a lineage as a self-contained HTML page: timeline, refusals, claims heatmap, drift')
    .description(
      'Writes one HTML page (no network needed to view it) with a timeline of records, epochs and supersessions, the refusals and conflicts (--lineage), a heatmap of claims by supersession (retained, re-probed, invalidated), the keys that drifted, and the verification state of each record and checkpoint. Claims and drift are read only from records that verified.',
    )
    .option('--lineage <id>', 'stored lineage of the deployed stack (online)')
    .option('--export <LINEAGE.json>', 'or a lineage export file (offline; MACs as for verify --export)')
    .option('--out <FILE.html>', 'write the page to FILE (default: standard output)')
    .option('--checkpoint <SEQ:RECORD_HASH>', 'a head you trust (detects truncation)', checkpointOption)
    .option('--local-key-hex <hex>', 'with --export: check MACs with this local HMAC key')
    .option('--key-id <id>', 'with --export: pin the KMS key the records must be sealed with')
    .option('--offline', 'with --export: never call KMS (records read as UNVERIFIED_TAMPER_RISK)')
    .option('--kms', 'with --export: call KMS even when no endpoint or credentials variable is set')
    .option(...CHECKPOINT_STORE_OPTION)
    .option('--json', "print the report's data as JSON instead of HTML (the reseal.report/1 shape, docs/cli.md)")
    .option(...STACK_OPTION)
    .action(async (options: ReportOptions, command: Command) => {
      if ((options.export === undefined) === (options.lineage === undefined)) {
        throw new BadInputError('report: give exactly one of --lineage <id> or --export <LINEAGE.json>');
      }
      const lineage = options.export
        ? await exportReport(ctx, options.export, options, command.getOptionValueSource('stack') === 'cli')
        : await storedReport(ctx, options.lineage as string, options);
      const page: ReportPage = {
        title: `Reseal lineage ${lineage.lineageId}`,
        subtitle: options.export ? `from the export ${options.export}` : `from stack ${options.stack}`,
        generatedAtMs: ctx.io.nowMs(),
        lineages: [lineage],
      };
      // Loaded only here: the page assembly pulls in the Vega-Lite compiler.
      const text = options.json
        ? jsonText(reportShape(page))
        : (await import('../report/report-html')).reportHtml(page);
      if (options.out) {
        const path = isAbsolute(options.out) ? options.out : resolve(ctx.io.cwd, options.out);
        await writeFile(path, text).catch((error: NodeJS.ErrnoException) => {
          throw new BadInputError(`--out ${options.out}: cannot write (${error.code ?? error.message})`);
        });
      }
      // Records sealed past the tree head the index holds are awaiting integration, not tamper (exit 3).
      const awaiting = lineage.checkpoints.some((c) => c.state === FreshnessState.SEALED_AWAITING_INTEGRATION);
      const exitCode = walkExitCode(lineage.verdict as VerificationVerdict, awaiting ? 0 : null);
      // The text names no tamper verdict for records only awaiting integration (docs/cli.md, `report`).
      if (options.out) {
        const said = exitCode === ExitCode.AWAITING_INTEGRATION ? 'AWAITING_INTEGRATION' : lineage.verdict;
        ctx.io.stderr(`report: wrote ${escapedText(options.out)} (chain ${said})\n`);
      } else ctx.io.stdout(text);
      ctx.exit(exitCode);
    });
}

async function exportReport(
  ctx: CommandContext,
  path: string,
  options: ReportOptions,
  stackExplicit: boolean,
): Promise<LineageReport> {
  const envelope = await readSchemaFile(ctx.io, path, LineageExportEnvelopeSchema, 'lineage export');
  const { pin } = await stackKeyPin(ctx.io, options, { name: options.stack, explicit: stackExplicit });
  const choice = chooseAnchor(ctx.io, options, keyIdNamedBy(envelope.records), pin);
  const verification = await verifyRecords(envelope.records, {
    lineageId: envelope.lineageId,
    anchor: choice.anchor,
    storedHead: exportHeadOf(path, envelope),
    ...(options.checkpoint ? { checkpoint: options.checkpoint } : {}),
  });
  const checkpoints: ReportCheckpoint[] = options.checkpoint
    ? [
        {
          label: `--checkpoint seq ${options.checkpoint.seq}`,
          size: options.checkpoint.seq + 1,
          state: verification.verdict,
          detail: 'the records were checked against this trusted head',
        },
      ]
    : [];
  return lineageReport({ lineageId: envelope.lineageId, records: envelope.records, verification, checkpoints });
}

async function storedReport(ctx: CommandContext, lineageId: string, options: ReportOptions): Promise<LineageReport> {
  const client = await connect(ctx.io, options.stack, { checkpointStore: options.checkpointStore });
  const bar = progressBar(ctx.io, `reading ${lineageId}`, { quiet: options.json === true });
  return readLineageReport(client, lineageId, {
    ...(options.checkpoint ? { checkpoint: options.checkpoint } : {}),
    onProgress: bar.update,
  })
    .catch((error: unknown) => {
      if (error instanceof LogVerificationError) throw new CliError(error.message, ExitCode.TAMPER, { cause: error });
      throw error;
    })
    .finally(bar.finish);
}
