/**
 * Outcome of verifying a sealed record or a chain of them (seed 003, the sample's
 * `VerificationVerdict`, extended by "Decision Boundary" 3 and the checkpoint rule of docs/sealing.md).
 *
 * - `VERIFIED_INTACT`: every check passed.
 * - `HASH_MISMATCH`: content does not match what was sealed: a recomputed payload, manifest or
 *   record hash differs, the record is malformed, or the anchor MAC is wrong (tampered or
 *   forged; "What Was Observed" 1, Hash-With-Payload Forgery).
 * - `LINEAGE_BROKEN`: the record does not follow its predecessor: wrong parent hash, missing
 *   records (a gap), another lineage, or a fork/rewrite against a trusted checkpoint.
 * - `SEQUENCE_REPLAYED`: a sequence number repeated or went back (replay, reordering, concurrent
 *   overwrite, "What Was Observed" 3), a residual id sealed twice, or a generation epoch that
 *   went back (a fenced-out writer).
 * - `UNVERIFIED_TAMPER_RISK`: the anchor could not be checked (key disabled, missing,
 *   unreachable, another key, unknown format version), so the record is not trusted: fail
 *   closed ("Decision Boundary" 3). Also given to records after the first failure.
 * - `TRUNCATION_DETECTED`: the chain ends before a trusted checkpoint's seq
 *   ("What Was Observed" 2, Log Truncation / Rollback).
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
