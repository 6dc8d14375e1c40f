import type { CallToolResult } from '@modelcontextprotocol/server';
import { type TimelineRow, timelineRows } from '../client/timeline-rows';
import type { Signed } from '../client/write-outcomes';
import type { ConflictRecord, RejectionRecord } from '../shared/ports/lineage-store';
import type { ChainCheckpoint, ChainVerification } from '../shared/seal/chain-verification';
import { VerificationVerdict } from '../shared/seal/verification-verdict';
import { isoTime } from './iso-time';
import type { LogCheck } from './log-check';
import { logCheckFields } from './log-check-fields';
import { rejectionDetails } from './rejection-details';
import type { InspectOutput } from './tool-outputs';
import { toolResult } from './tool-result';
import { walkTamperResult, walkVerdict } from './walk-verdict';

function timelineRecord(r: TimelineRow) {
  return {
    seq: r.seq,
    generationEpoch: r.generationEpoch,
    authority: r.authority,
    sessionId: r.sessionId,
    residualId: r.residualId,
    sealedAt: r.sealedAtMs === null ? null : isoTime(r.sealedAtMs),
    supersedes: r.supersedes,
    verification: r.verification,
  };
}

/**
 * The answer of `reseal_inspect`: the timeline (each record with its own verdict), the lineage's
 * rejected and conflicting writes (as stored: diagnostic), each with whether its signed statement
 * checks (`signatureVerified`: an unsigned or edited item may be a forgery), and the signed log's checkpoint; a
 * chain or log that is not intact is a `TAMPER_DETECTED` tool error carrying the same timeline.
 */
export function inspectResult(
  lineageId: string,
  records: readonly unknown[],
  verification: ChainVerification,
  refusals: {
    readonly rejections: readonly (RejectionRecord & Signed)[];
    readonly conflicts: readonly (ConflictRecord & Signed)[];
  },
  log: LogCheck,
  caller?: ChainCheckpoint,
): CallToolResult {
  const found = walkVerdict(verification, log);
  const timeline: InspectOutput = {
    lineageId,
    verdict: found.verdict,
    firstFailure: found.firstFailure,
    records: timelineRows(records, verification).map(timelineRecord),
    rejections: refusals.rejections.map((r) => {
      const { lineageId: _lineage, ...details } = rejectionDetails(r);
      return { ...details, signatureVerified: r.signatureVerified && !r.unreadable, unreadable: r.unreadable ?? null };
    }),
    conflicts: refusals.conflicts.map((c) => ({
      reason: c.reason,
      detail: c.detail,
      residualId: c.residualId,
      conflictedAt: isoTime(c.atMs),
      signatureVerified: c.signatureVerified && !c.unreadable,
      unreadable: c.unreadable ?? null,
    })),
    ...logCheckFields(log, caller),
  };
  if (found.verdict !== VerificationVerdict.VERIFIED_INTACT) {
    return walkTamperResult(lineageId, found, { ...timeline, logFailure: log.failure });
  }
  return toolResult(
    `${lineageId}: ${timeline.records.length} record(s), VERIFIED_INTACT; ${timeline.rejections.length} rejection(s), ${timeline.conflicts.length} conflict(s)`,
    timeline,
  );
}
