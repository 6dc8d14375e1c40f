import type { ConflictRecord, RejectionRecord } from '../../shared/ports/lineage-store';
import { conflictJson } from './conflict-json';
import { type MaybeSigned, refusalSigned } from './refusal-signed';
import { rejectionJson } from './rejection-json';

/** The signed rejections and conflicts of a lineage for `reseal inspect --lineage --json` (unsigned ones: `untrusted`). */
export function refusalsJson(
  rejections: readonly (RejectionRecord & MaybeSigned)[],
  conflicts: readonly (ConflictRecord & MaybeSigned)[],
) {
  return {
    rejections: rejections
      .filter(refusalSigned)
      .map((r) => ({ ...rejectionJson(r), signature_verified: true, unreadable: null })),
    conflicts: conflicts
      .filter(refusalSigned)
      .map((c) => ({ ...conflictJson(c), signature_verified: true, unreadable: null })),
  };
}
