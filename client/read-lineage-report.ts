import { lineageReport } from '../shared/report/lineage-report';
import type { LineageReport, ReportCheckpoint, ReportRecall } from '../shared/report/report-page';
import { reportRefusals } from '../shared/report/report-refusals';
import type { LineageProgress } from '../shared/seal/lineage-progress';
import type { TrustedHead } from '../shared/seal/trusted-head';
import { VerificationVerdict } from '../shared/seal/verification-verdict';
import type { ResealClient } from './reseal-client';

/** Options of {@link readLineageReport}. */
export interface ReadLineageReportOptions {
  /** A head the caller trusts (detects truncation). */
  readonly checkpoint?: TrustedHead;
  /** Called as pages of records are read. */
  readonly onProgress?: (progress: LineageProgress) => void;
  /** Heatmap columns the caller verified itself (recalls); default: one per verified supersession. */
  readonly recalls?: readonly ReportRecall[];
  /** More checkpoints to show (receipts checked offline, say), after the lineage's tree head (signed checkpoint or index entry). */
  readonly checkpoints?: readonly ReportCheckpoint[];
}

/**
 * Reads a stored lineage and builds its report (docs/cli.md, "reseal report") from what this
 * client verifies: every record walked (hashes, links, MACs) and tied to its log
 * (`ResealClient.readVerifiedLineage`) to its tree head and what vouches for it: for a head the
 * sealer MAC'd, the lineage's entry in the index under the deployment checkpoint the client
 * verified (records past it awaiting integration; the head's MAC vouches for nothing a client can
 * check); for a head stored before the sealer stopped signing, its signed lineage checkpoint,
 * consistent with the kept one (docs/verifiable-log.md, "Verifying a whole lineage"); and the
 * refusals with their signed statements checked.
 *
 * @throws {LineageNotFoundError} for an unknown lineage
 * @throws {LogVerificationError} when the lineage is gone although this client kept a checkpoint of it
 */
export async function readLineageReport(
  client: ResealClient,
  lineageId: string,
  options: ReadLineageReportOptions = {},
): Promise<LineageReport> {
  const { exported, walked } = await client.readVerifiedLineage(lineageId, {
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    ...(options.checkpoint ? { checkpoint: options.checkpoint } : {}),
  });
  const { rejections, conflicts } = await client.readRefusals(lineageId);
  const { verification, log, indexed } = walked;
  const byIndex = log?.vouchedBy === 'index' || indexed !== null;
  const label = byIndex ? 'tree head the index holds' : 'latest signed checkpoint';
  const kept = log?.truncationChecked
    ? 'consistency with the kept checkpoint'
    : 'no kept checkpoint, so a rollback of the whole lineage cannot be seen';
  const latest: ReportCheckpoint = log
    ? {
        label,
        size: log.size,
        state: indexed?.awaitingFromSeq === null || indexed === null ? verification.verdict : indexed.state,
        detail: byIndex
          ? `the walked records' root checked against the index entry (${indexed?.reason ?? ''}); ${kept}`
          : log.truncationChecked
            ? 'signature, consistency with the kept checkpoint, and the walk checked'
            : 'signature and the walk checked; no kept checkpoint, so a rollback of the whole lineage cannot be seen',
      }
    : {
        label,
        size: null,
        state: verification.verdict === VerificationVerdict.VERIFIED_INTACT ? 'NOT_CHECKED' : verification.verdict,
        detail: verification.firstFailure?.reason ?? 'the lineage has no signed checkpoint to compare',
      };
  return lineageReport({
    lineageId,
    records: exported.records,
    verification,
    refusals: reportRefusals(rejections, conflicts),
    checkpoints: [latest, ...(options.checkpoints ?? [])],
    ...(options.recalls ? { recalls: options.recalls } : {}),
  });
}
