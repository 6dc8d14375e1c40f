import type { AnchorSignature, MacAnchor } from '../ports/mac-anchor';
import type { PagedVerificationOptions } from '../seal/paged-verification';
import { verifyLineagePages } from '../seal/paged-verification';
import { VerificationVerdict } from '../seal/verification-verdict';
import { appendLeaf, frontierRoot } from './compact-range';
import { hashesEqual, leafHash } from './merkle-hashing';
import {
  checkWalkAgainstLog,
  type SignedLogView,
  type StoredLineageReads,
  type WalkAgainstLog,
} from './stored-lineage';

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
 * 2. tied to the signed log ({@link checkWalkAgainstLog}): the newest signed checkpoint, verified
 *    with the log key and consistent with the kept one, covers exactly the walked records, and
 *    its last leaf is the walk's last record;
 * 3. every walked record proven by inclusion at once: the RFC 9162 root of their record hashes,
 *    in seq order, must be the signed checkpoint's root, so each record is the leaf the sealer
 *    signed at its seq.
 *
 * A table writer who cannot sign can change no record without (1) or (3) failing. A lineage
 * without a signed checkpoint cannot be authenticated this way: `UNVERIFIED_TAMPER_RISK` (the
 * MAC walk, `verifyStoredLineage`, still can).
 *
 * @throws {LineageNotFoundError} when the lineage has neither records nor a head and no checkpoint is given
 */
export async function verifyLineageBySignedTree(
  store: StoredLineageReads,
  log: SignedLogView,
  options: SignedTreeWalkOptions,
): Promise<WalkAgainstLog> {
  const { macKeyId, ...walkOptions } = options;
  const leaves = new WalkedLeaves();
  const reads = {
    head: (lineageId: string) => store.head(lineageId),
    lastRecordSeq: (lineageId: string) => store.lastRecordSeq(lineageId),
    readChain: async (lineageId: string, fromSeq: number, toSeq: number) => {
      const page = await store.readChain(lineageId, fromSeq, toSeq);
      leaves.add(page);
      return page;
    },
  };
  const walked = await checkWalkAgainstLog(
    log,
    store,
    options.lineageId,
    await verifyLineagePages(reads, { ...walkOptions, anchor: unmacedAnchor(macKeyId) }),
  );
  const { verification } = walked;
  if (verification.verdict !== VerificationVerdict.VERIFIED_INTACT) return unauthenticated(walked);
  const failed = (verdict: VerificationVerdict, reason: string): WalkAgainstLog =>
    unauthenticated({
      verification: { ...verification, verdict, firstFailure: { seq: null, verdict, reason: `log: ${reason}` } },
      log: null,
    });
  if (walked.log === null) {
    return failed(
      VerificationVerdict.UNVERIFIED_TAMPER_RISK,
      'the lineage has no signed checkpoint to authenticate its records by; audit their MACs instead',
    );
  }
  const root = leaves.root(walked.log.size);
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

/** The record hashes of the pages a walk read, folded into a Merkle frontier as they come. */
class WalkedLeaves {
  #frontier: Uint8Array[] = [];
  #size = 0;
  #malformed = false;

  add(page: readonly unknown[]): void {
    for (const raw of page) {
      const hex = (raw as { recordHash?: unknown } | null)?.recordHash;
      if (typeof hex !== 'string' || !/^[0-9a-f]{64}$/.test(hex)) {
        this.#malformed = true;
        continue;
      }
      this.#frontier = appendLeaf(this.#frontier, this.#size, leafHash(Buffer.from(hex, 'hex'))).frontier;
      this.#size += 1;
    }
  }

  /** The root over the leaves read, or `null` when they are not exactly `size` well-formed record hashes. */
  root(size: number): Uint8Array | null {
    return this.#malformed || this.#size !== size ? null : frontierRoot(this.#frontier);
  }
}
