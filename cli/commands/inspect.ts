import type { Command } from 'commander';
import { LogVerificationError } from '../../client/errors';
import { LineageExportEnvelopeSchema } from '../../client/lineage-export';
import type { ResealClient } from '../../client/reseal-client';
import { deploymentRollbackCheckOutput } from '../../client/shapes/deployment-rollback-check-output';
import { timelineRows } from '../../client/timeline-rows';
import { truncationCheckText } from '../../client/truncation-check-text';
import type { Freshness } from '../../client/verified-recall';
import { verifyRecords } from '../../client/verify-records';
import { LineageNotFoundError } from '../../shared/errors';
import { parseInput } from '../../shared/schemas/parse';
import type { TrustedHead } from '../../shared/seal/trusted-head';
import { checkpointOption } from '../checkpoint-option';
import { CHECKPOINT_STORE_OPTION, connect, STACK_OPTION } from '../connect';
import type { CommandContext } from '../context';
import { BadInputError, CliError } from '../errors';
import { ExitCode } from '../exit-codes';
import { exportHeadOf } from '../export-head';
import { awaitingLine } from '../format/awaiting-line';
import { fieldLines } from '../format/field-lines';
import { freshnessRow } from '../format/freshness';
import { jsonText } from '../format/json-text';
import { refusalsText } from '../format/refusals-text';
import { type TimelineExtras, timelineJson } from '../format/timeline-json';
import { timelineText } from '../format/timeline-text';
import { untrustedText } from '../format/untrusted';
import { keptCheckpointOf } from '../kept-checkpoint-of';
import { type AnchorOptions, chooseAnchor } from '../mac-anchor-choice';
import { progressBar } from '../progress';
import { readJsonFile, validateFileContent } from '../read-file';
import { walkExitCode } from '../walk-exit-code';
import { walkTruncationBasis } from '../walk-truncation-basis';

interface InspectOptions extends AnchorOptions {
  readonly checkpointStore?: string;
  readonly lineage?: string;
  readonly export?: string;
  readonly checkpoint?: TrustedHead;
  readonly json?: boolean;
  readonly stack: string;
}

