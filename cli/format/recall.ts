import { freshnessShape } from '../../client/shapes/freshness-shape';
import { untrustedRecallText } from '../../client/untrusted-recall-text';
import { RecallEnd, type TruncationReference, type VerifiedRecall } from '../../client/verified-recall';
import { RefusalCode } from '../../shared/pipeline/messages';
import { VerificationVerdict } from '../../shared/seal/verification-verdict';
import { fieldLines } from './field-lines';
import { freshnessLine } from './freshness';
import { isoTime } from './iso-time';
import { triageReportJson, triageReportText } from './triage-report';
import { UNTRUSTED_CLI_NOTE } from './untrusted-section';

/** The refusal code a recall shows, by its end (`null` when triaged). */
function refusalCode(recall: VerifiedRecall): RefusalCode | null {
  switch (recall.end) {
    case RecallEnd.TRIAGED:
      return null;
    case RecallEnd.UNTRIAGEABLE:
      return RefusalCode.MANIFEST_UNTRIAGEABLE;
    case RecallEnd.NOT_FOUND:
      return RefusalCode.NOT_FOUND;
    case RecallEnd.INVALID_REQUEST:
      return RefusalCode.INVALID_REQUEST;
    case RecallEnd.NOT_INTACT:
      return RefusalCode.VERIFICATION_FAILED;
  }
}

/**
 * The reason a refused recall shows (`null` when triaged): the client's, with the stored answer's
 * words it quotes redacted when unproven (they are in the untrusted section).
 */
function refusalReason(recall: VerifiedRecall): string | null {
  if (recall.end === RecallEnd.TRIAGED) return null;
  return untrustedRecallText(recall).reason;
}

/** The seq and residual id shown: the proven record's, else the seq the answer names (diagnostic; its residual id is untrusted). */
function shownRecord(recall: VerifiedRecall) {
  return {
    seq: recall.record?.header.monotonicSequenceNumber ?? recall.report.seq ?? null,
    residualId: recall.record?.header.residualId ?? null,
  };
}

/** The client's verification of the record: `null` when it examined none (an unproven `NOT_FOUND`). */
function verification(recall: VerifiedRecall) {
  if (recall.verdict === null) return null;
  if (recall.verdict === VerificationVerdict.VERIFIED_INTACT) return { verdict: recall.verdict, firstFailure: null };
  return {
    verdict: recall.verdict,
    firstFailure: { seq: shownRecord(recall).seq, verdict: recall.verdict, reason: untrustedRecallText(recall).reason },
  };
}

/** What a rollback was checked against, in words. */
function against(reference: TruncationReference): string {
  switch (reference.kind) {
    case 'KEPT_CHECKPOINT':
      return `the kept checkpoint (${reference.size} records)`;
    case 'GIVEN_CHECKPOINT':
      return `the given trusted checkpoint (${reference.size} records)`;
    case 'GIVEN_HEAD':
      return `--checkpoint (seq ${reference.seq})`;
  }
}

/**
 * The `proof` line of `reseal recall`: where the record was proven, the newest signed checkpoint
 * the client read itself, and what a rollback was checked against (or that it was not).
 */
export function recallProofLine(recall: VerifiedRecall): string {
  const { checkpointSize, newestSize, truncationCheckedAgainst } = recall.checks;
  const proven =
    checkpointSize === null
      ? 'no signed checkpoint proven'
      : `proven in the signed checkpoint of ${checkpointSize} records`;
  const newest = newestSize === null ? '' : `; newest signed checkpoint read from the head item: ${newestSize} records`;
  const truncation =
    truncationCheckedAgainst.length > 0
      ? `checked against ${truncationCheckedAgainst.map(against).join(' and ')}`
      : 'NOT checked: no trusted checkpoint (pass --checkpoint-store to keep one, or --checkpoint)';
  return `${proven}${newest}; truncation ${truncation}`;
}

/** `reseal recall --json`: snake_case, stable (fields are only ever added). */
export function recallJson(recall: VerifiedRecall) {
  const shown = shownRecord(recall);
  const verified = verification(recall);
  return {
    request_id: recall.requestId,
    lineage_id: recall.lineageId,
    seq: shown.seq,
    residual_id: shown.residualId,
    end: recall.end,
    outcome: recall.end === RecallEnd.TRIAGED ? 'TRIAGED' : 'REFUSED',
    verification: verified && { verdict: verified.verdict, first_failure: verified.firstFailure },
    detected_by: recall.detectedBy,
    report: recall.delta && triageReportJson(recall.delta),
    refusal_code: refusalCode(recall),
    refusal_reason: refusalReason(recall),
    completed_at: isoTime(recall.report.completedAtMs),
    checkpoint_size: recall.checks.checkpointSize,
    newest_checkpoint_size: recall.checks.newestSize,
    truncation_checked: recall.truncationChecked,
    truncation_checked_against: recall.checks.truncationCheckedAgainst.map((r) =>
      r.kind === 'GIVEN_HEAD'
        ? { kind: r.kind, seq: r.seq, record_hash: r.recordHash }
        : { kind: r.kind, size: r.size },
    ),
    untrusted: untrustedJson(recall),
    freshness: freshnessShape(recall.freshness),
  };
}

/** The stored answer's own words, escaped, for `--json` (`null` when the recall is proven). */
function untrustedJson(recall: VerifiedRecall) {
  const { untrusted } = untrustedRecallText(recall);
  return (
    untrusted && {
      note: UNTRUSTED_CLI_NOTE,
      refusal_reason: untrusted.refusalReason,
      residual_id: untrusted.residualId,
      reason: untrusted.reason,
    }
  );
}

/** The untrusted section that ends `reseal recall` text when the answer is unproven (docs/cli.md, "Untrusted data"). */
function untrustedLines(recall: VerifiedRecall): string {
  const { untrusted } = untrustedRecallText(recall);
  if (!untrusted) return '';
  return `\nuntrusted: ${UNTRUSTED_CLI_NOTE}\n${fieldLines([
    ['  refusal reason', untrusted.refusalReason ?? '(none)'],
    ['  residual', untrusted.residualId ?? '(none)'],
    ['  reason', untrusted.reason],
  ])}`;
}

/** `reseal recall` as text: the record, the outcome, the client's proof, the delta report when triaged. */
export function recallText(recall: VerifiedRecall): string {
  const shown = shownRecord(recall);
  const verified = verification(recall);
  const code = refusalCode(recall);
  const reason = refusalReason(recall);
  const head = fieldLines([
    ['recall', recall.requestId],
    ['record', `lineage ${recall.lineageId} seq ${shown.seq ?? '?'} residual ${shown.residualId ?? '?'}`],
    ['outcome', recall.end === RecallEnd.TRIAGED ? 'TRIAGED' : 'REFUSED'],
    // A recall proves the target record alone (docs/verifiable-log.md, "Recall"), never the whole chain.
    [
      'record proof',
      verified
        ? `${verified.verdict}${verified.verdict === VerificationVerdict.VERIFIED_INTACT ? ' (this record, proven against the signed checkpoint; the rest of the chain is not checked: reseal verify --lineage)' : ''}`
        : '(no record found)',
    ],
    ...(code ? ([['refusal code', code]] as [string, string][]) : []),
    ...(reason ? ([['refused', reason]] as [string, string][]) : []),
  ]);
  const body = recall.delta ? `${head}\n${triageReportText(recall.delta)}` : head;
  const fresh = freshnessLine(recall.freshness);
  return `${body}proof        ${recallProofLine(recall)}\n${fresh ? `freshness    ${fresh}\n` : ''}${untrustedLines(recall)}`;
}
