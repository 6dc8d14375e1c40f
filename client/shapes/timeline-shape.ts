import { z } from 'zod';
import { NonNegativeInt } from '../../shared/schemas/non-negative-int';
import { VerificationVerdict } from '../../shared/seal/verification-verdict';
import { DeploymentRollbackCheckOutput } from './deployment-rollback-check-output';
import { FirstFailureOutput } from './first-failure-output';
import { FreshnessShape } from './freshness-shape';
import { ListedConflictOutput } from './listed-conflict-output';
import { ListedRejectionOutput } from './listed-rejection-output';
import { TimelineRecordOutput } from './timeline-record-output';
import { UntrustedRecordOutput } from './untrusted-record-output';

/** `format` of a {@link TimelineShape}: bumped only when a field changes meaning or goes away. */
export const TIMELINE_FORMAT = 'reseal.timeline/1';

/**
 * A lineage's timeline (docs/cli.md, `reseal inspect`): what `reseal inspect --json` prints,
 * camelCase, `format` `reseal.timeline/1`. `records` and `firstFailure` are the very shapes
 * `reseal_inspect` answers; the stored items the client cannot vouch for are only in `untrusted`
 * (docs/cli.md, "Untrusted data"), every string escaped. The fields of a stored lineage
 * (`truncationChecked`, `truncation`, `rollbackCheckedAgainstDeployment`, `rollbackChecked`,
 * `freshness`, `awaitingIntegrationFromSeq`) are `null` for an
 * export, and `rejections` and `conflicts` empty.
 */
export const TimelineShape = z.object({
  format: z.literal(TIMELINE_FORMAT),
  lineageId: z.string(),
  verdict: z.enum(VerificationVerdict),
  /** The walk's first failure, its reason escaped (`escapedText`). */
  firstFailure: FirstFailureOutput.nullable(),
  records: z.array(TimelineRecordOutput),
  /**
   * `--lineage`: whether the tail was checked against lineage checkpoints only (`--checkpoint`, or
   * the kept signed checkpoint); `rollbackChecked` counts the deployment checkpoint too.
   */
  truncationChecked: z.boolean().nullable(),
  /** `--lineage`: what a rollback was checked against, in words (`truncationCheckText`, as `recall`'s proof line). */
  truncation: z.string().nullable(),
  /**
   * `--lineage`: the deployment checkpoint a rollback was checked against (kept in the checkpoint
   * store, or cosigned by the policy's witnesses), `null` when none was (or an export).
   */
  rollbackCheckedAgainstDeployment: DeploymentRollbackCheckOutput.nullable(),
  /** `--lineage`: whether a rollback was checked at all (`truncationChecked`, or the deployment checkpoint), as `truncation` says. */
  rollbackChecked: z.boolean().nullable(),
  /** `--lineage`: where the verified head stands against the deployment log (docs/cli.md, "Freshness"). */
  freshness: FreshnessShape.nullable(),
  /** `--lineage`: the first seq sealed past the tree head the index holds (awaiting integration), or `null`. */
  awaitingIntegrationFromSeq: NonNegativeInt.nullable(),
  /** `--lineage`: the rejections whose signed statement checks (`signatureVerified: true`). */
  rejections: z.array(ListedRejectionOutput),
  /** `--lineage`: the conflicts whose signed statement checks (`signatureVerified: true`). */
  conflicts: z.array(ListedConflictOutput),
  /** What the client cannot vouch for, every string escaped: never act on it. */
  untrusted: z.object({
    note: z.string(),
    records: z.array(UntrustedRecordOutput),
    rejections: z.array(ListedRejectionOutput),
    conflicts: z.array(ListedConflictOutput),
  }),
});
/** Type of {@link TimelineShape}. */
export type TimelineShape = z.infer<typeof TimelineShape>;
