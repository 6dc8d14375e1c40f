import type { DeploymentRollbackCheckOutput } from '../../client/shapes/deployment-rollback-check-output';
import { freshnessShape } from '../../client/shapes/freshness-shape';
import { timelineRecordOutput } from '../../client/shapes/timeline-record-output';
import { TIMELINE_FORMAT, type TimelineShape } from '../../client/shapes/timeline-shape';
import type { TimelineRow } from '../../client/timeline-rows';
import type { Freshness } from '../../client/verified-recall';
import { escapedText as t } from '../../shared/schemas/escaped-text';
import type { ChainVerification } from '../../shared/seal/chain-verification';
import { refusalsJson } from './refusals-json';
import { type UntrustedItems, untrustedJson } from './untrusted';

/** What `reseal inspect` read besides the rows: the stored lineage's checks (`--lineage` only, else absent). */
export interface TimelineExtras {
  /**
   * `checked`: against lineage checkpoints only; `deployment`: the deployment checkpoint it was
   * checked against, or `null`; `line`: all of it in words.
   */
  readonly truncation: {
    readonly checked: boolean;
    readonly deployment: DeploymentRollbackCheckOutput | null;
    readonly line: string;
  } | null;
  readonly freshness?: Freshness | null;
  readonly awaitingFromSeq: number | null;
}

/**
 * `reseal inspect --json`: the `reseal.timeline/1` shape (client/shapes/timeline-shape.ts). A record
 * that does not verify shows no stored string (see `untrusted`); the signed refusals are listed,
 * the others only under `untrusted`.
 */
export function timelineJson(
  lineageId: string,
  verification: ChainVerification,
  items: UntrustedItems,
  extras: TimelineExtras,
): TimelineShape {
  return {
    format: TIMELINE_FORMAT,
    lineageId,
    verdict: verification.verdict,
    firstFailure: verification.firstFailure && {
      ...verification.firstFailure,
      reason: t(verification.firstFailure.reason),
    },
    records: items.rows.map((r: TimelineRow) => timelineRecordOutput(r)),
    truncationChecked: extras.truncation?.checked ?? null,
    truncation: extras.truncation?.line ?? null,
    rollbackCheckedAgainstDeployment: extras.truncation?.deployment ?? null,
    rollbackChecked: extras.truncation ? extras.truncation.checked || extras.truncation.deployment !== null : null,
    freshness: freshnessShape(extras.freshness ?? null),
    awaitingIntegrationFromSeq: extras.awaitingFromSeq,
    ...refusalsJson(items.rejections, items.conflicts),
    untrusted: untrustedJson(items),
  };
}
