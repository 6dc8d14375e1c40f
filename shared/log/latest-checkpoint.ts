import { HEX_DIGEST_PATTERN } from '../canonical/digest';
import { ResealError, SignerUnavailableError } from '../errors';
import type { LineageStore } from '../ports/lineage-store';
import { VerificationVerdict as V, type VerificationVerdict } from '../seal/verification-verdict';
import type { Checkpoint } from './checkpoint';
import { claimedLogState, type StoredLogHead } from './log-state';
import type { NoteVerifierKey } from './note-key';
import { popCount } from './pop-count';
import { openCheckpoint } from './verified-checkpoint';

/**
 * The tree a lineage's head item holds (docs/verifiable-log.md, "Recall"): with `note`, a signed
 * lineage checkpoint verified with the log key (heads stored while the sealer signs); with `note`
 * `null`, the tree the head item claims (its stored header and frontier, well-formed), which the
 * sealer vouched for with its head-state MAC alone: a reader holding no `kms:VerifyMac` proves
 * records in it, but a client acts on them only where the deployment index vouches for that tree
 * (`decideLineageTreeHead`, shared/integrator/lineage-tree-head.ts).
 */
export interface StoredTreeHead extends Checkpoint {
  /** The signed lineage checkpoint (C2SP signed note) of this tree, or `null`: a head the sealer MAC'd. */
  readonly note: string | null;
  /**
   * The inclusion path (hex, leaf side first) of the tree's last leaf, `size − 1`, as the head item
   * stores it: its frontier of the first `size − 1` leaves read right to left (docs/verifiable-log.md,
   * "Stored state"), so the latest record is proven without reading nodes. A claim of the table,
   * checked like a path built from nodes (`proveStoredRecord` reads the nodes when it does not hold);
   * absent when the head's frontier does not fit the tree.
   */
  readonly lastLeafPath?: readonly string[];
}

/** Why the table and its latest signed checkpoint do not agree. */
export interface CheckpointFinding {
  readonly verdict: Exclude<VerificationVerdict, typeof V.VERIFIED_INTACT>;
  readonly reason: string;
  /** The seq the finding is at, when there is one. */
  readonly seq: number | null;
}

/** What {@link readLatestCheckpoint} found. */
export type LatestCheckpointRead =
  | { readonly kind: 'CHECKPOINT'; readonly checkpoint: StoredTreeHead }
  /** No head item (records or none): the lineage does not exist as far as the head item shows. */
  | { readonly kind: 'NONE' }
  | ({ readonly kind: 'FINDING' } & CheckpointFinding);

/**
 * Reads the tree of a lineage's head item ({@link StoredTreeHead}: its signed checkpoint, else the
 * tree its header, or a small head's attributes, and frontier claim) and checks the table against
 * it (docs/verifiable-log.md, "Recall"): a note's signature by `key` and its origin
 * (`HASH_MISMATCH`); a head item that is not a well-formed state (`LINEAGE_BROKEN`); records ending
 * before it (`TRUNCATION_DETECTED`); a gone lineage, or records without a head item, that
 * `trustedSaw` (`TRUNCATION_DETECTED`). A head without a signed checkpoint is no finding: the
 * sealer MACs heads instead of signing them.
 *
 * Records stored past the head item's tree are no finding: the append puts its records first and
 * moves the head after (docs/sealing.md, "The append's layout"), so every append shows them between
 * its two writes; the tree is the head's, and a client vouches for it through the index. Records
 * without a head item (a first append in flight or crashed, or a deleted head) read as no lineage
 * (`NONE`) unless `trustedSaw`: triage reads no index, and the client, which does, takes a lineage
 * the index holds with no head item as tampering.
 *
 * The last record key is read before the head, and again after it when the records seem to end
 * early: a head moved after the first read never looks like a cut. Without `checkTail` it is read
 * only to word a missing head (one `Query` less for every client read of a head that stands). Triage and the client both read
 * the log through this, by `proveLatestCheckpoint` (shared/log/latest-checkpoint-proof.ts).
 *
 * @param trustedSaw - whether the caller holds a checkpoint of this lineage (an empty table is then a cut)
 * @param checkTail - whether records ending before the checkpoint are a finding here (triage); a
 *   reader that proves each record it reads finds a missing one when it reads it (the client)
 * @throws what the store throws, and {@link SignerUnavailableError} when the key cannot be read
 */
