import { ResealError } from '../errors';
import type { LineageStore } from '../ports/lineage-store';
import type { SealedRecord } from '../seal/sealed-record';
import { VerificationVerdict as V } from '../seal/verification-verdict';
import type { Checkpoint } from './checkpoint';
import { checkpointOrigin } from './checkpoint-origin';
import { type CheckpointFinding, readLatestCheckpoint, type StoredTreeHead } from './latest-checkpoint';
import type { NodeSource } from './node-ref';
import { nodeSourceOf } from './node-source';
import type { NoteVerifierKey } from './note-key';
import { proveRecord, type RecordProof, verifyRecordProof } from './record-proof';
import { type ConsistencyProof, checkConsistency, proveTreeConsistency } from './tree-consistency';

/** The reads a proof of the stored log makes (the `LineageStore` port, read side). */
export type StoredLogReads = Pick<LineageStore, 'logHead' | 'readNodes' | 'readRecord' | 'lastRecordSeq'>;

/** Why the stored log does not prove: a verdict (never `VERIFIED_INTACT`), a reason, the seq it is at, and the error behind it. */
export interface LogFinding extends CheckpointFinding {
  readonly kind: 'FINDING';
  /** The error a proof could not be built for (a tree node missing or unreadable), when that is the reason. */
  readonly cause?: ResealError;
}

/** What {@link proveLatestCheckpoint} found. */
export type LatestCheckpointProof =
  | {
      readonly kind: 'PROVEN';
      /** The head item's tree: signed, or claimed by a head the sealer MAC'd ({@link StoredTreeHead}). */
      readonly checkpoint: StoredTreeHead;
      /** The consistency proof from the trusted checkpoint, or `null` (none trusted). */
      readonly consistency: ConsistencyProof | null;
    }
  /** Neither a head nor records, and the caller saw none: the lineage does not exist. */
  | { readonly kind: 'NONE' }
  | LogFinding;

/** What {@link proveStoredRecord} found. */
export type StoredRecordProof =
  | { readonly kind: 'PROVEN'; readonly record: SealedRecord; readonly inclusion: RecordProof }
  /** The table holds no record at the seq (the caller words what that means to it). */
  | { readonly kind: 'MISSING' }
  | LogFinding;

/**
 * The composition that proves a stored lineage's log for triage (docs/verifiable-log.md, "Recall"):
 * the head item's tree (signed, or claimed by a MAC'd head), read and checked against the table
 * ({@link readLatestCheckpoint}), then shown to extend the caller's trusted checkpoint (RFC 9162 consistency proof built from the
 * table's nodes, which either verify against the signed roots or fail). Findings are return
 * values (shared/errors.ts: verdicts are never errors).
 *
 * @param trusted - a checkpoint the caller verified (kept, or sent with a recall), or `null`
 * @param options.trustedSaw - whether the caller holds a checkpoint of this lineage (an empty table is then a cut)
 * @param options.checkTail - whether records ending before the checkpoint are a finding here
 *   (see {@link readLatestCheckpoint})
 * @returns the proven checkpoint; `NONE`; or the finding: a forged note, a rewound head, a
 *   rollback (`TRUNCATION_DETECTED`), a fork or a missing node (`LINEAGE_BROKEN`)
 * @throws what the store throws, and `SignerUnavailableError` when the key cannot be read
 */
export async function proveLatestCheckpoint(
  store: Pick<LineageStore, 'lastRecordSeq' | 'logHead' | 'readNodes'>,
  lineageId: string,
  key: NoteVerifierKey,
  trusted: Checkpoint | null,
  options: { readonly trustedSaw: boolean; readonly checkTail: boolean },
): Promise<LatestCheckpointProof> {
  const read = await readLatestCheckpoint(
    store,
    lineageId,
    key,
    checkpointOrigin(key.name, lineageId),
    options.trustedSaw,
    options.checkTail,
  );
  if (read.kind !== 'CHECKPOINT') return read;
  const { checkpoint } = read;
  if (!trusted) return { kind: 'PROVEN', checkpoint, consistency: null };
  // A rollback (trusted larger) has no proof to build: checkConsistency says TRUNCATION_DETECTED.
  const consistency =
    trusted.size > checkpoint.size
      ? null
      : await buildProof(trusted.size, () =>
          proveTreeConsistency(trusted.size, checkpoint.size, nodesOf(store, lineageId)),
        );
  if (consistency !== null && 'kind' in consistency) return consistency;
  const checked = checkConsistency(trusted, checkpoint, consistency);
  if (checked.verdict !== V.VERIFIED_INTACT) {
    return { kind: 'FINDING', verdict: checked.verdict, reason: checked.reason, seq: null };
  }
  return { kind: 'PROVEN', checkpoint, consistency };
}

/**
 * Record `seq` read from the table and proven by inclusion in `checkpoint` (one the caller
 * verified, with `seq` below its size): its own hashes, its lineage, its leaf.
 *
 * @returns the proven record; `MISSING`; or the finding at `seq` (the proof cannot be built, or
 *   does not verify)
 * @throws what the store throws
 */
export async function proveStoredRecord(
  store: Pick<LineageStore, 'readNodes' | 'readRecord'>,
  lineageId: string,
  seq: number,
  checkpoint: Checkpoint,
): Promise<StoredRecordProof> {
  const raw = await store.readRecord(lineageId, seq);
  if (raw === null) return { kind: 'MISSING' };
  const inclusion = await buildProof(seq, () => proveRecord(seq, checkpoint.size, nodesOf(store, lineageId)));
  if ('kind' in inclusion) return inclusion;
  const proven = verifyRecordProof(raw, inclusion, checkpoint, lineageId);
  if (proven.verdict !== V.VERIFIED_INTACT)
    return { kind: 'FINDING', verdict: proven.verdict, reason: proven.reason, seq };
  return { kind: 'PROVEN', record: proven.record, inclusion };
}

/**
 * A consistency proof from `from` to `to` (both verified checkpoints of `lineageId`, `from` no
 * larger), built from the table's nodes: the proof is checked by the caller, so a node the table
 * forged only makes it fail.
 *
 * @returns the proof, or a `LINEAGE_BROKEN` finding when it cannot be built (a node missing or unreadable)
 * @throws what the store throws
 */
export async function proveCheckpointConsistency(
  store: Pick<LineageStore, 'readNodes'>,
  lineageId: string,
  from: Checkpoint,
  to: Checkpoint,
): Promise<ConsistencyProof | LogFinding> {
  return buildProof(null, () => proveTreeConsistency(from.size, to.size, nodesOf(store, lineageId)));
}

function nodesOf(store: Pick<LineageStore, 'readNodes'>, lineageId: string): NodeSource {
  return nodeSourceOf((refs) => store.readNodes(lineageId, refs));
}

/** Builds a proof; one that cannot be built (a tree node missing or unreadable) is a broken lineage. */
async function buildProof<T extends object>(seq: number | null, build: () => Promise<T>): Promise<T | LogFinding> {
  try {
    return await build();
  } catch (error) {
    if (!(error instanceof ResealError)) throw error;
    return {
      kind: 'FINDING',
      verdict: V.LINEAGE_BROKEN,
      reason: `cannot build the proof: ${error.message}`,
      seq,
      cause: error,
    };
  }
}