/** `reseal inspect`: a readable timeline of a lineage (stored, or from an export file). */
export function registerInspect(program: Command, ctx: CommandContext): void {
  program
    .command('inspect')
    .summary('show a lineage as a timeline: seqs, epochs, authority, verdicts')
    .option('--lineage <id>', 'stored lineage of the deployed stack (online)')
    .option('--export <LINEAGE.json>', 'or a lineage export file (offline)')
    .option('--checkpoint <SEQ:RECORD_HASH>', 'a head you trust (detects truncation)', checkpointOption)
    .option('--local-key-hex <hex>', 'with --export: check MACs with this local HMAC key')
    .option('--offline', 'with --export: never call KMS')
    .option(...CHECKPOINT_STORE_OPTION)
    .option('--json', 'print the timeline as JSON (the reseal.timeline/1 shape, docs/cli.md)')
    .option(...STACK_OPTION)
    .action(async (options: InspectOptions) => {
      if ((options.export === undefined) === (options.lineage === undefined)) {
        throw new BadInputError('inspect: give exactly one of --lineage <id> or --export <LINEAGE.json>');
      }
      const checkpoint = options.checkpoint ? { checkpoint: options.checkpoint } : {};
      let lineageId: string;
      let records: unknown[];
      let verification: Awaited<ReturnType<typeof verifyRecords>>;
      let refusals: Awaited<ReturnType<ResealClient['readRefusals']>> | null = null;
      // What a rollback was checked against (`--lineage`: the kept lineage checkpoint or the given
      // one, the deployment checkpoint), said in both outputs, so a walk that could not see a
      // rollback never passes for one that could.
      let truncation: TimelineExtras['truncation'] = null;
      // `--lineage`: where the verified head stands against the deployment log (docs/cli.md, "Freshness").
      let freshness: Freshness | null | undefined;
      // `--lineage` tied to the index: the first seq sealed past its tree head (awaiting integration).
      let awaiting: number | null = null;
      if (options.export) {
        const raw = await readJsonFile(ctx.io, options.export, 'lineage export');
        const envelope = validateFileContent(options.export, 'lineage export', () =>
          parseInput(LineageExportEnvelopeSchema, raw, 'lineage export', { unknownFieldPerKey: true }),
        );
        lineageId = envelope.lineageId;
        records = envelope.records;
        const keyId = (records[0] as { header?: { keyId?: unknown } } | undefined)?.header?.keyId;
        const choice = chooseAnchor(ctx.io, options, typeof keyId === 'string' ? keyId : null);
        // The export's head (the table's claim) is checked against its records, as verify --export does.
        verification = await verifyRecords(records, {
          lineageId,
          anchor: choice.anchor,
          storedHead: exportHeadOf(options.export, envelope),
          ...checkpoint,
        });
      } else {
        lineageId = options.lineage as string;
        const client = await connect(ctx.io, options.stack, { checkpointStore: options.checkpointStore });
        // Read before the walk, which may replace it: its size is what the truncation line names.
        const kept = await keptCheckpointOf(client, lineageId);
        const bar = progressBar(ctx.io, `reading ${lineageId}`, { quiet: options.json === true });
        const read = await client
          .readVerifiedLineage(lineageId, { onProgress: bar.update, ...checkpoint })
          .catch((error: unknown) => {
            // A lineage that is gone although a checkpoint saw it was cut, not unknown (as verify and recall say).
            if (error instanceof LogVerificationError) {
              throw new CliError(error.message, ExitCode.TAMPER, { cause: error });
            }
            if (error instanceof LineageNotFoundError && options.checkpoint) {
              throw new CliError(
                `TRUNCATION_DETECTED: lineage ${lineageId} has no records, but the trusted checkpoint saw seq ${options.checkpoint.seq}`,
                ExitCode.TAMPER,
                { cause: error },
              );
            }
            throw error;
          })
          .finally(bar.finish);
        records = read.exported.records;
        // The stored head is checked against the records (a claim, not a checkpoint), and the walk
        // against its log: the signed lineage checkpoint, or the tree head the index holds.
        const walked = read.walked;
        verification = walked.verification;
        awaiting = walked.indexed?.awaitingFromSeq ?? null;
        const basis = walkTruncationBasis(client, walked, kept, options.checkpoint);
        truncation = {
          // `truncationChecked` of --json: lineage checkpoints only (kept, or --checkpoint).
          checked: options.checkpoint !== undefined || walked.log?.truncationChecked === true,
          deployment: deploymentRollbackCheckOutput(basis.deployment),
          line: truncationCheckText(basis),
        };
        freshness = walked.freshness;
        refusals = await client.readRefusals(lineageId); // listed after the timeline
      }
      const rows = timelineRows(records, verification);
      // --- inspect --lineage: the lineage's rejections and conflicts after the timeline ---
      // What it cannot vouch for is shown once, last, escaped (docs/cli.md, "Untrusted data").
      const untrusted = {
        rows,
        rejections: refusals?.rejections ?? [],
        conflicts: refusals?.conflicts ?? [],
        awaitingFromSeq: awaiting,
      };
      ctx.io.stdout(
        options.json
          ? jsonText(
              timelineJson(lineageId, verification, untrusted, { truncation, freshness, awaitingFromSeq: awaiting }),
            )
          : timelineText(lineageId, rows, verification, awaiting) +
              (truncation ? fieldLines([['truncation', truncation.line]]) : '') +
              (freshness === undefined ? '' : fieldLines([freshnessRow(freshness)])) +
              (awaiting === null ? '' : fieldLines([['awaiting', awaitingLine(awaiting)]])) +
              (refusals ? refusalsText(refusals.rejections, refusals.conflicts) : '') +
              untrustedText(untrusted),
      );
      // --- end inspect refusals ---
      ctx.exit(walkExitCode(verification.verdict, awaiting));
    });
}
