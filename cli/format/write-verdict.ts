import { VariableRejectionReason as R, type WriteVerdict } from '../../shared/guard/verdict';
import { fieldLines } from './output';

/**
 * The guard's write verdict for `--json`: snake_case keys as seed 004 spells them (`is_safe`,
 * `rejected_variables`, `verdict_digest`), plus `request_violations`. Stable: fields are only
 * ever added.
 */
export function writeVerdictJson(verdict: WriteVerdict) {
  return {
    is_safe: verdict.isSafe,
    rejected_variables: verdict.rejectedVariables.map((r) => ({ name: r.name, reason: r.reason, detail: r.detail })),
    request_violations: verdict.requestViolations.map((v) => ({ field: v.field, reason: v.reason, detail: v.detail })),
    verdict_digest: verdict.verdictDigest,
  };
}

/** The write verdict as readable text. */
export function writeVerdictText(verdict: WriteVerdict): string {
  let text = fieldLines([
    ['verdict', verdict.isSafe ? 'SAFE: the write may proceed' : 'REFUSED: the write must not proceed'],
    ['rejected variables', String(verdict.rejectedVariables.length)],
    ['request violations', String(verdict.requestViolations.length)],
    ['verdict digest', verdict.verdictDigest],
  ]);
  for (const r of verdict.rejectedVariables) text += `  variable ${JSON.stringify(r.name)}: ${r.reason}: ${r.detail}\n`;
  for (const v of verdict.requestViolations) text += `  field ${v.field}: ${v.reason}: ${v.detail}\n`;
  for (const hint of hintsFor(verdict)) text += `${hint}\n`;
  return text;
}

/** What the agent can do about each kind of refusal (seed 004 Decision Boundary 2–4). */
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

/** The hints for a refusal: also used for a stored `STALE_STATE` rejection (`reseal publish --wait`). */
export function hintsFor(verdict: {
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
