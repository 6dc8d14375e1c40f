import { staleStateHints } from '../../client/stale-state-hints';
import type { WriteVerdict } from '../../shared/guard/verdict';
import { Authority } from '../../shared/schemas/authority';
import { fieldLines } from './field-lines';

/** What a write of each authority other than `OPERATIONAL` is, for the `authority:` line. */
const NO_OPERATIONAL_AUTHORITY: Readonly<Record<Exclude<Authority, 'OPERATIONAL'>, string>> = {
  HISTORICAL_ATTRIBUTION:
    "HISTORICAL_ATTRIBUTION: documents a predecessor's state, exempt from the freshness rules V1-V5; it carries no operational authority and must never be acted on as current truth",
  INFORMATIONAL_ONLY:
    'INFORMATIONAL_ONLY: it carries no operational authority and must never be acted on as current truth',
};

/**
 * The write verdict as readable text. A write of an authority other than `OPERATIONAL` gets an
 * `authority:` line saying it carries no operational authority, and a safe `HISTORICAL_ATTRIBUTION`
 * write says so in the verdict line itself, since the guard skipped the freshness rules for it
 * (docs/guard.md, "HISTORICAL_ATTRIBUTION and operational authority").
 */
export function writeVerdictText(verdict: WriteVerdict, authority: Authority): string {
  const historical = authority === Authority.HISTORICAL_ATTRIBUTION;
  const safe = historical
    ? 'SAFE: the write may proceed as a historical record, with no operational authority'
    : 'SAFE: the write may proceed';
  let text = fieldLines([
    ['verdict', verdict.isSafe ? safe : 'REFUSED: the write must not proceed'],
    ...(authority === Authority.OPERATIONAL ? [] : [['authority', NO_OPERATIONAL_AUTHORITY[authority]] as const]),
    ['rejected variables', String(verdict.rejectedVariables.length)],
    ['request violations', String(verdict.requestViolations.length)],
    ['verdict digest', verdict.verdictDigest],
  ]);
  for (const r of verdict.rejectedVariables) text += `  variable ${JSON.stringify(r.name)}: ${r.reason}: ${r.detail}\n`;
  for (const v of verdict.requestViolations) text += `  field ${v.field}: ${v.reason}: ${v.detail}\n`;
  for (const hint of staleStateHints(verdict)) text += `${hint}\n`;
  return text;
}
