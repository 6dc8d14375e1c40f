import type { Command } from 'commander';
import { lineageIdShape } from '../../client/shapes/lineage-id-shape';
import { soleWriterLineageId } from '../../client/sole-writer-policy';
import type { CommandContext } from '../context';
import { BadInputError } from '../errors';
import { ExitCode } from '../exit-codes';
import { jsonText } from '../format/json-text';
import {
  WRITER_KEY_OPTION,
  WRITER_KMS_KEY_OPTION,
  type WriterKeyOptions,
  writerSignerFrom,
} from '../writer-key-option';

/**
 * `reseal lineage-id --label L --writer-key FILE`: the self-certifying id `<label>.<digest>` of
 * the lineage the key alone writes (its default inception policy, no recovery key), which the
 * client's first write to it sets (docs/authorship.md, "Self-certifying lineage ids").
 */
export function registerLineageId(program: Command, ctx: CommandContext): void {
  program
    .command('lineage-id')
    .summary("print the self-certifying lineage id of a label under a writer key's policy")
    .requiredOption('--label <L>', 'the lineage label (1–167 characters of the identifier alphabet)')
    .option(...WRITER_KEY_OPTION)
    .option(...WRITER_KMS_KEY_OPTION)
    .option('--json', 'print the result as JSON (the reseal.lineage-id/1 shape, docs/cli.md)')
    .action(async (options: WriterKeyOptions & { readonly label: string; readonly json?: boolean }) => {
      const writer = await writerSignerFrom(ctx.io, options);
      if (!writer) throw new BadInputError('give the writer key: --writer-key, --writer-kms-key or $RESEAL_WRITER_KEY');
      const lineageId = soleWriterLineageId(options.label, writer);
      ctx.io.stdout(options.json ? jsonText(lineageIdShape(lineageId, writer.keyId)) : `${lineageId}\n`);
      ctx.exit(ExitCode.OK);
    });
}
