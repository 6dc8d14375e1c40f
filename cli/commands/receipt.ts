import type { Command } from 'commander';
import { writtenByProven, writtenByText } from '../../client/written-by';
import { ResealError } from '../../shared/errors';
import { formatVerifierKey, parseVerifierKey } from '../../shared/log/note-key';
import { verifyReceipt } from '../../shared/log/receipt';
import { VerificationVerdict } from '../../shared/seal/verification-verdict';
import type { CommandContext } from '../context';
import { BadInputError } from '../errors';
import { ExitCode } from '../exit-codes';
import { fieldLines } from '../format/field-lines';
import { jsonText } from '../format/json-text';
import { writtenByJson } from '../format/written-by-json';
import { connect, STACK_OPTION } from '../online';
import { readJsonFile } from '../read-input';

/**
 * Checks a receipt file offline (docs/verifiable-log.md, "Receipts"): no AWS, no endpoint, only
 * the log's verifier key (`--log-key`, or `RESEAL_LOG_KEY`), as `reseal log-key` prints it.
 * Exit 0 when the record is proven, 20 otherwise, 2 for a missing or malformed key or file.
 */
export async function verifyReceiptFile(
  ctx: CommandContext,
  path: string,
  options: { readonly logKey?: string; readonly json?: boolean },
): Promise<void> {
  const keyText = options.logKey ?? ctx.io.env.RESEAL_LOG_KEY;
  if (!keyText)
    throw new BadInputError('verify --receipt: give the log key with --log-key <KEY> (reseal log-key prints it)');
  let key: ReturnType<typeof parseVerifierKey>;
  try {
    key = parseVerifierKey(keyText);
  } catch (error) {
    if (!(error instanceof ResealError)) throw error;
    throw new BadInputError(`--log-key: ${error.message}`);
  }
  const receipt = await readJsonFile(ctx.io, path, 'receipt');
  const result = verifyReceipt(receipt, key);
  const header = result.record?.header;
  // Who wrote it, only from a proven record (docs/authorship.md, "Who wrote it").
  const writtenBy = result.record ? writtenByProven(result.record) : null;
  if (options.json) {
    ctx.io.stdout(
      jsonText({
        verdict: result.verdict,
        reason: result.reason,
        lineage_id: header?.lineageId ?? null,
        seq: header?.monotonicSequenceNumber ?? null,
        residual_id: header?.residualId ?? null,
        record_hash: result.record?.recordHash ?? null,
        written_by: writtenByJson(writtenBy),
        checkpoint: result.checkpoint && { origin: result.checkpoint.origin, size: result.checkpoint.size },
      }),
    );
  } else {
    ctx.io.stdout(
      fieldLines([
        ['receipt', path],
        ['verdict', result.verdict],
        ['reason', result.reason],
        ...(header
          ? ([
              [
                'record',
                `lineage ${header.lineageId} seq ${header.monotonicSequenceNumber} residual ${header.residualId}`,
              ],
              ['record hash', result.record?.recordHash ?? ''],
              ['written by', writtenByText(writtenBy)],
            ] as [string, string][])
          : []),
        ...(result.checkpoint
          ? ([
              ['checkpoint', `${result.checkpoint.origin}, ${result.checkpoint.size} records, signed by ${key.name}`],
            ] as [string, string][])
          : []),
      ]),
    );
  }
  ctx.exit(result.verdict === VerificationVerdict.VERIFIED_INTACT ? ExitCode.OK : ExitCode.TAMPER);
}

/**
 * `reseal log-key`: prints the verifier keys of a deployed stack (C2SP signed-note vkey form,
 * `<name>+<hash>+<key>`), read once with KMS `GetPublicKey`: pin them where receipts, checkpoints
 * and refusals are checked (`verify --receipt --log-key`).
 */
export function registerLogKey(program: Command, ctx: CommandContext): void {
  program
    .command('log-key')
    .summary("print the stack's log verifier key (to check receipts and checkpoints offline) (online)")
    .option('--json', 'print the key as JSON (snake_case)')
    .option(...STACK_OPTION)
    .action(async (options: { json?: boolean; stack: string }) => {
      const client = await connect(ctx.io, options.stack);
      const key = formatVerifierKey(await client.logKey());
      ctx.io.stdout(options.json ? jsonText({ log_name: client.outputs.logName, log_key: key }) : `${key}\n`);
      ctx.exit(ExitCode.OK);
    });
}
