import { z } from 'zod';
import { EpochMillis } from '../schemas/epoch-millis';
import { HexDigest as HexDigestSchema } from '../schemas/hex-digest';
import { Identifier } from '../schemas/identifier';
import { wellFormedString } from '../schemas/well-formed-string';
import { valueDigest } from './value-digest';

/** Longest probe description accepted, in UTF-16 code units. */
export const MAX_PROBE_LENGTH = 1024;

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
