import { FORMAT_VERSION } from '../canonical/hash-domain';
import type { RecallProof } from '../log/recall-proof';
import { VerificationVerdict } from '../seal/verification-verdict';
import type { DeltaIsolationReport } from '../triage/delta-isolation-report';
import type { TriageCompletedDetail } from './triage-completed-detail';
import { TriageOutcome } from './triage-outcome';

/**
 * The `TRIAGED` answer to a recall (docs/pipeline.md, "Message shapes"; docs/triage.md): the proven
 * record's seq and residual id, `VERIFIED_INTACT`, the delta isolated against the caller's
 * environment, and the proof a client checks it with. Triage stores it as its report; a client
 * recalling without triage builds the same answer from its own reads (docs/verifiable-log.md,
 * "Recall", "Without triage"), so both are one shape, decided by the same steps.
 *
 * @param answer - the recall it answers and when (`completedAtMs`, ms since the Unix epoch)
 * @param header - the proven record's header: its seq and residual id
 */
export function triagedDetail(
  answer: { readonly requestId: string; readonly lineageId: string; readonly completedAtMs: number },
  header: { readonly monotonicSequenceNumber: number; readonly residualId: string },
  report: DeltaIsolationReport,
  proof: RecallProof,
): TriageCompletedDetail {
  return {
    formatVersion: FORMAT_VERSION,
    requestId: answer.requestId,
    lineageId: answer.lineageId,
    seq: header.monotonicSequenceNumber,
    residualId: header.residualId,
    outcome: TriageOutcome.TRIAGED,
    verification: { verdict: VerificationVerdict.VERIFIED_INTACT, firstFailure: null },
    report,
    proof,
    refusalReason: null,
    refusalCode: null,
    completedAtMs: answer.completedAtMs,
  };
}
