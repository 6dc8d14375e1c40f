import type { Command } from 'commander';
import { HiddenSealError, LogVerificationError, TimeoutError, UnverifiedOutcomeError } from '../../client/errors';
import { publishWaitSince } from '../../client/publish-wait-since';
import type { PublishedWrite } from '../../client/publisher';
import type { ResealClient } from '../../client/reseal-client';
import { writeOutcomeShape, writeTimeoutShape } from '../../client/shapes/write-outcome-shape';
import type { WriteOutcome } from '../../client/write-outcomes';
import { escapedText } from '../../shared/schemas/escaped-text';
import { type ResidualWriteRequest, ResidualWriteRequestSchema } from '../../shared/write/write-request';
import { CHECKPOINT_STORE_OPTION, connect, STACK_OPTION } from '../connect';
import type { CommandContext } from '../context';
import { CliError } from '../errors';
import { ExitCode } from '../exit-codes';
import { fieldLines } from '../format/field-lines';
import { jsonText } from '../format/json-text';
import { writeOutcomeExitCode } from '../format/write-outcome-exit-code';
import { writeOutcomeText } from '../format/write-outcome-text';
import { formerMaxAgeOption, maxAgeSeconds, maxAgeSecondsOption } from '../max-age-option';
import { MAX_AGE_DESCRIPTION, POLICY_OPTION, readPolicyOption } from '../policy-option';
import { readSchemaFile } from '../read-file';
import { formerTimeoutOption, timeoutMs, timeoutSecondsOption } from '../timeout-option';
import {
  WRITER_KEY_OPTION,
  WRITER_KMS_KEY_OPTION,
  type WriterKeyOptions,
  writerSignerFrom,
} from '../writer-key-option';

/** `publish --timeout`, seconds: the former name of `--timeout-seconds`. */
const FORMER_TIMEOUT = { flag: '--timeout', unitMs: 1000 } as const;

/** A request file: signed, or unsigned for the client to sign with the writer key given. */
const PublishRequestSchema = ResidualWriteRequestSchema.partial({ writer: true });

/** Options of `reseal publish`. */
interface PublishOptions extends WriterKeyOptions {
  readonly checkpointStore?: string;
  readonly request: string;
  readonly wait?: boolean;
  /** Seconds to wait for the outcome with `--wait`. */
  readonly timeoutSeconds?: number;
  /** The former name of `--timeout-seconds` (seconds too). */
  readonly timeout?: number;
  readonly json?: boolean;
  readonly stack: string;
  readonly policy?: string;
  readonly maxAgeSeconds?: number;
  /** The former name of `--max-age-seconds` (seconds too). */
  readonly maxAge?: number;
}

/**
 * `reseal publish`: signs a residual write request with the writer key (`--writer-key`,
 * `--writer-kms-key` or `$RESEAL_WRITER_KEY`; without one the request must be signed already) and
 * sends it to the stack's `residual-writes` queue; with `--wait`, polls the table for the write's
 * outcome (sealed, rejected or in conflict). docs/cli.md, `publish`.
 */
export function registerPublish(program: Command, ctx: CommandContext): void {
  program
    .command('publish')
    .summary('send a residual write request to the residual-writes queue; --wait for its outcome (online)')
    .requiredOption('--request <REQUEST.json>', 'residual write request (validated and signed before sending)')
    .option(...WRITER_KEY_OPTION)
    .option(...WRITER_KMS_KEY_OPTION)
    .option(
      '--wait',
      'wait until the write is sealed and PROVEN through the deployment log, rejected or in conflict (exit 0, 10, 10; 3 when only sealed, SEALED_AWAITING_INTEGRATION, at the timeout; 20 when the deployment chain refutes it or its seal is proven with its marker hidden; 1 when nothing came)',
    )
    .addOption(timeoutSecondsOption('with --wait: how long to wait for the outcome'))
    .addOption(formerTimeoutOption(FORMER_TIMEOUT))
    .option(...CHECKPOINT_STORE_OPTION)
    .option(...POLICY_OPTION)
    .addOption(maxAgeSecondsOption(MAX_AGE_DESCRIPTION))
    .addOption(formerMaxAgeOption())
    .option('--json', 'print the result as JSON (with --wait: the reseal.write-outcome/1 shape, docs/cli.md)')
    .option(...STACK_OPTION)
    .action(async (options: PublishOptions) => {
      // Checked before anything is sent: both names of the timeout is bad input.
      const waitMs = timeoutMs(ctx.io, options.timeoutSeconds, FORMER_TIMEOUT, options.timeout);
      const unsigned = await readSchemaFile(ctx.io, options.request, PublishRequestSchema, 'residual write request');
      const writer = await writerSignerFrom(ctx.io, options);
      const policy = await readPolicyOption(ctx.io, options.policy, maxAgeSeconds(ctx.io, options));
      const client = await connect(ctx.io, options.stack, {
        checkpointStore: options.checkpointStore,
        ...(writer ? { writer } : {}),
        ...(policy ? { policy } : {}),
      });
      const publish = await client.publishWrite(unsigned as ResidualWriteRequest);
      const { messageId, request } = publish;
      const out = { messageId, lineageId: request.lineageId, residualId: request.residualId };
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
      await waitAndReport(ctx, client, request, publish, out, { ...options, waitMs });
    });
}

