import { writeFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import type { Command } from 'commander';
import { LogVerificationError, NotIntegratedError } from '../../client/errors';
import { EXPORT_FORMAT, type ExportShape } from '../../client/shapes/export-shape';
import { escapedText } from '../../shared/schemas/escaped-text';
import { CHECKPOINT_STORE_OPTION, connect, STACK_OPTION } from '../connect';
import type { CommandContext } from '../context';
import { BadInputError, CliError } from '../errors';
import { ExitCode } from '../exit-codes';
import { jsonText } from '../format/json-text';
import { integerOption } from '../integer-option';
import { formerMaxAgeOption, maxAgeSeconds, maxAgeSecondsOption } from '../max-age-option';
import { MAX_AGE_DESCRIPTION, POLICY_OPTION, readPolicyOption } from '../policy-option';
import { progressBar } from '../progress';

/** Options of `reseal export`. */
interface ExportOptions {
  readonly lineage: string;
  readonly out?: string;
  readonly receipt?: boolean;
  readonly seq?: number;
  readonly receiptFormat: number;
  readonly checkpointStore?: string;
  readonly policy?: string;
  readonly maxAgeSeconds?: number;
  /** The former name of `--max-age-seconds` (seconds too). */
  readonly maxAge?: number;
  readonly json?: boolean;
  readonly stack: string;
}

/**
 * `reseal export`: writes a whole lineage as a LineageExport JSON file (or to stdout); with
 * `--receipt --seq N`, a portable receipt for one record instead, proven before it is written
 * (docs/verifiable-log.md, "Receipts"): format 2 (the default) carries the whole freshness chain
 * (record, its inclusion in the lineage head the index holds, the index proofs, the deployment
 * checkpoint with its cosignatures); format 1 the record, its inclusion proof and the lineage's
 * signed checkpoint.
 */
export function registerExport(program: Command, ctx: CommandContext): void {
  program
    .command('export')
    .summary('export a stored lineage to a JSON file, or a receipt for one record (online)')
    .requiredOption('--lineage <id>', 'lineage to export')
    .option('--receipt', 'write a receipt for the record at --seq (checkable offline with reseal verify --receipt)')
    .option('--seq <n>', 'with --receipt: the record', integerOption)
    .option(
      '--receipt-format <1|2>',
      'with --receipt: 2 (default) carries the deployment chain and is checked with a tlog-policy (exit 3 while the record is not integrated); 1 (a signed lineage checkpoint) is no longer produced for new records: exit 2, export 2',
      integerOption,
      2,
    )
    .option(...POLICY_OPTION)
    .addOption(maxAgeSecondsOption(MAX_AGE_DESCRIPTION))
    .addOption(formerMaxAgeOption())
    .option('--out <FILE.json>', 'file to write (default: stdout)')
    .option(
      '--json',
      'with --out: print what was written as JSON (the reseal.export/1 shape, docs/cli.md); the file keeps its own format',
    )
    .option(...CHECKPOINT_STORE_OPTION)
    .option(...STACK_OPTION)
    .action(async (options: ExportOptions) => {
      if (options.receipt && options.seq === undefined) throw new BadInputError('export --receipt: give --seq <n>');
      if (!options.receipt && options.seq !== undefined) throw new BadInputError('export: --seq goes with --receipt');
      if (options.receiptFormat !== 1 && options.receiptFormat !== 2) {
        throw new BadInputError('export: --receipt-format is 1 or 2');
      }
      if (options.json && options.out === undefined) {
        throw new BadInputError(
          'export --json: give --out <FILE.json> (the export goes to the file, the summary of what was written to stdout)',
        );
      }
      const policy = await readPolicyOption(ctx.io, options.policy, maxAgeSeconds(ctx.io, options));
      const client = await connect(ctx.io, options.stack, {
        checkpointStore: options.checkpointStore,
        ...(policy ? { policy } : {}),
      });
      let text: string;
      let what: string;
      let summary: Omit<ExportShape, 'format' | 'file'>;
      if (options.receipt) {
        const seq = options.seq as number;
        try {
          const receipt =
            options.receiptFormat === 1
              ? await client.receipt(options.lineage, seq)
              : await client.chainReceipt(options.lineage, seq);
          text = jsonText(receipt);
          what = `a receipt (format ${options.receiptFormat}) for seq ${seq} of ${options.lineage}`;
          summary = {
            kind: 'receipt',
            lineageId: options.lineage,
            fileFormat: 'reseal-receipt',
            fileFormatVersion: options.receiptFormat,
            records: 1,
            seq,
          };
        } catch (error) {
          if (error instanceof LogVerificationError) {
            throw new CliError(`no receipt: ${error.message}`, ExitCode.TAMPER, { cause: error });
          }
          if (error instanceof NotIntegratedError) {
            throw new CliError(
              `no receipt yet: ${error.message}; export again after the next integration`,
              ExitCode.AWAITING_INTEGRATION,
              { cause: error },
            );
          }
          throw error;
        }
      } else {
        const bar = progressBar(ctx.io, `exporting ${options.lineage}`, { quiet: options.json === true });
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
        summary = {
          kind: 'lineage',
          lineageId: options.lineage,
          fileFormat: 'LineageExport',
          fileFormatVersion: exported.formatVersion,
          records: exported.records.length,
          seq: null,
        };
      }
      if (options.out) {
        const out = options.out;
        await writeFile(isAbsolute(out) ? out : resolve(ctx.io.cwd, out), text).catch(
          (error: NodeJS.ErrnoException) => {
            throw new BadInputError(`--out ${out}: cannot write (${error.code ?? error.message})`);
          },
        );
        if (options.json) ctx.io.stdout(jsonText({ format: EXPORT_FORMAT, ...summary, file: out }));
        // The file name as typed, escaped like every message (cli/format/terminal-lines.ts).
        else ctx.io.stderr(`wrote ${what} to ${escapedText(out)}\n`);
      } else {
        ctx.io.stdout(text);
      }
      ctx.exit(ExitCode.OK);
    });
}
