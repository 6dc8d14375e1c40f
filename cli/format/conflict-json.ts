import { isoTime } from '../../client/iso-time';
import type { ConflictRecord } from '../../shared/ports/lineage-store';
import { headJson } from './head-json';

/** A stored conflict for `--json` (snake_case; the attempted header is left out). */
export function conflictJson(c: ConflictRecord) {
  return {
    reason: c.reason,
    detail: c.detail,
    lineage_id: c.lineageId,
    residual_id: c.residualId,
    expected_head: headJson(c.expectedHead),
    observed_head: headJson(c.observedHead),
    conflicted_at: isoTime(c.atMs),
  };
}
