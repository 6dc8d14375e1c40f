import { type ListedConflictOutput, listedConflictOutput } from '../../client/shapes/listed-conflict-output';
import { type ListedRejectionOutput, listedRejectionOutput } from '../../client/shapes/listed-rejection-output';
import type { ConflictRecord, RejectionRecord } from '../../shared/ports/lineage-store';
import { type MaybeSigned, refusalSigned } from './refusal-signed';

/** The signed rejections and conflicts of a lineage for `reseal inspect --lineage --json` (unsigned ones: `untrusted`). */
export function refusalsJson(
  rejections: readonly (RejectionRecord & MaybeSigned)[],
  conflicts: readonly (ConflictRecord & MaybeSigned)[],
): { rejections: ListedRejectionOutput[]; conflicts: ListedConflictOutput[] } {
  return {
    rejections: rejections.filter(refusalSigned).map((r) => listedRejectionOutput(r, true)),
    conflicts: conflicts.filter(refusalSigned).map((c) => listedConflictOutput(c, true)),
  };
}
