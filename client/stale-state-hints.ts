import { VariableRejectionReason as R } from '../shared/guard/variable-rejection';

/** What the agent can do about each kind of guard refusal (docs/guard.md). */
const HINTS: ReadonlyArray<readonly [ReadonlySet<string>, string]> = [
  [
    new Set<string>([
      R.UNVERIFIED_INHERITED,
      R.MISSING_RECEIPT,
      R.RECEIPT_PROBE_UNNAMED,
      R.RECEIPT_VALUE_MISMATCH,
      R.RECEIPT_WRONG_SESSION,
      R.RECEIPT_BEFORE_BOUNDARY,
      R.RECEIPT_FROM_FUTURE,
      R.RECEIPT_EXPIRED,
    ]),
    're-probe the rejected variables in this session and attach fresh receipts, or strip them from the write',
  ],
  [
    new Set<string>([R.UNDECLARED_IMMUTABLE_CONSTANT]),
    "declare true constants in the record's declaredImmutableConstants, or re-probe them",
  ],
  [
    new Set<string>([
      R.EPOCH_COLLAPSE,
      R.INHERITED_EPOCH_NOT_PAST,
      R.INHERITED_EPOCH_AFTER_PREDECESSOR,
      R.INHERITED_WITHOUT_PREDECESSOR,
    ]),
    "fix the variables' source epochs and the session boundary: fresh values carry this write's epoch, inherited ones the predecessor's",
  ],
];

/**
 * What the agent can do about a guard refusal, one hint per kind of reason (docs/guard.md): for a
 * write verdict (`reseal guard`) and a stored `STALE_STATE` rejection (`reseal publish --wait`,
 * `reseal_write`); none for a safe verdict.
 */
export function staleStateHints(verdict: {
  readonly isSafe: boolean;
  readonly rejectedVariables: readonly { readonly reason: string }[];
  readonly requestViolations: readonly unknown[];
}): string[] {
  if (verdict.isSafe) return [];
  const reasons = new Set(verdict.rejectedVariables.map((r) => r.reason as string));
  const hints = HINTS.filter(([set]) => [...set].some((reason) => reasons.has(reason))).map(([, hint]) => hint);
  if (verdict.requestViolations.length > 0) hints.push('fix the request fields named above (session, epoch, boundary)');
  return hints;
}
