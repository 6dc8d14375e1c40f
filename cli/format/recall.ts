import {
  type RecallShape,
  recallRefusalCode,
  recallShape,
  recallVerification,
  shownRecallRecord,
} from '../../client/shapes/recall-shape';
import { provenTreeText } from '../../client/tree-voucher';
import { CLI_TRUNCATION_HINTS, recallTruncationBasis, truncationCheckText } from '../../client/truncation-check-text';
import { untrustedRecallText } from '../../client/untrusted-recall-text';
import { RecallEnd, type VerifiedRecall } from '../../client/verified-recall';
import { writtenByProven, writtenByText } from '../../client/written-by';
import { VerificationVerdict } from '../../shared/seal/verification-verdict';
import { fieldLines } from './field-lines';
import { freshnessLine } from './freshness';
import { triageReportText } from './triage-report';
import { UNTRUSTED_CLI_NOTE } from './untrusted';

/**
 * The reason a refused recall shows (`null` when triaged): the client's, with the stored answer's
 * words it quotes redacted when unproven (they are in the untrusted section).
 */
function refusalReason(recall: VerifiedRecall): string | null {
  if (recall.end === RecallEnd.TRIAGED) return null;
  return untrustedRecallText(recall).reason;
}

/**
 * The `proof` line of `reseal recall`: where the record was proven, the newest signed checkpoint
 * the client read itself, and what a rollback was checked against, or what would check it
 * ({@link truncationCheckText}).
 */
export function recallProofLine(recall: VerifiedRecall): string {
  const { checkpointSize, newestSize } = recall.checks;
  // What vouches for the tree (docs/verifiable-log.md, "Recall", step 6): a signature, else the
  // index entry (freshness PROVEN), else the sealer's head MAC alone, awaiting integration.
  const proven =
    checkpointSize === null
      ? 'no tree head proven'
      : `proven in ${provenTreeText({ size: checkpointSize, note: recall.checkpoint?.note ?? null }, recall.freshness)}`;
  const newest = newestSize === null ? '' : `; newest tree head read from the head item: ${newestSize} records`;
  return `${proven}${newest}; truncation ${truncationCheckText(recallTruncationBasis(recall), CLI_TRUNCATION_HINTS)}`;
}

/** `reseal recall --json`: the {@link RecallShape} (docs/cli.md, `recall`), as `reseal_recall` answers it. */
export function recallJson(recall: VerifiedRecall): RecallShape {
  return recallShape(recall, UNTRUSTED_CLI_NOTE);
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
  const shown = shownRecallRecord(recall);
  const verified = recallVerification(recall);
  const code = recallRefusalCode(recall);
  const reason = refusalReason(recall);
  const head = fieldLines([
    ['recall', recall.requestId],
    ['record', `lineage ${recall.lineageId} seq ${shown.seq ?? '?'} residual ${shown.residualId ?? '?'}`],
    [
      'written by',
      recall.record === null ? '(not shown: no record proven)' : writtenByText(writtenByProven(recall.record)),
    ],
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
