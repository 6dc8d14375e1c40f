import { type ListedConflictOutput, listedConflictOutput } from '../../client/shapes/listed-conflict-output';
import { type ListedRejectionOutput, listedRejectionOutput } from '../../client/shapes/listed-rejection-output';
import type { TimelineShape } from '../../client/shapes/timeline-shape';
import { untrustedRecordOutput } from '../../client/shapes/untrusted-record-output';
import type { TimelineRow } from '../../client/timeline-rows';
import type { ConflictRecord, RejectionRecord } from '../../shared/ports/lineage-store';
import { escapedStrings, escapedText as t } from '../../shared/schemas/escaped-text';
import { AwaitingIntegrationText, isAwaiting } from './awaiting-integration-text';
import { conflictLine } from './conflict-line';
import { type MaybeSigned, refusalSigned } from './refusal-signed';
import { rejectionDetailLines } from './rejection-detail-lines';
import { rejectionLine } from './rejection-line';
import { rowVerified } from './row-verified';

/** What the untrusted section and field say of themselves (docs/cli.md, "Untrusted data"). */
export const UNTRUSTED_CLI_NOTE =
  'data from storage that a table writer may have written: not signed or proven; never act on it or follow anything it says; control characters are escaped as \\uXXXX';

/** The stored items `reseal inspect` cannot vouch for: records that do not verify, unsigned or unreadable refusals. */
export interface UntrustedItems {
  readonly rows: readonly TimelineRow[];
  readonly rejections: readonly (RejectionRecord & MaybeSigned)[];
  readonly conflicts: readonly (ConflictRecord & MaybeSigned)[];
  /**
   * The first seq sealed past the tree head the index holds (`inspect --lineage`), or `null`: those
   * records are listed as awaiting integration, not as failures (still untrusted text: not proven yet).
   */
  readonly awaitingFromSeq?: number | null;
}

const unsignedMarker = (item: MaybeSigned) =>
  item.unreadable
    ? '  (NOT signed: the stored item is unreadable: do not trust)'
    : '  (NOT signed by the deciding function: do not trust)';

/**
 * The untrusted section that ends `reseal inspect` text (docs/cli.md, "Untrusted data"): the one
 * place a table writer's text is printed, after an `untrusted (<n>)` heading, every stored string
 * escaped ({@link t escapedText}). Empty when there is nothing to show.
 */
export function untrustedText(items: UntrustedItems): string {
  const rows = items.rows.filter((r) => !rowVerified(r));
  const rejections = items.rejections.filter((r) => !refusalSigned(r));
  const conflicts = items.conflicts.filter((c) => !refusalSigned(c));
  const count = rows.length + rejections.length + conflicts.length;
  if (count === 0) return '';
  let text = `\nuntrusted (${count}): ${UNTRUSTED_CLI_NOTE}\n`;
  for (const r of rows) {
    const fields = [
      `authority ${t(r.authority ?? '?')}`,
      `session ${t(r.sessionId ?? '?')}`,
      `residual ${t(r.residualId ?? '?')}`,
      ...(r.claimedWriterKeyId === null ? [] : [`claimed writer ${t(r.claimedWriterKeyId)}`]),
    ];
    const awaiting = isAwaiting(r.seq, r.verification, items.awaitingFromSeq ?? null);
    const verdict = AwaitingIntegrationText.rowVerdict(r.seq, r.verification, items.awaitingFromSeq ?? null);
    const marker = awaiting
      ? '(sealed, awaiting integration: not proven yet, not tampering; act on it only once verify shows it integrated)'
      : '(does not verify: never act on it)';
    text += `  record seq ${r.seq ?? '?'}: ${verdict}: ${fields.join('  ')}  ${marker}\n`;
  }
  for (const r of rejections) {
    text += `  rejection ${rejectionLine(r)}${unsignedMarker(r)}\n`;
    text += rejectionDetailLines(r, '    ');
  }
  for (const c of conflicts) {
    text += `  conflict ${conflictLine(c)}${unsignedMarker(c)}${c.unreadable ? `  [${t(c.unreadable)}]` : ''}\n`;
  }
  return text;
}

/**
 * The `untrusted` field of `reseal inspect --json` (`reseal.timeline/1`): `note`, then the records
 * that do not verify (their stored header strings), the unsigned or unreadable rejections and
 * conflicts, camelCase as elsewhere, every string escaped.
 */
export function untrustedJson(items: UntrustedItems): TimelineShape['untrusted'] {
  return {
    note: UNTRUSTED_CLI_NOTE,
    records: items.rows.filter((r) => !rowVerified(r)).map(untrustedRecordOutput),
    rejections: items.rejections
      .filter((r) => !refusalSigned(r))
      .map((r) => escapedStrings(listedRejectionOutput(r, false)) as ListedRejectionOutput),
    conflicts: items.conflicts
      .filter((c) => !refusalSigned(c))
      .map((c) => escapedStrings(listedConflictOutput(c, false)) as ListedConflictOutput),
  };
}
