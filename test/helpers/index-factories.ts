import { createHash } from 'node:crypto';
import type { IndexEntry, LineageIndexValue, ResidualIndexValue } from '../../shared/index/index-entry';
import type { IndexUpdate } from '../../shared/index/index-update';

/** A hex digest that depends only on `label`. */
export const digestOf = (label: string): string => createHash('sha256').update(label).digest('hex');

/** Lowercase hex of bytes. */
export const hexOf = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

/** A lineage head of `treeSize` records whose hashes derive from `label` (distinct labels: distinct heads). */
export function lineageValue(treeSize: number, label = 'h', generationEpoch = 1): LineageIndexValue {
  return {
    treeSize,
    rootHash: digestOf(`root/${label}/${treeSize}`),
    headRecordHash: digestOf(`record/${label}/${treeSize - 1}`),
    generationEpoch,
    writerPolicyDigest: null,
  };
}

/** Where a residual id was sealed. */
export const residualValue = (seq: number, label = 'r'): ResidualIndexValue => ({
  seq,
  recordHash: digestOf(`record/${label}/${seq}`),
});

/** A lineage entry. */
export const lineageEntry = (lineageId: string, value: LineageIndexValue): IndexEntry => ({
  kind: 'lineage',
  lineageId,
  value,
});

/** A residual entry. */
export const residualEntry = (lineageId: string, residualId: string, value: ResidualIndexValue): IndexEntry => ({
  kind: 'residual',
  lineageId,
  residualId,
  value,
});

/**
 * The update that writes `entry`: a residual as is; a lineage checked from `from` (the head the
 * index holds, `null` for a new lineage).
 */
export function updateTo(entry: IndexEntry, from: LineageIndexValue | null = null): IndexUpdate {
  if (entry.kind === 'residual') return { ...entry };
  return { ...entry, consistentFrom: from === null ? null : { treeSize: from.treeSize, rootHash: from.rootHash } };
}

/** The updates that write `entries`, lineages as new. */
export const updatesFor = (entries: readonly IndexEntry[]): IndexUpdate[] => entries.map((e) => updateTo(e));
