import type { Command } from 'commander';
import { logKeyShape } from '../../client/shapes/log-key-shape';
import { formatVerifierKey } from '../../shared/log/note-key';
import { connect, STACK_OPTION } from '../connect';
import type { CommandContext } from '../context';
import { ExitCode } from '../exit-codes';
import { jsonText } from '../format/json-text';

/**
 * `reseal log-key`: prints the verifier keys of a deployed stack (C2SP signed-note vkey form,
 * `<name>+<hash>+<key>`), read once with KMS `GetPublicKey`: pin them where receipts, checkpoints
 * and refusals are checked (`verify --receipt --log-key`).
 */
export function registerLogKey(program: Command, ctx: CommandContext): void {
  program
    .command('log-key')
    .summary("print the stack's log verifier key (to check receipts and checkpoints offline) (online)")
    .option('--json', 'print the key as JSON (the reseal.log-key/1 shape, docs/cli.md)')
    .option(...STACK_OPTION)
    .action(async (options: { json?: boolean; stack: string }) => {
      const client = await connect(ctx.io, options.stack);
      const key = formatVerifierKey(await client.logKey());
      ctx.io.stdout(options.json ? jsonText(logKeyShape(client.outputs.logName, key)) : `${key}\n`);
      ctx.exit(ExitCode.OK);
    });
}
