import { ResealError, SignerUnavailableError } from '../errors';
import type { LineageStore } from '../ports/lineage-store';
import { VerificationVerdict as V, type VerificationVerdict } from '../seal/verification-verdict';
import type { NoteVerifierKey } from './note-key';
import { openCheckpoint, type VerifiedCheckpoint } from './signed-checkpoint';

/** Why the table and its latest signed checkpoint do not agree. */
export interface CheckpointFinding {
  readonly verdict: Exclude<VerificationVerdict, typeof V.VERIFIED_INTACT>;
  readonly reason: string;
  /** The seq the finding is at, when there is one. */
  readonly seq: number | null;
}

/** What {@link readLatestCheckpoint} found. */
export type LatestCheckpointRead =
  | { readonly kind: 'CHECKPOINT'; readonly checkpoint: VerifiedCheckpoint }
  /** Neither a head nor records: the lineage does not exist (as far as the table shows). */
  | { readonly kind: 'NONE' }
  | ({ readonly kind: 'FINDING' } & CheckpointFinding);

/**
 * Reads a lineage's latest signed checkpoint (the head item) and checks the table against it
 * (docs/verifiable-log.md, "Recall"): the note's signature by `key` and its origin; records stored
 * past it (`LINEAGE_BROKEN`: a rewound head, or records planted past it); records without a head
 * (`LINEAGE_BROKEN`); records ending before it (`TRUNCATION_DETECTED`); a head with no checkpoint
 * (`UNVERIFIED_TAMPER_RISK`); a gone lineage that `trustedSaw` (`TRUNCATION_DETECTED`).
 *
 * The last record key is read before the head, and again after it when the records seem to end
 * early: an append moves records and head together, so a concurrent append never looks like
 * tampering. Triage and the client both read the log through this, by `proveLatestCheckpoint`
 * (shared/log/stored-log.ts).
 *
 * @param trustedSaw - whether the caller holds a checkpoint of this lineage (an empty table is then a cut)
 * @param checkTail - whether records ending before the checkpoint are a finding here (triage); a
 *   reader that proves each record it reads finds a missing one when it reads it (the client)
 * @throws what the store throws, and {@link SignerUnavailableError} when the key cannot be read
 */
export async function readLatestCheckpoint(
  store: Pick<LineageStore, 'lastRecordSeq' | 'logHead'>,
  lineageId: string,
  key: NoteVerifierKey,
  origin: string,
  trustedSaw: boolean,
  checkTail = true,
): Promise<LatestCheckpointRead> {
  const finding = (verdict: CheckpointFinding['verdict'], reason: string, seq: number | null = null) =>
    ({ kind: 'FINDING', verdict, reason, seq }) as const;
  const lastStoredSeq = await store.lastRecordSeq(lineageId);
  const stored = await store.logHead(lineageId);
  if (stored === null) {
    if (lastStoredSeq !== null) {
      return finding(V.LINEAGE_BROKEN, `records up to seq ${lastStoredSeq} are stored without a head`);
    }
    return trustedSaw
      ? finding(V.TRUNCATION_DETECTED, 'truncated: the lineage is gone but a trusted checkpoint saw it')
      : { kind: 'NONE' };
  }
  if (stored.checkpoint === null) return finding(V.UNVERIFIED_TAMPER_RISK, 'the head carries no signed checkpoint');
  let checkpoint: VerifiedCheckpoint;
  try {
    checkpoint = openCheckpoint(stored.checkpoint, key, origin);
  } catch (error) {
    if (!(error instanceof ResealError) || error instanceof SignerUnavailableError) throw error;
    return finding(V.HASH_MISMATCH, `the stored checkpoint does not verify: ${error.message}`);
  }
  if (lastStoredSeq !== null && lastStoredSeq >= checkpoint.size) {
    return finding(
      V.LINEAGE_BROKEN,
      `records are stored up to seq ${lastStoredSeq}, past the signed checkpoint (${checkpoint.size} records): the head is behind the records (rewound, or records planted past it)`,
      lastStoredSeq,
    );
  }
  if (!checkTail) return { kind: 'CHECKPOINT', checkpoint };
  const last = (lastStoredSeq ?? -1) < checkpoint.size - 1 ? await store.lastRecordSeq(lineageId) : lastStoredSeq;
  if ((last ?? -1) < checkpoint.size - 1) {
    return finding(
      V.TRUNCATION_DETECTED,
      `truncated: the table ends ${last === null ? 'before seq 0' : `at seq ${last}`} but the signed checkpoint covers ${checkpoint.size} records`,
      (last ?? -1) + 1,
    );
  }
  return { kind: 'CHECKPOINT', checkpoint };
}
