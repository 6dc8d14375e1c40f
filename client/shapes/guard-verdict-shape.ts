import { z } from 'zod';
import { RequestViolationSchema } from '../../shared/guard/request-violation';
import { RejectedVariableSchema } from '../../shared/guard/variable-rejection';
import type { WriteVerdict } from '../../shared/guard/verdict';
import { Authority, AuthoritySchema } from '../../shared/schemas/authority';
import { HexDigest } from '../../shared/schemas/hex-digest';

/** `format` of a {@link GuardVerdictShape}: bumped only when a field changes meaning or goes away. */
export const GUARD_VERDICT_FORMAT = 'reseal.guard-verdict/1';

/**
 * The stale-state guard's verdict on one write request (docs/guard.md; docs/cli.md, `reseal
 * guard`): the shape `reseal guard --json` prints (camelCase, `format` `reseal.guard-verdict/1`).
 * `isSafe` with each rejected variable (`reason` one of docs/guard.md, "Reasons") and request
 * violation, the write's `authority`, and `operationalAuthority`: `false` for
 * `INFORMATIONAL_ONLY` and `HISTORICAL_ATTRIBUTION`, whose safe verdict lets the record be
 * written, never acted on as current truth (docs/guard.md, "HISTORICAL_ATTRIBUTION and
 * operational authority"). `verdictDigest` is the verdict's SHA-256 the sealer checks.
 */
export const GuardVerdictShape = z.object({
  format: z.literal(GUARD_VERDICT_FORMAT),
  isSafe: z.boolean(),
  authority: AuthoritySchema,
  operationalAuthority: z.boolean(),
  rejectedVariables: z.array(RejectedVariableSchema),
  requestViolations: z.array(RequestViolationSchema),
  verdictDigest: HexDigest,
});
/** Type of {@link GuardVerdictShape}. */
export type GuardVerdictShape = z.infer<typeof GuardVerdictShape>;

/** The {@link GuardVerdictShape} of the guard's `verdict` on a write of `authority`. */
export function guardVerdictShape(verdict: WriteVerdict, authority: Authority): GuardVerdictShape {
  return {
    format: GUARD_VERDICT_FORMAT,
    isSafe: verdict.isSafe,
    authority,
    operationalAuthority: authority === Authority.OPERATIONAL,
    rejectedVariables: verdict.rejectedVariables.map((r) => ({ name: r.name, reason: r.reason, detail: r.detail })),
    requestViolations: verdict.requestViolations.map((v) => ({ field: v.field, reason: v.reason, detail: v.detail })),
    verdictDigest: verdict.verdictDigest,
  };
}
