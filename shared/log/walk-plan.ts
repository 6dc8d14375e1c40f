import { ResealError } from '../errors';
import type { LineageStore } from '../ports/lineage-store';
import type { LineageLogView, WalkTreeHead } from './lineage-log-view';
import { claimedLogState } from './log-state';

/**
 * What a walk is tied to, decided before it reads a record (docs/verifiable-log.md, "Verifying a
 * whole lineage"): the head item's signed lineage checkpoint (heads stored while the sealer
 * signed), or else the tree head the index holds, read before the records so that a write
 * integrated during the walk is never taken for a rollback.
 */
export type WalkPlan =
  | { readonly by: 'signed-checkpoint' }
  | {
      readonly by: 'index';
      readonly treeHead: WalkTreeHead;
      readonly kept: Awaited<ReturnType<LineageLogView['kept']>>;
      /**
       * The head item's claim as read before the walk (its seq and record hash), or `null`: no
       * head item. What records stored past it are held against ({@link checkWalkAgainstLog}).
       */
      readonly storedHead: { readonly seq: number; readonly recordHash: string } | null;
      /**
       * Why the head item is not a well-formed state (`claimedLogState`: its header, frontier or
       * small-head attributes), or `null`: a finding of the walk (`LINEAGE_BROKEN`), as recall and
       * the sealer refuse that head.
       */
      readonly malformedHead: string | null;
    };

/**
 * Reads what a walk of `lineageId` is tied to ({@link WalkPlan}): a head item carrying a signed
 * lineage checkpoint (or neither a head item nor records) keeps the signed-checkpoint walk; a head
 * item without one, or records without a head item (a first append in flight or crashed, or a
 * deleted head: docs/sealing.md, "The append's layout"), take the lineage's tree head from the
 * index, and the kept checkpoint.
 *
 * @throws what the store or the view throw (an outage), never for a forged or hidden item
 */
export async function planWalk(
  log: LineageLogView,
  store: Pick<LineageStore, 'logHead' | 'lastRecordSeq'>,
  lineageId: string,
): Promise<WalkPlan> {
  const stored = await store.logHead(lineageId);
  if (stored !== null && stored.checkpoint !== null) return { by: 'signed-checkpoint' };
  if (stored === null && (await store.lastRecordSeq(lineageId)) === null) return { by: 'signed-checkpoint' };
  // Before the walk: a record sealed after the index is read is past its tree head, never behind it.
  return {
    by: 'index',
    treeHead: await log.treeHead(lineageId),
    kept: await log.kept(lineageId),
    storedHead: stored === null ? null : { seq: stored.head.seq, recordHash: stored.head.recordHash },
    malformedHead: stored === null ? null : malformedHeadOf(stored, lineageId),
  };
}

/** Why the head item (read once, by the plan) is not a well-formed state, or `null`. */
function malformedHeadOf(stored: NonNullable<Awaited<ReturnType<LineageStore['logHead']>>>, lineageId: string) {
  try {
    claimedLogState(stored, lineageId);
    return null;
  } catch (error) {
    if (!(error instanceof ResealError)) throw error;
    return `the head item is not a well-formed state: ${error.message}`;
  }
}
