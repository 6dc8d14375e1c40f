import { untrustedRecallText } from '../client/untrusted-recall-text';
import { RecallEnd, type VerifiedRecall } from '../client/verified-recall';
import { RefusalCode } from '../shared/pipeline/refusal-code';
import { triageExitCode } from './commands/triage';
import { ExitCode } from './exit-codes';

/**
 * Exit code of a recall (`reseal recall`, docs/cli.md), a pure mapping from the end the client
 * decided (`decideRecall`, client/verified-recall.ts):
 * - `TRIAGED` → 0 (`NO_DRIFT`, `AMBIENT_DRIFT_ONLY`) or 10 (re-probe or reconstruct);
 * - `NOT_INTACT` → 20 (tamper or unverifiable);
 * - `NOT_FOUND`, `INVALID_REQUEST` → 2 (bad input: unknown target);
 * - `UNTRIAGEABLE` → 10 (rebuild that memory);
 * - `AWAITING_INTEGRATION` → 3 (sealed, not proven yet: recall again after the integration interval).
 */
export function recallExitCode(recall: Pick<VerifiedRecall, 'end' | 'delta'>): ExitCode {
  switch (recall.end) {
    case RecallEnd.TRIAGED:
      return recall.delta ? triageExitCode(recall.delta.verdict) : ExitCode.TAMPER;
    case RecallEnd.NOT_FOUND:
    case RecallEnd.INVALID_REQUEST:
      return ExitCode.BAD_INPUT;
    case RecallEnd.UNTRIAGEABLE:
      return ExitCode.ACTION_NEEDED;
    case RecallEnd.NOT_INTACT:
      return ExitCode.TAMPER;
    case RecallEnd.AWAITING_INTEGRATION:
      return ExitCode.AWAITING_INTEGRATION;
  }
}

/** What a `NOT_FOUND` recall did not find, as the hint names it: the target asked for (`null`: latest). */
function missingTarget(target: VerifiedRecall['target']): string | null {
  if ('residualId' in target) return `residual ${target.residualId}`;
  if ('seq' in target) return `seq ${target.seq}`;
  return null;
}

/** A one-line explanation of a recall that did not end `TRIAGED`, for stderr, or `null`. */
export function recallRefusalHint(recall: VerifiedRecall): string | null {
  switch (recall.end) {
    case RecallEnd.NOT_FOUND: {
      const missing = missingTarget(recall.target);
      // Absent from the index as of its last integration only; the reason says what was searched past it.
      const proven = recall.freshness?.state === 'ABSENT' ? ` (${recall.freshness.reason})` : '';
      return `no such record: lineage ${recall.lineageId}${missing ? ` has no ${missing}` : ' has no sealed record'}${proven} (check --lineage, --seq, --residual-id)`;
    }
    case RecallEnd.INVALID_REQUEST:
      return `the triage function refused the request as invalid (unproven): ${untrustedRecallText(recall).reason}`;
    case RecallEnd.NOT_INTACT:
      if (recall.detectedBy === 'triage' && recall.refusal?.code !== RefusalCode.VERIFICATION_FAILED) {
        return `the triage function refused the recall with ${recall.refusal ? `refusal code ${recall.refusal.code}` : 'no refusal code'} (its reason, unproven, is in the untrusted section): treat this memory as untrusted`;
      }
      if (recall.freshness?.state === 'NOT_NEWEST') {
        // A rollback of records this client saw sealed, awaiting integration (docs/verifiable-log.md, "Seals seen awaiting integration").
        if (recall.reason.startsWith('rollback: '))
          return `the lineage was rolled back over a write this client saw sealed (${recall.verdict}): ${recall.reason.slice('rollback: '.length)}; treat this lineage as untrusted`;
        return `the answer is not the newest record (${recall.verdict}): the index holds a larger head of the lineage; treat this memory as untrusted`;
      }
      return `the record or its answer is not proven (${recall.verdict}): no triage; treat this memory as untrusted`;
    case RecallEnd.UNTRIAGEABLE:
      return `the record verified but cannot be triaged (${recall.refusal?.reason ?? recall.reason}): rebuild this memory`;
    case RecallEnd.AWAITING_INTEGRATION:
      return `${recall.reason} (exit 3: not proven memory yet, and not tampering)`;
    case RecallEnd.TRIAGED:
      return null;
  }
}
