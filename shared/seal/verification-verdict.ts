/**
 * Outcome of verifying a sealed record or a chain of them (docs/sealing.md,
 * "Verification", "Verdict precedence").
 *
 * - `VERIFIED_INTACT`: every check passed.
 * - `HASH_MISMATCH`: content does not match what was sealed: a recomputed payload, manifest or
 *   record hash differs, the record is malformed, or the anchor MAC is wrong (tampered or
 *   forged: a table writer can recompute every hash, but not the MAC).
 * - `LINEAGE_BROKEN`: the record does not follow its predecessor: wrong parent hash, missing
 *   records (a gap), another lineage, or a fork/rewrite against a trusted checkpoint.
 * - `SEQUENCE_REPLAYED`: a sequence number repeated or went back (replay, reordering, concurrent
 *   overwrite), a residual id sealed twice, or a generation epoch that
 *   went back (a fenced-out writer).
 * - `UNVERIFIED_TAMPER_RISK`: the anchor could not be checked (key disabled, missing,
 *   unreachable, another key, unknown format version), so the record is not trusted: fail
 *   closed. Also given to records after the first failure.
 * - `TRUNCATION_DETECTED`: the chain ends before a trusted checkpoint's seq
 *   (the log was truncated or rolled back).
 */
export const VerificationVerdict = {
  VERIFIED_INTACT: 'VERIFIED_INTACT',
  HASH_MISMATCH: 'HASH_MISMATCH',
  LINEAGE_BROKEN: 'LINEAGE_BROKEN',
  SEQUENCE_REPLAYED: 'SEQUENCE_REPLAYED',
  UNVERIFIED_TAMPER_RISK: 'UNVERIFIED_TAMPER_RISK',
  TRUNCATION_DETECTED: 'TRUNCATION_DETECTED',
} as const;
/** One of {@link VerificationVerdict}. */
export type VerificationVerdict = (typeof VerificationVerdict)[keyof typeof VerificationVerdict];
