import { isoTime } from '../../client/iso-time';
import type { TimelineRow } from '../../client/timeline-rows';
import { escapedText as t } from '../../shared/schemas/escaped-text';
import type { ChainVerification } from '../../shared/seal/chain-verification';
import { shownRow } from './shown-row';
import { writtenByJson } from './written-by-json';

/** Timeline for `--json`: snake_case, stable; a record that does not verify shows no stored string (see `untrusted`). */
export function timelineJson(lineageId: string, rows: readonly TimelineRow[], verification: ChainVerification) {
  return {
    lineage_id: lineageId,
    verdict: verification.verdict,
    first_failure: verification.firstFailure && {
      ...verification.firstFailure,
      reason: t(verification.firstFailure.reason),
    },
    records: rows.map(shownRow).map((r) => ({
      seq: r.seq,
      generation_epoch: r.generationEpoch,
      authority: r.authority,
      session_id: r.sessionId,
      residual_id: r.residualId,
      sealed_at: r.sealedAtMs === null ? null : isoTime(r.sealedAtMs),
      supersedes: r.supersedes && { seq: r.supersedes.seq, record_hash: r.supersedes.recordHash },
      guard_verdict_digest: r.guardVerdictDigest,
      verification: r.verification,
      written_by: writtenByJson(r.writtenBy),
    })),
  };
}
