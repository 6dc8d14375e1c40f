import type { Command } from 'commander';
import { type LineageExportEnvelope, LineageExportEnvelopeSchema } from '../../client/lineage-export';
import type { FreshWalk } from '../../client/reseal-client';
import { truncationCheckText } from '../../client/truncation-check-text';
import { verifyRecords } from '../../client/verify-records';
import type { ChainVerification } from '../../shared/seal/chain-verification';
import type { TrustedHead } from '../../shared/seal/trusted-head';
import { checkpointOption } from '../checkpoint-option';
import { CHECKPOINT_STORE_OPTION, connect, STACK_OPTION } from '../connect';
import type { CommandContext } from '../context';
import { BadInputError } from '../errors';
import { exportHeadOf } from '../export-head';
import { jsonText } from '../format/json-text';
import { type VerificationContext, verificationJson, verificationText } from '../format/verification';
import { keptCheckpointOf } from '../kept-checkpoint-of';
import { keyIdNamedBy } from '../key-id-named-by';
import { type AnchorOptions, chooseAnchor, MacCheck } from '../mac-anchor-choice';
import { formerMaxAgeOption, maxAgeSeconds, maxAgeSecondsOption } from '../max-age-option';
import { progressBar } from '../progress';
import { readSchemaFile } from '../read-file';
import { stackKeyPin } from '../stack-key-pin';
import { walkExitCode } from '../walk-exit-code';
import { walkTruncationBasis } from '../walk-truncation-basis';
import { verifyReceiptFile } from './receipt';

interface VerifyOptions extends AnchorOptions {
  readonly auditMacs?: boolean;
  readonly checkpointStore?: string;
  readonly export?: string;
  readonly receipt?: string;
  readonly logKey?: string;
  readonly policy?: string;
  readonly maxAgeSeconds?: number;
  /** The former name of `--max-age-seconds` (seconds too). */
  readonly maxAge?: number;
  readonly lineage?: string;
  readonly checkpoint?: TrustedHead;
  readonly json?: boolean;
  readonly stack: string;
}

/**
 * `reseal verify`: verifies a sealed chain (docs/sealing.md, "Verification"), from an export file (offline: hashes and
 * links always, MACs when a key is reachable) or from the deployed table (`--lineage`).
 */
export function registerVerify(program: Command, ctx: CommandContext): void {
  program
    .command('verify')
    .summary('verify a sealed chain: an export file (offline) or a stored lineage (online)')
    .description(
      'Verifies every record of a lineage: hashes, links, sequence and epochs offline; MACs through KMS when an endpoint (AWS_ENDPOINT_URL) or credentials are available, or with --local-key-hex. KMS checks MACs only under a key you pin: --key-id, or the MacKeyArn output of --stack (default ResealStack); a key id named only by the export is never trusted. When no MAC can be checked, or the key is not pinned, the verdict is UNVERIFIED_TAMPER_RISK (fail closed, exit 20), but a broken hash or link is still reported as such. --lineage authenticates the stored records by the signed tree (every record proven a leaf of the tree head: the signed lineage checkpoint on the head item, or the entry of the lineage in the verifiable index under the authenticated deployment checkpoint; no MAC call) unless --audit-macs asks KMS to check every MAC (one VerifyMac per distinct MAC: the records one sealer invocation sealed share one). Records sealed past the indexed tree head are awaiting integration (exit 3).',
    )
    .option('--export <LINEAGE.json>', 'a lineage export (as `reseal export` writes it)')
    .option('--lineage <id>', 'verify the stored lineage of the deployed stack instead (online)')
    .option(
      '--receipt <RECEIPT.json>',
      'or a receipt for one record (reseal export --receipt), offline: format 2 with --policy, or --log-key alone (UNWITNESSED); format 1 with --log-key',
    )
    .option(
      '--log-key <KEY>',
      'with --receipt: the log verifier key (reseal log-key prints it; default $RESEAL_LOG_KEY)',
    )
    .option(
      '--policy <FILE>',
      'with --receipt (format 2): the C2SP tlog-policy its deployment checkpoint must meet (reseal policy prints it)',
    )
    .addOption(
      maxAgeSecondsOption(
        'with --receipt --policy: also check freshness, the quorum of cosignatures no older than this, seconds (default: not checked, inclusion only)',
      ),
    )
    .addOption(formerMaxAgeOption())
    .option(
      '--audit-macs',
      'with --lineage: check every record MAC with KMS VerifyMac (one call per record) instead of proving each record in the signed tree',
    )
    .option(
      '--checkpoint <SEQ:RECORD_HASH>',
      "a head you kept to check against (from publish --wait, or a run's seq:recordHash from a ResidualSealed event, as trustworthy as the bus's publishers: a forged one raises false alarms, never hides an edit)",
      checkpointOption,
    )
    .option(
      '--json',
      'print the result as JSON (the reseal.verification/1 shape; with --receipt reseal.receipt-verification/1; docs/cli.md)',
    )
    .option(...CHECKPOINT_STORE_OPTION)
    .option('--local-key-hex <hex>', 'check MACs with this local HMAC key (exports sealed with a local key)')
    .option('--key-id <id>', 'pin the KMS key the records must be sealed with (default: MacKeyArn of --stack)')
    .option('--offline', 'never call KMS (MACs unverifiable: UNVERIFIED_TAMPER_RISK)')
    .option('--kms', 'call KMS even when no endpoint or credentials variable is set (instance roles, profiles)')
    .option(...STACK_OPTION)
    .action(async (options: VerifyOptions, command: Command) => {
      const sources = [options.export, options.lineage, options.receipt].filter((o) => o !== undefined);
      if (sources.length !== 1) {
        throw new BadInputError(
          'verify: give exactly one of --export <LINEAGE.json>, --lineage <id> or --receipt <RECEIPT.json>',
        );
      }
      if (options.auditMacs && options.lineage === undefined) {
        throw new BadInputError(
          'verify: --audit-macs applies to --lineage only (--export checks MACs whenever a key is pinned)',
        );
      }
      const maxAge = maxAgeSeconds(ctx.io, options);
      if (options.receipt === undefined && (options.policy !== undefined || maxAge !== undefined)) {
        throw new BadInputError('verify: --policy and --max-age-seconds apply to --receipt only');
      }
      if (options.receipt !== undefined) {
        await verifyReceiptFile(ctx, options.receipt, { ...options, maxAgeSeconds: maxAge });
        return;
      }
      const { result, context } = options.export
        ? await verifyExportFile(ctx, options.export, options, {
            name: options.stack,
            explicit: command.getOptionValueSource('stack') === 'cli',
          })
        : await verifyStoredLineage(ctx, options.lineage as string, options);
      ctx.io.stdout(options.json ? jsonText(verificationJson(result, context)) : verificationText(result, context));
      ctx.exit(walkExitCode(result.verdict, context.awaitingFromSeq ?? null));
    });
}

