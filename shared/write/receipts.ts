import { z } from 'zod';
import { FORMAT_VERSION, HashDomain, type HexDigest, hashCanonical } from '../canonical/digest';
import { EpochMillis } from '../schemas/epoch-millis';
import { HexDigest as HexDigestSchema } from '../schemas/hex-digest';
import { Identifier } from '../schemas/identifier';
import { wellFormedString } from '../schemas/well-formed-string';

/** Longest probe description accepted, in UTF-16 code units. */
export const MAX_PROBE_LENGTH = 1024;

/**
 * Digest of a session variable's value, the one a freshness probe receipt must name
 * (docs/guard.md, "valueDigest" and rule R2).
 *
 * Layout: `SHA-256( "reseal/v1/value" || 0x00 || JCS({ "v": 1, "value": value }) )`, 64
 * lowercase hex characters, where JCS is the RFC 8785 canonical UTF-8 form.
 *
 * @example
 * ```ts
 * valueDigest('i-0abc'); // 64 hex chars, the same in every run and every language
 * ```
 * @param value - the variable's value, exactly as written (no trimming, no normalization)
 * @throws {CanonicalizationError} when `value` holds a lone UTF-16 surrogate
 */
export function valueDigest(value: string): HexDigest {
  return hashCanonical(HashDomain.VALUE, { v: FORMAT_VERSION, value });
}

/**
 * Schema of a {@link FreshnessProbeReceipt}: strict object, unknown fields refused.
 *
 * The schema checks shapes only. Whether the receipt actually re-verifies its variable
 * (probe named, digest matches, right session, inside the time window) is the guard's
 * decision and yields a rejection reason, not an input error (see `evaluateWrite`).
 */
export const FreshnessProbeReceiptSchema = z.strictObject({
  /** What was probed and how (API lookup, existence check, token introspection). */
  probe: wellFormedString(MAX_PROBE_LENGTH),
  /** {@link valueDigest} of the value the probe observed. */
  observedValueDigest: HexDigestSchema,
  /** Session that ran the probe. */
  sessionId: Identifier,
  /** When the probe ran, milliseconds since the Unix epoch (UTC). */
  probedAtMs: EpochMillis,
});

/**
 * Proof that an inherited variable was re-verified against current ground truth
 * (docs/guard.md, rules V2, V3 and R1–R6).
 *
 * `{ probe: string; observedValueDigest: HexDigest; sessionId: Identifier; probedAtMs: EpochMillis }`
 */
export type FreshnessProbeReceipt = z.infer<typeof FreshnessProbeReceiptSchema>;
