import { staleStateHints } from '../../client/stale-state-hints';
import type { WriteVerdict } from '../../shared/guard/verdict';
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
  for (const hint of staleStateHints(verdict)) text += `${hint}\n`;
  return text;
}