async function verifyExportFile(
  ctx: CommandContext,
  path: string,
  options: VerifyOptions,
  stack: { readonly name: string; readonly explicit: boolean },
): Promise<{ result: ChainVerification; context: VerificationContext }> {
  const envelope: LineageExportEnvelope = await readSchemaFile(
    ctx.io,
    path,
    LineageExportEnvelopeSchema,
    'lineage export',
  );
  const head = { data: exportHeadOf(path, envelope) };
  // The key id the export names is a label only: the key that checks the MACs is pinned by the
  // verifier (--key-id, --stack, --local-key-hex), else the verdict fails closed.
  const { pin, unpinnedWhy } = await stackKeyPin(ctx.io, options, stack);
  const choice = chooseAnchor(ctx.io, options, keyIdNamedBy(envelope.records) ?? head?.data?.keyId ?? null, pin);
  // Without --checkpoint, the export's own head serves: it catches records cut from the file,
  // though not from the table (the head came from the same table).
  const checkpoint = options.checkpoint
    ? { ...options.checkpoint, source: '--checkpoint' }
    : head?.data
      ? { seq: head.data.seq, recordHash: head.data.recordHash, source: 'export head, not independent' }
      : null;
  const result = await verifyRecords(envelope.records, {
    lineageId: envelope.lineageId,
    anchor: choice.anchor,
    // The export's head is the table's claim at export time: checked against the records, so a
    // head rewound below them, missing, or naming another record is LINEAGE_BROKEN.
    storedHead: head?.data ?? null,
    ...(checkpoint ? { checkpoint: { seq: checkpoint.seq, recordHash: checkpoint.recordHash } } : {}),
  });
  const note = choice.macCheck === MacCheck.UNPINNED && unpinnedWhy ? `${choice.note} (${unpinnedWhy})` : choice.note;
  return {
    result,
    context: { lineageId: envelope.lineageId, macCheck: choice.macCheck, keyId: choice.keyId, checkpoint, note },
  };
}

async function verifyStoredLineage(
  ctx: CommandContext,
  lineageId: string,
  options: VerifyOptions,
): Promise<{ result: ChainVerification; context: VerificationContext }> {
  const client = await connect(ctx.io, options.stack, { checkpointStore: options.checkpointStore });
  const kept = await keptCheckpointOf(client, lineageId);
  const bar = progressBar(ctx.io, `verifying ${lineageId}`, { quiet: options.json === true });
  // The walk tied to the signed log: its last record must be the last leaf of the latest signed
  // checkpoint, consistent with the one kept; by default every record is proven a leaf of that
  // tree and no MAC is called, --audit-macs checks each MAC with KMS (docs/verifiable-log.md).
  const authentication = options.auditMacs ? 'macs' : 'signed-tree';
  let walked: FreshWalk;
  try {
    walked = await client.verifyStoredLineage(lineageId, {
      ...(options.checkpoint ? { checkpoint: options.checkpoint } : {}),
      onProgress: bar.update,
      authentication,
    });
  } finally {
    bar.finish();
  }
  const { verification: result, log, freshness } = walked;
  const checkpoint = options.checkpoint ? { ...options.checkpoint, source: '--checkpoint' } : null;
  return {
    result,
    context: {
      lineageId,
      macCheck: options.auditMacs ? MacCheck.KMS : MacCheck.SIGNED_TREE,
      keyId: client.outputs.macKeyArn,
      checkpoint,
      kept,
      note: logNote(log, truncationCheckText(walkTruncationBasis(client, walked, kept, options.checkpoint))),
      authenticatedBy: authentication,
      freshness,
      treeHead: log && { size: log.size, vouchedBy: log.vouchedBy },
      awaitingFromSeq: walked.indexed?.awaitingFromSeq ?? null,
    },
  };
}

/**
 * The `note` line of a walk checked against its log (the signed lineage checkpoint, or the tree
 * head the index holds), with what truncation was checked against ({@link truncationCheckText}).
 */
function logNote(
  log: { size: number; vouchedBy?: 'signed-checkpoint' | 'index' } | null,
  truncation: string,
): string | null {
  if (!log) return null;
  const tree =
    log.vouchedBy === 'index' ? `the index's tree head of ${log.size} records` : `the signed log's ${log.size} records`;
  return `the walk is ${tree}; truncation ${truncation}`;
}
