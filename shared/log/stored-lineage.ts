import type { LineageStore } from '../ports/lineage-store';
import { type PagedVerificationOptions, verifyLineagePages } from '../seal/verify-lineage-pages';
import type { LineageLogView } from './lineage-log-view';
import { recordingReads } from './recording-reads';
import { checkWalkAgainstLog, type WalkAgainstLog } from './walk-against-log';
import { planWalk } from './walk-plan';
import { walkedTreeFor } from './walked-records';

/** The table reads a walk tied to the log makes. */
export type StoredLineageReads = Pick<
  LineageStore,
  'head' | 'lastRecordSeq' | 'readChain' | 'logHead' | 'readNodes' | 'readRecord'
>;

/**
 * Verifies a stored lineage (docs/verifiable-log.md, "Verifying a whole lineage"; `reseal verify
 * --lineage --audit-macs`): the one composition of the whole-lineage walk ({@link verifyLineagePages}:
 * every hash, link and MAC, the stored head as a claim) tied to the log ({@link checkWalkAgainstLog}).
 *
 * @throws {LineageNotFoundError} when the lineage has neither records nor a head and no checkpoint is given
 */
export async function verifyStoredLineage(
  store: StoredLineageReads,
  log: LineageLogView,
  options: PagedVerificationOptions,
): Promise<WalkAgainstLog> {
  const plan = await planWalk(log, store, options.lineageId);
  const tree = walkedTreeFor(plan);
  const verification = await verifyLineagePages(recordingReads(store, tree), options);
  return checkWalkAgainstLog(log, store, options.lineageId, verification, { plan, tree });
}
