import { describeError } from '../describe-error';
import type { MacAnchor } from '../ports/mac-anchor';
import type { SealedRecord } from './sealed-record';
import { VerificationVerdict as V, type VerificationVerdict } from './verification-verdict';
import { verifyRecordMac } from './verify-record-mac';

/** A finding on one record of a walk: its position, seq (when readable), verdict and why. */
export interface Failure {
  readonly index: number;
  readonly seq: number | null;
  readonly verdict: VerificationVerdict;
  readonly reason: string;
}

/** A record that passed the key-free checks, with its header bytes, waiting for its MAC check. */
export interface Candidate {
  readonly index: number;
  readonly record: SealedRecord;
  /** `headerBytes(record.header)`; a batch-MAC'd record's MAC message is made from its place (verify-record-mac.ts). */
  readonly message: Uint8Array;
}

/** A finding that proves tampering (anything but `UNVERIFIED_TAMPER_RISK`, which only means "could not check"). */
export const isDefiniteFailure = (failure: Failure): boolean => failure.verdict !== V.UNVERIFIED_TAMPER_RISK;

/**
 * Checks the MACs of `candidates` (handed out in input order, `concurrency` at once) and returns
 * their failures sorted by index: every failure below the earliest definite one (a MAC that is
 * wrong, `HASH_MISMATCH`), and that one. Candidates after a known definite failure may be skipped,
 * so the result does not depend on `concurrency` or on the order the answers arrive in.
 */
export async function macFailures(
  candidates: readonly Candidate[],
  anchor: MacAnchor,
  concurrency: number,
): Promise<Failure[]> {
  let next = 0;
  let firstDefinite = Number.POSITIVE_INFINITY;
  const failures: Failure[] = [];
  const worker = async (): Promise<void> => {
    while (next < candidates.length) {
      const candidate = candidates[next++] as Candidate;
      // firstDefinite only decreases: a candidate skipped here lies after the final one too.
      if (candidate.index > firstDefinite) return;
      const failure = await checkMac(candidate, anchor);
      if (!failure) continue;
      failures.push(failure);
      if (isDefiniteFailure(failure)) firstDefinite = Math.min(firstDefinite, failure.index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, candidates.length) }, worker));
  return failures.filter((f) => f.index <= firstDefinite).sort((a, b) => a.index - b.index);
}

async function checkMac({ index, record, message }: Candidate, anchor: MacAnchor): Promise<Failure | null> {
  const seq = record.header.monotonicSequenceNumber;
  let valid: unknown;
  try {
    valid = await verifyRecordMac(anchor, record, message);
  } catch (error) {
    const why = describeError(error);
    return {
      index,
      seq,
      verdict: V.UNVERIFIED_TAMPER_RISK,
      reason: `anchor could not be verified (${why}); fail closed`,
    };
  }
  if (valid === true) return null;
  if (valid === false) return { index, seq, verdict: V.HASH_MISMATCH, reason: 'anchor invalid: tampered or forged' };
  return { index, seq, verdict: V.UNVERIFIED_TAMPER_RISK, reason: 'anchor gave no boolean answer; fail closed' };
}
