import { isoTime } from '../../shared/iso-time';
import type { RejectionRecord } from '../../shared/ports/lineage-store';
import { escapedText as t } from '../../shared/schemas/escaped-text';

/** A rejection's listing line (without its marker). */
export const rejectionLine = (r: RejectionRecord): string =>
  `${isoTime(r.atMs)}  ${t(r.stage)}  ${t(r.reason)}  residual ${t(r.residualId ?? '?')}  message ${t(r.messageId)}`;
