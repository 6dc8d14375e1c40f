import type { ConflictRecord, RejectionRecord } from '../../shared/ports/lineage-store';
import { conflictLine } from './conflict-line';
import { type MaybeSigned, refusalSigned } from './refusal-signed';
import { rejectionDetailLines } from './rejection-detail-lines';
import { rejectionLine } from './rejection-line';

/**
 * The signed rejections and conflicts of a lineage as text, for `reseal inspect --lineage` after
 * the timeline: one line per record, oldest first, then its details. Unsigned or unreadable ones
 * are left to the untrusted section.
 */
export function refusalsText(
  rejections: readonly (RejectionRecord & MaybeSigned)[],
  conflicts: readonly (ConflictRecord & MaybeSigned)[],
): string {
  const signedRejections = rejections.filter(refusalSigned);
  const signedConflicts = conflicts.filter(refusalSigned);
  let text = `\nrejections (${signedRejections.length})${signedRejections.length === 0 ? ': none signed' : ':'}\n`;
  for (const r of signedRejections) {
    text += `  ${rejectionLine(r)}  (signature verified)\n`;
    text += rejectionDetailLines(r, '    ');
  }
  text += `\nconflicts (${signedConflicts.length})${signedConflicts.length === 0 ? ': none signed' : ':'}\n`;
  for (const c of signedConflicts) text += `  ${conflictLine(c)}  (signature verified)\n`;
  return text;
}
