import { applyIndexUpdates } from '../../shared/index/apply-index-updates';
import type { IndexEntry } from '../../shared/index/index-entry';
import { emptyIndexHash } from '../../shared/index/index-hash';
import { MemoryIndexNodeStore } from '../../shared/index/memory-index-node-store';
import { updatesFor } from './index-factories';

/**
 * An in-memory index holding `entries` (lineages as new), built in one update from the empty
 * index with tiles of `tileLevels` levels (the store's default when omitted): its store, root and
 * the update's result (docs/verifiable-index.md).
 */
export async function builtIndex(entries: readonly IndexEntry[], tileLevels?: number) {
  const store = new MemoryIndexNodeStore(tileLevels === undefined ? {} : { tileLevels });
  const result = await applyIndexUpdates(store, emptyIndexHash(), updatesFor(entries));
  return { store, root: result.root, result };
}
