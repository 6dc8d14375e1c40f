import { LogStateError } from '../errors';
import type { LineageStore } from '../ports/lineage-store';
import type { ChainVerification } from '../seal/chain-verification';
import { type PagedVerificationOptions, verifyLineagePages } from '../seal/paged-verification';
import { VerificationVerdict } from '../seal/verification-verdict';
import { checkpointOrigin } from './log-names';
import { authenticateLogState } from './log-state';
import type { NoteVerifierKey } from './note-key';
import type { VerifiedCheckpoint } from './signed-checkpoint';
import { proveStoredRecord } from './stored-log';

/**
 * The signed log as a reader sees it: the log key, and the latest checkpoint proven
 * (`proveLatestCheckpoint`, shared/log/stored-log.ts) against the checkpoint the reader keeps,
 * which it then keeps. The client's `LogReader` is one.
 */
export interface SignedLogView {
  /** The log's verifier key. */
  key(): Promise<NoteVerifierKey>;
  /**
   * The latest signed checkpoint, proven and then kept; `truncationChecked` says whether a kept
   * checkpoint was there to check it against. `NONE`: no signed checkpoint to compare.
   * `FINDING`: the log does not prove (a rollback, a fork, a note that does not verify).
   */
  latestKept(
    lineageId: string,
  ): Promise<
    | { readonly kind: 'PROVEN'; readonly checkpoint: VerifiedCheckpoint; readonly truncationChecked: boolean }
    | { readonly kind: 'NONE' }
    | { readonly kind: 'FINDING'; readonly verdict: VerificationVerdict; readonly reason: string }
  >;
}

/** The table reads a walk tied to the log makes. */
export type StoredLineageReads = Pick<
  LineageStore,
  'head' | 'lastRecordSeq' | 'readChain' | 'logHead' | 'readNodes' | 'readRecord'
>;

/** What {@link checkWalkAgainstLog} found: the verification, and what the log showed (`null`: nothing to compare). */
export interface WalkAgainstLog {
  readonly verification: ChainVerification;
  /** The signed checkpoint the walk was tied to: its size and root, and whether it was checked against a kept one. */
  readonly log: { readonly size: number; readonly rootHash: Uint8Array; readonly truncationChecked: boolean } | null;
}

/**
 * Verifies a stored lineage (docs/verifiable-log.md; `reseal verify --lineage`): the one
 * composition of the whole-lineage walk ({@link verifyLineagePages}: every hash, link and MAC,
 * the stored head as a claim) tied to the signed log ({@link checkWalkAgainstLog}).
 *
 * @throws {LineageNotFoundError} when the lineage has neither records nor a head and no checkpoint is given
 */
export async function verifyStoredLineage(
  store: StoredLineageReads,
  log: SignedLogView,
  options: PagedVerificationOptions,
): Promise<WalkAgainstLog> {
  return checkWalkAgainstLog(log, store, options.lineageId, await verifyLineagePages(store, options));
}

/**
 * Ties a walked lineage to the signed log: the latest checkpoint verified and consistent with
 * the kept one (then kept), covering exactly the walked records, with the walk's last record
 * proven as its last leaf. Since every record hash commits to its parent, that binds the whole
 * walked chain to the signed tree. An intact walk over a log that does not verify, or that covers
 * more or fewer records, is not intact; nor is one whose head item's log state does not
 * authenticate (the sealer would refuse every write until it is repaired).
 *
 * @returns the verification (its verdict and first failure updated when the log disagrees) and
 *   what the log showed, or `log: null` for a lineage without a signed checkpoint to compare
 */
export async function checkWalkAgainstLog(
  log: SignedLogView,
  store: Pick<LineageStore, 'logHead' | 'readNodes' | 'readRecord'>,
  lineageId: string,
  verification: ChainVerification,
): Promise<WalkAgainstLog> {
  if (verification.verdict !== VerificationVerdict.VERIFIED_INTACT) return { verification, log: null };
  const failed = (verdict: VerificationVerdict, reason: string, seq: number | null = null) => ({
    verification: { ...verification, verdict, firstFailure: { seq, verdict, reason: `log: ${reason}` } },
    log: null,
  });
  const latest = await log.latestKept(lineageId);
  if (latest.kind === 'FINDING') return failed(latest.verdict, latest.reason);
  if (latest.kind === 'NONE') return { verification, log: null };
  const head = verification.head;
  const size = latest.checkpoint.size;
  if (!head || head.seq + 1 !== size) {
    return failed(
      VerificationVerdict.LINEAGE_BROKEN,
      `the walk ends ${head ? `at seq ${head.seq}` : 'before seq 0'} but the signed checkpoint covers ${size} records`,
    );
  }
  const proven = await proveStoredRecord(store, lineageId, head.seq, latest.checkpoint);
  if (proven.kind === 'MISSING') {
    return failed(VerificationVerdict.LINEAGE_BROKEN, `record ${head.seq} is missing`, head.seq);
  }
  if (proven.kind === 'FINDING') return failed(proven.verdict, proven.reason, head.seq);
  if (proven.record.recordHash !== head.recordHash) {
    return failed(VerificationVerdict.HASH_MISMATCH, `seq ${head.seq} is not the signed tree's last leaf`, head.seq);
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
  return {
    verification,
    log: { size, rootHash: latest.checkpoint.rootHash, truncationChecked: latest.truncationChecked },
  };
}
