import { isoTime } from '../shared/iso-time';
import type { RejectionRecord } from '../shared/ports/lineage-store';

/** What the agent can do about one rejected variable, by the guard's reason (docs/guard.md). */
const VARIABLE_ACTIONS: Readonly<Record<string, string>> = {
  UNVERIFIED_INHERITED:
    'probe the value again in this session, then pass it with freshness VERIFIED_INHERITED and reprobe: { probe: "<what you checked>" }',
  MISSING_RECEIPT: 'add reprobe: { probe: "<what you checked>" } (or a receipt) to this VERIFIED_INHERITED variable',
  RECEIPT_PROBE_UNNAMED: 'name the probe that re-verified the value (reprobe.probe must not be blank)',
  RECEIPT_VALUE_MISMATCH: 'the probe saw another value: write the value the probe observed, or probe again',
  RECEIPT_WRONG_SESSION: 'probe again in the active session (the receipt must name this write sessionId)',
  RECEIPT_BEFORE_BOUNDARY: 'probe again now: the probe must run after the session boundary (boundaryAtMs)',
  RECEIPT_FROM_FUTURE: "probe again and stamp the receipt with this machine's clock",
  RECEIPT_EXPIRED: 'the probe is too old: probe again and write right away',
  UNDECLARED_IMMUTABLE_CONSTANT: 'declare the name in declaredImmutableConstants, or probe it as an inherited value',
  EPOCH_COLLAPSE: "a FRESH_GENERATED value carries this write's generationEpoch as its sourceEpoch",
  INHERITED_EPOCH_NOT_PAST: "an inherited value's sourceEpoch must be below this write's generationEpoch",
  INHERITED_EPOCH_AFTER_PREDECESSOR: "an inherited value's sourceEpoch must be at most predecessor.epoch",
  INHERITED_WITHOUT_PREDECESSOR: 'name the predecessor session and epoch, or drop the inherited values (cold start)',
};

/**
 * A rejection's details as a tool answers them (`WRITE_REJECTED`, `reseal_inspect`): its stage,
 * reason, ids and time, each rejected variable with what the agent can do about it, each request
 * violation and schema issue. For a rejection whose signed statement checks: an unsigned one is
 * data from storage, answered only inside `untrusted` ({@link untrustedField}).
 */
export function rejectionDetails(r: RejectionRecord) {
  return {
    stage: r.stage,
    reason: r.reason,
    lineageId: r.lineageId,
    residualId: r.residualId,
    rejectedAt: isoTime(r.atMs),
    rejectedVariables: r.rejectedVariables.map((v) => ({
      name: v.name,
      reason: v.reason,
      detail: v.detail,
      action: VARIABLE_ACTIONS[v.reason] ?? 'see docs/guard.md for this reason',
    })),
    requestViolations: r.requestViolations.map((v) => ({ field: v.field, reason: v.reason, detail: v.detail })),
    issues: r.issues.map((i) => ({ path: i.path, message: i.message })),
  };
}
