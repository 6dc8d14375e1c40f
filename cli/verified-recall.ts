import type { VerifiedRecall } from '../client/recalls';
import { RefusalCode, type TriageCompletedDetail, TriageOutcome } from '../shared/pipeline/messages';
import { clipText } from '../shared/schemas/clip-text';
import { VerificationVerdict } from '../shared/seal/verification-verdict';

/**
 * The triage answer as this client proved it (docs/verifiable-log.md, "Recall"), in the shape of a
 * `TriageCompletedDetail`, so exit codes and text follow the same rules as before: the
 * verification is the client's own verdict, the report the delta it recomputed, and a refusal it
 * could not confirm keeps only what cannot make the client act (not found, invalid request).
 * Nothing of the stored report reaches the result unless the proof confirmed it.
 */
export function verifiedDetail(recall: VerifiedRecall): TriageCompletedDetail {
  const { report } = recall;
  const base = {
    formatVersion: report.formatVersion,
    requestId: recall.requestId,
    lineageId: report.lineageId,
    seq: recall.record?.header.monotonicSequenceNumber ?? report.seq,
    residualId: recall.record?.header.residualId ?? report.residualId,
    proof: report.proof,
    completedAtMs: report.completedAtMs,
  };
  if (recall.verdict === VerificationVerdict.VERIFIED_INTACT && recall.delta) {
    return {
      ...base,
      outcome: TriageOutcome.TRIAGED,
      verification: { verdict: recall.verdict, firstFailure: null },
      report: recall.delta,
      refusalReason: null,
      refusalCode: null,
    };
  }
  if (recall.verdict === VerificationVerdict.VERIFIED_INTACT && recall.refusal) {
    return {
      ...base,
      outcome: TriageOutcome.REFUSED,
      verification: { verdict: recall.verdict, firstFailure: null },
      report: null,
      refusalReason: recall.refusal.reason,
      refusalCode: recall.refusal.code,
    };
  }
  if (recall.verdict === null) {
    // An unproven refusal: only "not found" and "invalid request" pass; anything else is untrusted.
    const code = report.refusalCode;
    const passes = code === RefusalCode.NOT_FOUND || code === RefusalCode.INVALID_REQUEST;
    return {
      ...base,
      outcome: TriageOutcome.REFUSED,
      verification: null,
      report: null,
      refusalReason: recall.reason,
      refusalCode: passes ? code : RefusalCode.VERIFICATION_FAILED,
    };
  }
  const verdict =
    recall.verdict === VerificationVerdict.VERIFIED_INTACT
      ? VerificationVerdict.UNVERIFIED_TAMPER_RISK
      : recall.verdict;
  return {
    ...base,
    outcome: TriageOutcome.REFUSED,
    verification: { verdict, firstFailure: { seq: base.seq, verdict, reason: recall.reason } },
    report: null,
    refusalReason: clipText(recall.reason, 4096),
    refusalCode: RefusalCode.VERIFICATION_FAILED,
  };
}

/** What the proof showed, for the text and JSON output: the checkpoint size and whether truncation was checked. */
export function proofSummary(recall: VerifiedRecall): {
  checkpointSize: number | null;
  truncationChecked: boolean;
  line: string;
} {
  const size = recall.checkpoint?.size ?? null;
  const truncation = recall.truncationChecked
    ? 'checked against the kept checkpoint'
    : 'NOT checked: no trusted checkpoint (pass --checkpoint-store to keep one)';
  return {
    checkpointSize: size,
    truncationChecked: recall.truncationChecked,
    line: `${size === null ? 'no signed checkpoint proven' : `proven in the signed checkpoint of ${size} records`}; truncation ${truncation}`,
  };
}
