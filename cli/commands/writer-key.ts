import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { writerKeyShape } from '../../client/shapes/writer-key-shape';
import { LocalWriterSigner } from '../../shared/authorship/local-writer-signer';
import type { CommandContext } from '../context';
import { BadInputError } from '../errors';
import { ExitCode } from '../exit-codes';
import { fieldLines } from '../format/field-lines';
import { jsonText } from '../format/json-text';
import { keyIdOfFile } from '../writer-key-option';

/**
 * `reseal writer-key new --out FILE`: makes a fresh Ed25519 writer key, written as PKCS #8 PEM
 * (mode 0600, never over an existing file), and prints its key id and public key
 * (docs/cli.md, `writer-key new`; docs/authorship.md).
 */
export function registerWriterKey(program: Command, ctx: CommandContext): void {
  program
    .command('writer-key')
    .summary('manage writer keys (offline)')
    .command('new')
    .summary('make a fresh Ed25519 writer key (PKCS #8 PEM, mode 0600)')
    .requiredOption('--out <FILE>', 'where to write the private key (refused when the file exists)')
    .option('--json', 'print the result as JSON (the reseal.writer-key/1 shape, docs/cli.md)')
    .action(async (options: { readonly out: string; readonly json?: boolean }) => {
      const full = resolve(ctx.io.cwd, options.out);
      const { signer, pem } = LocalWriterSigner.generate(keyIdOfFile(full));
      try {
        await writeFile(full, pem, { mode: 0o600, flag: 'wx' });
      } catch (error) {
        throw new BadInputError(`cannot write writer key ${options.out}: ${(error as Error).message}`);
      }
      ctx.io.stdout(
        options.json
          ? jsonText(writerKeyShape(options.out, signer))
          : fieldLines([
              ['writer key', options.out],
              ['key id', signer.keyId],
              ['public key', signer.publicKey],
            ]),
      );
      ctx.exit(ExitCode.OK);
    });
}
