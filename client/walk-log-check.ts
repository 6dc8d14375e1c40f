import { LogStateError } from '../shared/errors';
import { checkpointOrigin } from '../shared/log/log-names';
import { authenticateLogState } from '../shared/log/log-state';
import type { LineageStore } from '../shared/ports/lineage-store';
import type { ChainVerification } from '../shared/seal/chain-verification';
import { VerificationVerdict } from '../shared/seal/verification-verdict';
import { LogVerificationError } from './errors';
import type { LatestCheckpoint, LogReader } from './log-reader';

/** What {@link checkWalkAgainstLog} found: the verification, and what the log showed (`null`: nothing to compare). */
export interface WalkAgainstLog {
  readonly verification: ChainVerification;
  readonly log: { readonly size: number; readonly truncationChecked: boolean } | null;
}

/**
 * Ties a walked lineage (`verifyLineage`) to the signed log: the latest checkpoint verified and
 * consistent with the kept one (then kept), covering exactly the walked records, with the walk's
 * last record proven as its last leaf. Since every record hash commits to its parent, that binds
 * the whole walked chain to the signed tree. An intact walk over a log that does not verify, or
 * that covers more or fewer records, is not intact.
 *
 * @returns the verification (its verdict and first failure updated when the log disagrees) and
 *   what the log showed, or `log: null` for a lineage without a signed checkpoint to compare
 */
export async function checkWalkAgainstLog(
  log: LogReader,
  store: Pick<LineageStore, 'logHead'>,
  lineageId: string,
  verification: ChainVerification,
): Promise<WalkAgainstLog> {
  if (verification.verdict !== VerificationVerdict.VERIFIED_INTACT) return { verification, log: null };
  const failed = (verdict: VerificationVerdict, reason: string, seq: number | null = null) => ({
    verification: { ...verification, verdict, firstFailure: { seq, verdict, reason: `log: ${reason}` } },
    log: null,
  });
  let latest: LatestCheckpoint | null;
  try {
    latest = await log.latestKept(lineageId);
  } catch (error) {
    if (error instanceof LogVerificationError) return failed(error.verdict, error.reason);
    throw error;
  }
  if (latest === null) return { verification, log: null };
  const head = verification.head;
  const size = latest.checkpoint.size;
  if (!head || head.seq + 1 !== size) {
    return failed(
      VerificationVerdict.LINEAGE_BROKEN,
      `the walk ends ${head ? `at seq ${head.seq}` : 'before seq 0'} but the signed checkpoint covers ${size} records`,
    );
  }
  try {
    const proven = await log.proveIn(lineageId, head.seq, latest);
    if (proven.record.recordHash !== head.recordHash) {
      return failed(VerificationVerdict.HASH_MISMATCH, `seq ${head.seq} is not the signed tree's last leaf`, head.seq);
    }
  } catch (error) {
    if (error instanceof LogVerificationError) return failed(error.verdict, error.reason, head.seq);
    throw error;
  }
  // The head item's log state (frontier, header) as the sealer will authenticate it before the
  // next append: a state that does not authenticate refuses every write until it is repaired.
  try {
    const key = await log.key();
    authenticateLogState(await store.logHead(lineageId), {
      lineageId,
      origin: checkpointOrigin(key.name, lineageId),
      key,
    });
  } catch (error) {
    if (error instanceof LogStateError) return failed(VerificationVerdict.LINEAGE_BROKEN, error.message, head.seq);
    throw error;
  }
  return { verification, log: { size, truncationChecked: latest.trusted !== null } };
}
