import { hash } from 'node:crypto';
import type { LineageIndexValue } from '../shared/index/index-entry';

/**
 * A bench lineage head of `treeSize` records whose hashes derive from `lineage` (a lineage number
 * or id): the index benches build their maps from it so their heads hash alike.
 */
export const benchLineageValue = (treeSize: number, lineage: number | string): LineageIndexValue => ({
  treeSize,
  rootHash: hash('sha256', `root/${lineage}/${treeSize}`, 'hex'),
  headRecordHash: hash('sha256', `record/${lineage}/${treeSize - 1}`, 'hex'),
  generationEpoch: 1,
  writerPolicyDigest: null,
});
