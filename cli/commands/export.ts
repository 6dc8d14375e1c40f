import { writeFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import type { Command } from 'commander';
import { LogVerificationError } from '../../client/errors';
import type { CommandContext } from '../context';
import { BadInputError, CliError } from '../errors';
import { ExitCode } from '../exit-codes';
import { jsonText } from '../format/json-text';
import { CHECKPOINT_STORE_OPTION, connect, STACK_OPTION } from '../online';
import { progressBar } from '../progress';
import { integerOption } from './guard';

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
