import type { HexDigest } from '../canonical/digest';
import { InvalidInputError } from '../errors';
import type { ChainTip } from '../seal/chain-tip';
import { RECORD_FORMAT_WRITER_BOUND } from '../seal/record-header';
import type { SealedRecord } from '../seal/sealed-record';
import { appendLeaf } from './append-leaf';
import type { Checkpoint } from './checkpoint';
import { frontierRoot } from './frontier-root';
import type { LogState } from './log-state';
import { leafHash } from './merkle-hash';

/** One record to store with the tree nodes it completes. */
export interface LogEntry {
  readonly record: SealedRecord;
  /**
   * Hashes (hex) of the perfect subtrees that end at this record's leaf, by level: `nodes[0]` is
   * its leaf hash, `nodes[k]` the subtree of 2^k leaves ending here. Node (level L, index j)
   * is therefore stored with record `(j + 1) · 2^L − 1` (docs/verifiable-log.md, "Stored nodes").
   */
  readonly nodes: readonly HexDigest[];
}

/** What appending records to a log produces: the items to write and the state to sign. */
export interface LogExtension {
  readonly entries: readonly LogEntry[];
  /** The new state, not yet signed (`checkpoint` is the old one until the caller signs). */
  readonly state: LogState;
  /** The checkpoint body to sign for the new state (origin supplied by the caller). */
  readonly checkpoint: Checkpoint;
  /** Compact range of the first `size − 1` leaves (hex): what the head item stores. */
  readonly storedFrontier: readonly HexDigest[];
}

/**
 * Appends sealed records to an authenticated log state (RFC 9162 §2.1 tree, leaf = the 32 bytes
 * of the record hash): computes each record's completed nodes, the new frontier, the new root and
 * the checkpoint to sign. Pure: nothing is stored or signed here.
 *
 * @param state - from `authenticateLogState` (or `emptyLogState`)
 * @param records - at least one, continuing `state.tip` in order (seq, parent hash)
 * @param origin - the checkpoint origin, `checkpointOrigin(logName, lineageId)`
 * @throws {InvalidInputError} when a record does not continue the state
 */
export function extendLog(state: LogState, records: readonly SealedRecord[], origin: string): LogExtension {
  if (records.length === 0) throw new InvalidInputError('log extension', [{ path: '', message: 'no records' }]);
  let frontier = state.frontier;
  let storedFrontier = frontier;
  let size = state.size;
  let tip: ChainTip | null = state.tip;
  let { policy, legacyTip } = state;
  const entries: LogEntry[] = [];
  for (const [i, record] of records.entries()) {
    const { header } = record;
    if (header.lineageId !== state.lineageId || header.monotonicSequenceNumber !== size) {
      throw new InvalidInputError('log extension', [
        {
          path: `${i}`,
          message: `expected seq ${size} of ${state.lineageId}, got seq ${header.monotonicSequenceNumber} of ${header.lineageId}`,
        },
      ]);
    }
    if (tip && header.parentRecordHash !== tip.recordHash) {
      throw new InvalidInputError('log extension', [{ path: `${i}`, message: `does not link to seq ${tip.seq}` }]);
    }
    storedFrontier = frontier;
    const appended = appendLeaf(frontier, size, leafHash(Buffer.from(record.recordHash, 'hex')));
    frontier = appended.frontier;
    const nodes = [...appended.completed]
      .sort((a, b) => a.level - b.level)
      .map((n) => Buffer.from(n.hash).toString('hex'));
    entries.push({ record, nodes });
    size += 1;
    tip = {
      lineageId: state.lineageId,
      seq: header.monotonicSequenceNumber,
      recordHash: record.recordHash,
      generationEpoch: header.generationEpoch,
      policyDigest: header.policyDigest ?? null,
    };
    if (record.policy) policy = record.policy;
    legacyTip = header.formatVersion !== RECORD_FORMAT_WRITER_BOUND;
    if (legacyTip) policy = null;
  }
  const rootHash = frontierRoot(frontier);
  return {
    entries,
    state: {
      lineageId: state.lineageId,
      size,
      frontier,
      rootHash,
      tip,
      checkpoint: state.checkpoint,
      policy,
      legacyTip,
    },
    checkpoint: { origin, size, rootHash },
    storedFrontier: storedFrontier.map((h) => Buffer.from(h).toString('hex')),
  };
}
