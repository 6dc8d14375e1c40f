import type { AnchorSignature, MacAnchor } from '../ports/mac-anchor';
import { VerificationVerdict } from '../seal/verification-verdict';
import type { PagedVerificationOptions } from '../seal/verify-lineage-pages';
import { verifyLineagePages } from '../seal/verify-lineage-pages';
import { hashesEqual } from './hashes-equal';
import type { LineageLogView } from './lineage-log-view';
import { recordingReads } from './recording-reads';
import type { StoredLineageReads } from './stored-lineage';
import { checkWalkAgainstLog, type WalkAgainstLog } from './walk-against-log';
import { planWalk } from './walk-plan';
import { walkedTreeFor } from './walked-records';

/** Options of {@link verifyLineageBySignedTree}: the walk's, with the MAC key id records must name instead of an anchor. */
export interface SignedTreeWalkOptions extends Omit<PagedVerificationOptions, 'anchor'> {
  /** The stack's MAC key id (pinned by the verifier): each record must name it, as in the MAC walk. */
  readonly macKeyId: string;
}

/**
 * Verifies a stored lineage by the signed tree instead of one KMS `VerifyMac` per record
 * (docs/verifiable-log.md, "Verifying a whole lineage"; `reseal verify --lineage`, the default):
 *
 * 1. the whole-lineage walk ({@link verifyLineagePages}) with every key-free check (hashes,
 *    links, seq, epochs, the stored head, `--checkpoint`) but no MAC call;
 * 2. tied to the log ({@link checkWalkAgainstLog}): the head item's signed lineage checkpoint
 *    (heads stored while the sealer signed), verified with the log key and consistent with the
 *    kept one, covering exactly the walked records with the walk's last record as its last leaf;
 *    or, for a head item without one, the tree head the index holds under the authenticated
 *    deployment checkpoint (read before the walk);
 * 3. every walked record of that tree proven by inclusion at once: the RFC 9162 root of their
 *    record hashes, in seq order, must be its root, so each record is the leaf the sealer signed
 *    (or the index committed to) at its seq. Records past the indexed tree head are sealed,
 *    awaiting integration: not intact, not tampering.
 *
 * A table writer who cannot sign can change no record without (1) or (3) failing. A lineage
 * with neither a signed checkpoint nor a tree head the index vouches for cannot be authenticated
 * this way: `UNVERIFIED_TAMPER_RISK` (the MAC walk, `verifyStoredLineage`, still checks MACs).
 *
 * @throws {LineageNotFoundError} when the lineage has neither records nor a head and no checkpoint is given
 */
export async function verifyLineageBySignedTree(
  store: StoredLineageReads,
  log: LineageLogView,
  options: SignedTreeWalkOptions,
): Promise<WalkAgainstLog> {
  const { macKeyId, ...walkOptions } = options;
  const plan = await planWalk(log, store, options.lineageId);
  const tree = walkedTreeFor(plan);
  const walked = await checkWalkAgainstLog(
    log,
    store,
    options.lineageId,
    await verifyLineagePages(recordingReads(store, tree), { ...walkOptions, anchor: unmacedAnchor(macKeyId) }),
    { plan, tree },
  );
  // Tied to the index, the check above is step 3: the walked prefix's root is the indexed root, and
  // the records past it await integration (already not intact). Only a walk that proved that prefix keeps it.
  if (walked.log?.vouchedBy === 'index') return walked;
  const { verification } = walked;
  if (verification.verdict !== VerificationVerdict.VERIFIED_INTACT) return unauthenticated(walked);
  const failed = (verdict: VerificationVerdict, reason: string): WalkAgainstLog =>
    unauthenticated({
      verification: { ...verification, verdict, firstFailure: { seq: null, verdict, reason: `log: ${reason}` } },
      log: null,
      indexed: null,
    });
  if (walked.log === null) {
    return failed(
      VerificationVerdict.UNVERIFIED_TAMPER_RISK,
      'the lineage has no signed checkpoint to authenticate its records by; audit their MACs instead',
    );
  }
  const root = tree.prefix(walked.log.size)?.rootHash ?? null;
  if (root === null || !hashesEqual(root, walked.log.rootHash)) {
    return failed(
      VerificationVerdict.HASH_MISMATCH,
      `the walked records are not the leaves of the signed checkpoint (size ${walked.log.size}): its root differs`,
    );
  }
  return walked;
}

/**
 * A failed signed-tree walk with no record called intact and no verified head. Its key-free walk
 * called records `VERIFIED_INTACT` without any MAC: only the signed tree (step 3) authenticates
 * them, so when that step failed or was never reached, no record may keep that verdict (a record
 * the table writer forged would pass as intact), and the head is `null`.
 */
function unauthenticated(walked: WalkAgainstLog): WalkAgainstLog {
  const { verification } = walked;
  const reason = `not authenticated: the signed tree did not prove the lineage (${verification.firstFailure?.reason ?? verification.verdict})`;
  return {
    ...walked,
    verification: {
      ...verification,
      // Demoted records lose their writer too: it is said only of a record that verifies.
      records: verification.records.map(({ writtenBy: _writer, ...record }) =>
        record.verdict === VerificationVerdict.VERIFIED_INTACT
          ? { ...record, verdict: VerificationVerdict.UNVERIFIED_TAMPER_RISK, reason }
          : record,
      ),
      head: null,
    },
  };
}

/**
 * The walk's MAC phase, made a no-op: only for {@link verifyLineageBySignedTree}, which
 * authenticates every record by the signed tree instead and fails the walk when that does not hold.
 */
function unmacedAnchor(keyId: string): MacAnchor {
  return {
    keyId,
    generateMac: async () => {
      throw new Error('the signed-tree walk never seals');
    },
    verifyMac: async (_message: Uint8Array, _anchor: AnchorSignature) => true,
  };
}
