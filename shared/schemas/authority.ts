import { z } from 'zod';

/**
 * Authority a record carries (docs/guard.md, rule V6; docs/sealing.md, "Authority: why no record is read unverified").
 * - `OPERATIONAL`: asserts current truth; must be verified before use.
 * - `INFORMATIONAL_ONLY`: may be read unverified, never acted on as operational truth.
 * - `HISTORICAL_ATTRIBUTION`: documents a predecessor's state; exempt from freshness checks,
 *   carries no operational authority.
 */
export const Authority = {
  OPERATIONAL: 'OPERATIONAL',
  INFORMATIONAL_ONLY: 'INFORMATIONAL_ONLY',
  HISTORICAL_ATTRIBUTION: 'HISTORICAL_ATTRIBUTION',
} as const;
/** One of {@link Authority}. */
export type Authority = (typeof Authority)[keyof typeof Authority];
/** Schema of {@link Authority}. */
export const AuthoritySchema = z.enum(Authority);
