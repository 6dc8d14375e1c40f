import { printableErrorPath } from '../../shared/errors';
import type { RejectionRecord } from '../../shared/ports/lineage-store';
import { escapedText as t } from '../../shared/schemas/escaped-text';

/**
 * The detail lines of a rejection: each rejected variable, request violation and schema issue,
 * every stored string escaped ({@link t escapedText}, `printableErrorPath` for paths and names): a
 * forged item cannot add a line or rewrite one on a terminal.
 */
export function rejectionDetailLines(r: RejectionRecord, indent: string): string {
  let text = r.unreadable ? `${indent}${t(r.unreadable)}: the stored item is malformed\n` : '';
  for (const v of r.rejectedVariables)
    text += `${indent}variable ${t(JSON.stringify(v.name))}: ${t(v.reason)}: ${t(v.detail)}\n`;
  for (const v of r.requestViolations)
    text += `${indent}field ${printableErrorPath(v.field)}: ${t(v.reason)}: ${t(v.detail)}\n`;
  for (const i of r.issues) text += `${indent}at ${printableErrorPath(i.path || '<root>')}: ${t(i.message)}\n`;
  return text;
}
