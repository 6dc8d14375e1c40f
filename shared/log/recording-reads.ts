import type { LineageStore } from '../ports/lineage-store';
import type { WalkedTree } from './walked-tree';

/** The walk's table reads, each page of records also folded into `tree`. */
export function recordingReads(
  store: Pick<LineageStore, 'head' | 'lastRecordSeq' | 'readChain'>,
  tree: WalkedTree,
): Pick<LineageStore, 'head' | 'lastRecordSeq' | 'readChain'> {
  return {
    head: (lineageId) => store.head(lineageId),
    lastRecordSeq: (lineageId) => store.lastRecordSeq(lineageId),
    readChain: async (lineageId, fromSeq, toSeq) => {
      const page = await store.readChain(lineageId, fromSeq, toSeq);
      tree.add(page);
      return page;
    },
  };
}
