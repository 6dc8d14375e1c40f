import { isoTime } from '../../client/iso-time';
import type { RejectionRecord } from '../../shared/ports/lineage-store';

/** A stored rejection for `--json` (snake_case; the raw body preview is left out). */
export function rejectionJson(r: RejectionRecord) {
  return {
    stage: r.stage,
    reason: r.reason,
    lineage_id: r.lineageId,
    residual_id: r.residualId,
    message_id: r.messageId,
    verdict_digest: r.verdictDigest,
    body_digest: r.bodyDigest,
    issues: r.issues.map((i) => ({ path: i.path, message: i.message })),
    rejected_variables: r.rejectedVariables.map((v) => ({ name: v.name, reason: v.reason, detail: v.detail })),
    request_violations: r.requestViolations.map((v) => ({ field: v.field, reason: v.reason, detail: v.detail })),
    rejected_at: isoTime(r.atMs),
  };
}