export async function readLatestCheckpoint(
  store: Pick<LineageStore, 'lastRecordSeq' | 'logHead'>,
  lineageId: string,
  key: NoteVerifierKey,
  origin: string,
  trustedSaw: boolean,
  checkTail = true,
): Promise<LatestCheckpointRead> {
  const finding = (verdict: CheckpointFinding['verdict'], reason: string, seq: number | null = null) =>
    ({ kind: 'FINDING', verdict, reason, seq }) as const;
  // Without the tail check the last record key only words a missing head: read then, not before.
  const lastRead = checkTail ? await store.lastRecordSeq(lineageId) : undefined;
  const stored = await store.logHead(lineageId);
  if (stored === null) {
    if (!trustedSaw) return { kind: 'NONE' };
    const lastStoredSeq = lastRead === undefined ? await store.lastRecordSeq(lineageId) : lastRead;
    return finding(
      V.TRUNCATION_DETECTED,
      lastStoredSeq === null
        ? 'truncated: the lineage is gone but a trusted checkpoint saw it'
        : `truncated: records up to seq ${lastStoredSeq} are stored without a head item, but a trusted checkpoint saw its head (head deleted)`,
    );
  }
  let checkpoint: StoredTreeHead;
  if (stored.checkpoint === null) {
    try {
      const claimed = claimedLogState(stored, lineageId);
      checkpoint = { origin, size: claimed.size, rootHash: claimed.rootHash, note: null };
    } catch (error) {
      if (!(error instanceof ResealError)) throw error;
      return finding(V.LINEAGE_BROKEN, `the head item is not a well-formed state: ${error.message}`);
    }
  } else {
    try {
      checkpoint = openCheckpoint(stored.checkpoint, key, origin);
    } catch (error) {
      if (!(error instanceof ResealError) || error instanceof SignerUnavailableError) throw error;
      return finding(V.HASH_MISMATCH, `the stored checkpoint does not verify: ${error.message}`);
    }
  }
  const path = lastLeafPathOf(stored, checkpoint.size);
  if (path) checkpoint = { ...checkpoint, lastLeafPath: path };
  if (!checkTail) return { kind: 'CHECKPOINT', checkpoint };
  const what = checkpoint.note === null ? 'the head item' : 'the signed checkpoint';
  const lastStoredSeq = lastRead ?? null;
  const last = (lastStoredSeq ?? -1) < checkpoint.size - 1 ? await store.lastRecordSeq(lineageId) : lastStoredSeq;
  if ((last ?? -1) < checkpoint.size - 1) {
    return finding(
      V.TRUNCATION_DETECTED,
      `truncated: the table ends ${last === null ? 'before seq 0' : `at seq ${last}`} but ${what} covers ${checkpoint.size} records`,
      (last ?? -1) + 1,
    );
  }
  return { kind: 'CHECKPOINT', checkpoint };
}

/** The last leaf's inclusion path from a head item's frontier (see {@link StoredTreeHead.lastLeafPath}), or `undefined` when it does not fit a tree of `size`. */
function lastLeafPathOf(stored: StoredLogHead, size: number): string[] | undefined {
  const frontier = stored.frontier;
  if (!Array.isArray(frontier) || stored.head.seq + 1 !== size || size < 1) return undefined;
  if (frontier.length !== popCount(size - 1) || !frontier.every((h) => HEX_DIGEST_PATTERN.test(h))) return undefined;
  return [...frontier].reverse();
}
