import { logHeadOf } from '../../adapters/head-item';
import { smallHeadItem } from '../../adapters/small-head-item';
import { type HeadState, macHeadState } from '../../shared/log/head-state-mac';
import { claimedLogState, headStateOf, type StoredLogHead } from '../../shared/log/log-state';
import type { MacAnchor } from '../../shared/ports/mac-anchor';
import type { InMemoryLineageStore } from './in-memory-lineage-store';
import { testAnchor } from './seal-factories';

/**
 * `stored` (a head item of the layout before, with its tip `header`) as the small head item of the
 * same state stores it (docs/sealing.md, "The append's layout"): encoded by `smallHeadItem`, MAC'd
 * by `anchor`, and read back through the codec (`logHeadOf`), as every reader gets it from DynamoDB.
 */
export async function smallHeadOf(stored: StoredLogHead, anchor: MacAnchor = testAnchor()): Promise<StoredLogHead> {
  const lineageId = stored.head.lineageId;
  const state = claimedLogState(stored, lineageId);
  if (state.tip === null) throw new Error('smallHeadOf: no tip');
  const headMac = await macHeadState(headStateOf(state) as HeadState, anchor);
  const item = smallHeadItem({
    lineageId,
    tip: state.tip,
    headMac,
    frontier: stored.frontier ?? [],
    policy: state.policy,
  });
  return logHeadOf(lineageId, item) as StoredLogHead;
}

/** Replaces a lineage's head item in `store` by the small head of the same state ({@link smallHeadOf}). */
export async function shrinkHead(
  store: InMemoryLineageStore,
  lineageId: string,
  anchor: MacAnchor = testAnchor(),
): Promise<StoredLogHead> {
  const stored = store.headSnapshot(lineageId);
  if (stored === null) throw new Error(`shrinkHead: ${lineageId} has no head item`);
  const small = await smallHeadOf(stored, anchor);
  store.restoreHead(lineageId, small);
  return small;
}
