import type { MacAnchor } from '../ports/mac-anchor';
import type { SealedRecord } from './sealed-record';
import { VerificationVerdict as V, type VerificationVerdict } from './verification-verdict';

/** The first failing record of a walk: its position, seq (when readable), verdict and why. */
export interface Failure {
  readonly index: number;
  readonly seq: number | null;
  readonly verdict: VerificationVerdict;
  readonly reason: string;
}

/** A record that passed the local checks, with its header bytes, waiting for its MAC check. */
export interface Candidate {
  readonly index: number;
  readonly record: SealedRecord;
  readonly message: Uint8Array;
}

/** Checks the MACs of `candidates` (in input order, `concurrency` at once); the first failure by index. */
export async function firstMacFailure(
  candidates: readonly Candidate[],
  anchor: MacAnchor,
  concurrency: number,
): Promise<Failure | null> {
  let next = 0;
  let first: Failure | null = null;
  const worker = async (): Promise<void> => {
    while (next < candidates.length) {
      const candidate = candidates[next++] as Candidate;
      // Indices are handed out in order: once a failure is known, later ones cannot matter.
      if (first && first.index < candidate.index) return;
      const failure = await checkMac(candidate, anchor);
      if (failure && (!first || failure.index < first.index)) first = failure;
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, candidates.length) }, worker));
  return first;
}

async function checkMac({ index, record, message }: Candidate, anchor: MacAnchor): Promise<Failure | null> {
  const seq = record.header.monotonicSequenceNumber;
  let valid: unknown;
  try {
    valid = await anchor.verifyMac(message, record.anchor);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
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
