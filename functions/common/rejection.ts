import { FORMAT_VERSION } from '../../shared/canonical/hash-domain';
import type { ResidualRejectedDetail } from '../../shared/pipeline/residual-rejected-detail';
import type { RejectionRecord } from '../../shared/ports/lineage-store';
import { clipText } from '../../shared/schemas/clip-text';

/** The `ResidualRejected` detail for a rejection record (strings clipped to the schema's bounds). */
export function rejectionDetailOf(rejection: RejectionRecord, rejectedAtMs: number): ResidualRejectedDetail {
  const clip = (s: string) => clipText(s, 4096);
  return {
    formatVersion: FORMAT_VERSION,
    stage: rejection.stage,
    reason: rejection.reason,
    lineageId: rejection.lineageId,
    residualId: rejection.residualId,
    verdictDigest: rejection.verdictDigest,
    bodyDigest: rejection.bodyDigest,
    messageId: rejection.messageId,
    rejectedVariables: rejection.rejectedVariables.map((v) => ({
      name: clip(v.name),
      reason: v.reason,
      detail: clip(v.detail),
    })),
    requestViolations: rejection.requestViolations.map((v) => ({
      field: clip(v.field),
      reason: v.reason,
      detail: clip(v.detail),
    })),
    issues: rejection.issues.map((i) => ({ path: clip(i.path), message: clip(i.message) })),
    rejectedAtMs,
  };
}
