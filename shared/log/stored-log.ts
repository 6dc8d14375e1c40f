import { ResealError } from '../errors';
import type { LineageStore } from '../ports/lineage-store';
import type { SealedRecord } from '../seal/sealed-record';
import { VerificationVerdict as V } from '../seal/verification-verdict';
import type { Checkpoint } from './checkpoint';
import { type KnownLogNodes, nodeKey } from './known-log-nodes';
import type { CheckpointFinding } from './latest-checkpoint';
import type { NodeSource } from './node-ref';
import { nodeSourceOf } from './node-source';
import { proveRecord, type RecordProof, verifyRecordProof } from './record-proof';

/** The reads a proof of the stored log makes (the `LineageStore` port, read side). */
export type StoredLogReads = Pick<LineageStore, 'logHead' | 'readNodes' | 'readRecord' | 'lastRecordSeq'>;

/** Why the stored log does not prove: a verdict (never `VERIFIED_INTACT`), a reason, the seq it is at, and the error behind it. */
export interface LogFinding extends CheckpointFinding {
  readonly kind: 'FINDING';
  /** The error a proof could not be built for (a tree node missing or unreadable), when that is the reason. */
  readonly cause?: ResealError;
  /**
   * Shown by signed checkpoints alone, no table item otherwise (a signed head smaller than the
   * trusted checkpoint): a finding the reader may state as proven, not as the table's reading.
   */
  readonly proven?: boolean;
}

/** What {@link proveStoredRecord} found. */
export type StoredRecordProof =
  | { readonly kind: 'PROVEN'; readonly record: SealedRecord; readonly inclusion: RecordProof }
  /** The table holds no record at the seq (the caller words what that means to it). */
  | { readonly kind: 'MISSING' }
  | LogFinding;

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
  checkpoint: Checkpoint & { readonly lastLeafPath?: readonly string[] },
): Promise<StoredRecordProof> {
  const raw = await store.readRecord(lineageId, seq);
  if (raw === null) return { kind: 'MISSING' };
  // The last leaf's path from the head item's frontier: no node read when it holds; else the nodes are.
  if (checkpoint.lastLeafPath && seq === checkpoint.size - 1) {
    const inclusion: RecordProof = {
      leafIndex: seq,
      treeSize: checkpoint.size,
      inclusionProof: [...checkpoint.lastLeafPath],
    };
    const proven = verifyRecordProof(raw, inclusion, checkpoint, lineageId);
    if (proven.verdict === V.VERIFIED_INTACT) return { kind: 'PROVEN', record: proven.record, inclusion };
  }
  const inclusion = await buildLogProof(seq, () => proveRecord(seq, checkpoint.size, storedLogNodes(store, lineageId)));
  if ('kind' in inclusion) return inclusion;
  const proven = verifyRecordProof(raw, inclusion, checkpoint, lineageId);
  if (proven.verdict !== V.VERIFIED_INTACT)
    return { kind: 'FINDING', verdict: proven.verdict, reason: proven.reason, seq };
  return { kind: 'PROVEN', record: proven.record, inclusion };
}

/**
 * The tree nodes of `lineageId` as the table stores them: a proof built from them is checked, never
 * trusted. Nodes in `known` (`knownLogNodes`: held from a proof already checked) are not read; the
 * table is read only for the rest, and not at all when none is left.
 */
export function storedLogNodes(
  store: Pick<LineageStore, 'readNodes'>,
  lineageId: string,
  known: KnownLogNodes = new Map(),
): NodeSource {
  return nodeSourceOf(async (refs) => {
    const missing = refs.filter((ref) => !known.has(nodeKey(ref)));
    const read = missing.length === 0 ? [] : await store.readNodes(lineageId, missing);
    let next = 0;
    return refs.map((ref) => known.get(nodeKey(ref)) ?? read[next++] ?? null);
  });
}

/** Builds a proof of the stored log; one that cannot be built (a tree node missing or unreadable) is a broken lineage. */
export async function buildLogProof<T extends object>(
  seq: number | null,
  build: () => Promise<T>,
): Promise<T | LogFinding> {
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
