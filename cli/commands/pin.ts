import { mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Command } from 'commander';
import { stackPinShape } from '../../client/shapes/stack-pin-shape';
import { STACK_PIN_ENV, stackPinOf } from '../../client/stack-pin';
import { describeError } from '../../shared/describe-error';
import { connect, STACK_OPTION } from '../connect';
import type { CommandContext } from '../context';
import { CliError } from '../errors';
import { ExitCode } from '../exit-codes';
import { jsonText } from '../format/json-text';
import { stackPinPath } from '../read-stack-pin';

/**
 * `reseal pin`: reads a deployed stack's outputs (`DescribeStacks`) and its log, guard and sealer
 * verifier keys (`GetPublicKey`) once, and writes them to the stack pin file
 * (docs/cli.md, "Pinning the stack"), which every later online command reads instead.
 */
export function registerPin(program: Command, ctx: CommandContext): void {
  program
    .command('pin')
    .summary(
      "pin the stack's outputs and verifier keys in a file, so reads make no DescribeStacks or GetPublicKey (online)",
    )
    .description(
      `Reads the stack's outputs and its log, guard and sealer verifier keys once and writes them to ${'$'}${STACK_PIN_ENV}, else .reseal/stack.json. publish, recall, export, log-key, verify --lineage and inspect --lineage then use the file and never call DescribeStacks or GetPublicKey; a checkpoint that does not verify under the pinned key is reported, never re-checked with a fresh key. Run it again after redeploying the stack with new keys.`,
    )
    .option('--json', 'print what was pinned as JSON (the reseal.stack-pin/1 shape, docs/cli.md)')
    .option(...STACK_OPTION)
    .action(async (options: { json?: boolean; stack: string }) => {
      const { path } = stackPinPath(ctx.io);
      const client = await connect(ctx.io, options.stack, { pin: false });
      const pin = stackPinOf({
        stackName: options.stack,
        outputs: client.outputs,
        logKey: await client.logKey(),
        guardKey: await client.guardKey(),
        sealerKey: await client.sealerKey(),
      });
      try {
        await mkdir(dirname(path), { recursive: true });
        // Written whole, then renamed over the old pin: a reader never sees half a file.
        await writeFile(`${path}.tmp`, `${JSON.stringify(pin, null, 2)}\n`, { mode: 0o644 });
        await rename(`${path}.tmp`, path);
      } catch (error) {
        const reason = describeError(error);
        throw new CliError(`cannot write the stack pin ${path}: ${reason}`, ExitCode.UNEXPECTED, { cause: error });
      }
      ctx.io.stdout(
        options.json
          ? jsonText(stackPinShape(path, pin))
          : `pinned stack ${pin.stackName} in ${path}
log key:    ${pin.logKey}
guard key:  ${pin.guardKey}
sealer key: ${pin.sealerKey}
`,
      );
      ctx.exit(ExitCode.OK);
    });
}