// --- publish --wait: the outcome of the write, read from the table ---
async function waitAndReport(
  ctx: CommandContext,
  client: ResealClient,
  request: ResidualWriteRequest,
  publish: PublishedWrite,
  publishedJson: { readonly messageId: string },
  options: PublishOptions & { readonly waitMs: number },
): Promise<void> {
  const waitedSeconds = options.waitMs / 1000;
  let outcome: WriteOutcome;
  try {
    // Only this publish's outcome: a seal of this request's content, or a refusal recorded since;
    // a seal is waited on until PROVEN through the deployment log (docs/cli.md, `publish --wait`).
    outcome = await client.waitForOutcome(request.lineageId, request.residualId, {
      request,
      sinceMs: publishWaitSince(publish),
      timeoutMs: options.waitMs,
      untilProven: true,
    });
  } catch (error) {
    if (error instanceof TimeoutError) {
      if (options.json) {
        const timeout = writeTimeoutShape(request.lineageId, request.residualId, waitedSeconds);
        ctx.io.stdout(jsonText({ ...timeout, messageId: publishedJson.messageId }));
      }
      throw new CliError(
        `no outcome for ${request.residualId} after ${waitedSeconds} s: the write may still be in flight, ` +
          'or its outcome may have been deleted from the table (the ResidualSealed or ResidualRejected event ' +
          `on the stack's bus carries it too; see reseal inspect --lineage ${request.lineageId})`,
        ExitCode.UNEXPECTED,
        { cause: error },
      );
    }
    if (error instanceof UnverifiedOutcomeError) {
      throw new CliError(`tamper risk: ${error.message}`, ExitCode.TAMPER, { cause: error });
    }
    if (error instanceof LogVerificationError) {
      // A seal this client kept of the lineage no longer holds: a rollback (docs/verifiable-log.md, "Seals seen awaiting integration").
      throw new CliError(`tamper risk: ${error.message}`, ExitCode.TAMPER, { cause: error });
    }
    if (error instanceof HiddenSealError) {
      throw new CliError(
        `tamper risk: ${error.message}; do not rely on the table for this write (reseal verify --lineage ${request.lineageId})`,
        ExitCode.TAMPER,
        { cause: error },
      );
    }
    throw error;
  }
  ctx.io.stdout(
    options.json
      ? jsonText({
          ...writeOutcomeShape(request.lineageId, request.residualId, outcome),
          messageId: publishedJson.messageId,
        })
      : writeOutcomeText(outcome),
  );
  const hint = sealedFreshnessHint(outcome, waitedSeconds);
  if (hint) ctx.io.stderr(`${escapedText(hint)}\n`);
  ctx.exit(writeOutcomeExitCode(outcome));
}
/** What a sealed write that is not `PROVEN` means, for stderr (docs/cli.md, `publish --wait`); `null` otherwise. */
function sealedFreshnessHint(outcome: WriteOutcome, timeoutSeconds: number): string | null {
  if (outcome.kind !== 'SEALED' || !outcome.freshness) return null;
  switch (outcome.freshness.state) {
    case 'SEALED_AWAITING_INTEGRATION':
      return `sealed, awaiting integration: the write is sealed in its ${outcome.checkpoint ? 'signed lineage checkpoint' : "lineage's head tree (the sealer's word)"}, but not yet proven through the deployment log after ${timeoutSeconds} s (${outcome.freshness.reason}); wait longer (--timeout-seconds), or check the integrator`;
    case 'INCONSISTENT':
    case 'REFUSED':
      return `tamper risk: the deployment log does not prove this write (${outcome.freshness.state}): ${outcome.freshness.reason}; do not rely on it`;
    default:
      return null;
  }
}
// --- end publish --wait ---
