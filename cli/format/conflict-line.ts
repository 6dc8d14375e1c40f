import { isoTime } from '../../shared/iso-time';
import type { ConflictRecord } from '../../shared/ports/lineage-store';
import { escapedText as t } from '../../shared/schemas/escaped-text';

/** A conflict's listing line (without its marker). */
export const conflictLine = (c: ConflictRecord): string =>
  `${isoTime(c.atMs)}  ${t(c.reason)}  residual ${t(c.residualId)}: ${t(c.detail)}`;
