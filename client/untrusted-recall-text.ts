import { escapedText } from '../shared/schemas/escaped-text';
import { redactedText } from '../shared/schemas/redacted-text';
import { RecallEnd, type VerifiedRecall } from './verified-recall';

/** The stored answer's own words, escaped: what a recall renderer shows only as untrusted. */
export interface UntrustedRecallWords {
  /** Triage's `refusalReason` as stored (unproven), or `null`. */
  readonly refusalReason: string | null;
  /** The residual id the stored answer names when no record was proven, or `null`. */
  readonly residualId: string | null;
  /** The client's reason in full, quoting the stored answer. */
  readonly reason: string;
}

/** What a renderer may say of a recall that did not end `TRIAGED` ({@link untrustedRecallText}). */
export interface UntrustedRecallText {
  /** The client's reason, with every stored string it quotes redacted and control characters escaped. */
  readonly reason: string;
  /** The stored answer's words, escaped, for the one untrusted field; `null` when the recall is proven. */
  readonly untrusted: UntrustedRecallWords | null;
}

/**
 * How a recall's words are shown (docs/mcp.md, "Untrusted data"; docs/cli.md, `reseal recall`):
 * a proven recall (`TRIAGED`, `UNTRIAGEABLE`: the client's own reason) as is; any other end quotes
 * a stored answer the client could not prove (triage's `refusalReason`, the residual id it names
 * when it is not the one asked for, its claimed failure), which a table writer may have written. Its reason is then shown with
 * those quotes redacted, and the stored words only in `untrusted`, escaped.
 */
export function untrustedRecallText(recall: VerifiedRecall): UntrustedRecallText {
  if (recall.end === RecallEnd.TRIAGED || recall.end === RecallEnd.UNTRIAGEABLE) {
    return { reason: recall.refusal?.reason ?? recall.reason, untrusted: null };
  }
  const { report } = recall;
  const residualId = recall.record ? null : report.residualId;
  // The residual id the caller asked for is the caller's own word, not stored text: a reason the
  // client wrote about it is shown as written, not redacted against an empty untrusted field.
  const asked = 'residualId' in recall.target ? recall.target.residualId : null;
  const quoted = [
    report.refusalReason,
    residualId === asked ? null : residualId,
    report.verification?.firstFailure?.reason,
  ].filter((text): text is string => typeof text === 'string');
  return {
    reason: escapedText(redactedText(recall.reason, quoted)),
    untrusted: {
      refusalReason: report.refusalReason === null ? null : escapedText(report.refusalReason),
      residualId: residualId === null ? null : escapedText(residualId),
      reason: escapedText(recall.reason),
    },
  };
}
