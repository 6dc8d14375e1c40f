import { type LineagePolicy, LineagePolicySchema, policyDigest } from '../authorship/lineage-policy';
import { HEX_DIGEST_PATTERN } from '../canonical/digest';
import { LogStateError, ResealError } from '../errors';
import type { ChainTip } from '../seal/chain-tip';
import { RECORD_FORMAT_WRITER_BOUND, RecordHeaderSchema, recordHashOf } from '../seal/record-header';
import type { LineageHead } from '../seal/sealed-record';
import { appendLeaf, frontierRoot, subtreeRefs } from './compact-range';
import { EMPTY_ROOT, leafHash } from './merkle-hashing';
import type { NoteVerifierKey } from './note-key';
import { openCheckpoint } from './signed-checkpoint';

/**
 * A lineage's log state as the head item stores it. Every field is a claim of the table until
 * {@link authenticateLogState} has checked it against the signed checkpoint.
 */
export interface StoredLogHead {
  /** The head item's head fields (seq, record hash, epoch, MAC, key id). */
  readonly head: LineageHead;
  /** The head record's header, as stored (JSON), or `null` when absent. */
  readonly header: unknown | null;
  /** The signed checkpoint of the tree of `head.seq + 1` records (C2SP signed note), or `null`. */
  readonly checkpoint: string | null;
  /** Compact range of the first `head.seq` leaves (hex, left to right), or `null`. */
  readonly frontier: readonly string[] | null;
  /**
   * The body of the lineage write policy in force at the head (JSON), or `null`/absent: for a
   * format-2 head it must hash to the head header's `policyDigest` (docs/authorship.md).
   */
  readonly policy?: unknown | null;
}

/** A lineage's log, authenticated: what the sealer may extend. */
export interface LogState {
  readonly lineageId: string;
  /** Number of records (leaves). */
  readonly size: number;
  /** Compact range of all `size` leaves, left to right. */
  readonly frontier: readonly Uint8Array[];
  /** Root hash of the tree of `size` leaves (RFC 9162 MTH). */
  readonly rootHash: Uint8Array;
  /** The last record, or `null` for an empty lineage. */
  readonly tip: ChainTip | null;
  /** The signed checkpoint of this state, or `null` for an empty lineage. */
  readonly checkpoint: string | null;
  /**
   * The lineage write policy in force at the tip (its body hashes to the authenticated head
   * header's `policyDigest`), or `null`: an empty lineage, or a legacy one (docs/authorship.md).
   */
  readonly policy: LineagePolicy | null;
  /** Whether the tip is a format-1 record: a legacy lineage, read-only. */
  readonly legacyTip: boolean;
}

/** The state of a lineage with no records. */
export function emptyLogState(lineageId: string): LogState {
  return {
    lineageId,
    size: 0,
    frontier: [],
    rootHash: EMPTY_ROOT,
    tip: null,
    checkpoint: null,
    policy: null,
    legacyTip: false,
  };
}

/**
 * Authenticates the stored log state before anything is appended to it (docs/verifiable-log.md,
 * "Appending"): the checkpoint's signature and origin, its size = `head.seq + 1`, the stored
 * header hashing to the head's record hash and carrying the head's epoch, and the stored frontier
 * of the first `head.seq` leaves extended by that record's leaf hashing to the signed root. Only
 * then are the tip's seq, record hash and epoch (from the authenticated header) taken as true, so
 * a table writer cannot plant a record under the next honest seal or edit the head's claims (an
 * edited epoch would otherwise fence honest writers out), and for a format-2 head the stored
 * policy body hashing to the header's `policyDigest` (docs/authorship.md). It shows the state is one
 * the log signed, not the latest: a whole rollback to an earlier signed state authenticates
 * (docs/verifiable-log.md, "Appending", the limits).
 *
 * @param stored - the head item's log state, or `null` when there is no head item
 * @param context - the lineage, its checkpoint origin and the log's verifier key
 * @returns the authenticated state; an empty one for `stored === null`
 * @throws {LogStateError} when anything does not authenticate (never extend such a state)
 */
export function authenticateLogState(
  stored: StoredLogHead | null,
  context: { readonly lineageId: string; readonly origin: string; readonly key: NoteVerifierKey },
): LogState {
  const { lineageId } = context;
  if (stored === null) return emptyLogState(lineageId);
  const fail = (reason: string, cause?: unknown) =>
    new LogStateError(lineageId, reason, cause === undefined ? undefined : { cause });
  if (stored.checkpoint === null) throw fail('the head item carries no signed checkpoint');
  let checkpoint: ReturnType<typeof openCheckpoint>;
  try {
    checkpoint = openCheckpoint(stored.checkpoint, context.key, context.origin);
  } catch (error) {
    if (!(error instanceof ResealError)) throw error;
    throw fail(`checkpoint: ${error.message}`, error);
  }
  const seq = stored.head.seq;
  if (!Number.isSafeInteger(seq) || seq < 0 || checkpoint.size !== seq + 1) {
    throw fail(`the head names seq ${seq} but the signed checkpoint covers ${checkpoint.size} records`);
  }
  const header = RecordHeaderSchema.safeParse(stored.header);
  if (!header.success) throw fail('the head record header is missing or malformed');
  const recordHash = recordHashOf(header.data);
  if (header.data.lineageId !== lineageId || header.data.monotonicSequenceNumber !== seq) {
    throw fail(`the head record header is seq ${header.data.monotonicSequenceNumber} of ${header.data.lineageId}`);
  }
  if (stored.head.recordHash !== recordHash) {
    throw fail(
      `the head item claims record hash ${stored.head.recordHash} but its record header hashes to ${recordHash}`,
    );
  }
  if (stored.head.generationEpoch !== header.data.generationEpoch) {
    // The epoch the sealer fences against is the authenticated header's; a head item claiming
    // another is edited (a newer one would fence honest writers out on the table's word alone).
    throw fail(
      `the head item claims generation epoch ${stored.head.generationEpoch} but its record header has ${header.data.generationEpoch}`,
    );
  }
  const frontierHex = stored.frontier ?? [];
  if (!Array.isArray(stored.frontier) || !frontierHex.every((h) => HEX_DIGEST_PATTERN.test(h))) {
    throw fail('the frontier is missing or malformed');
  }
  if (frontierHex.length !== subtreeRefs(0, seq).length) {
    throw fail(`the frontier has ${frontierHex.length} hashes; ${seq} leaves need ${subtreeRefs(0, seq).length}`);
  }
  let extended: ReturnType<typeof appendLeaf>;
  try {
    extended = appendLeaf(
      frontierHex.map((h) => Buffer.from(h, 'hex')),
      seq,
      leafHash(Buffer.from(recordHash, 'hex')),
    );
  } catch (error) {
    if (!(error instanceof ResealError)) throw error;
    throw fail(`the frontier does not fit ${seq} leaves: ${error.message}`, error);
  }
  if (!Buffer.from(frontierRoot(extended.frontier)).equals(Buffer.from(checkpoint.rootHash))) {
    throw fail('the frontier and head record do not hash to the signed root');
  }
  // The policy in force is the body the authenticated header names by digest: no table item decides.
  const legacyTip = header.data.formatVersion !== RECORD_FORMAT_WRITER_BOUND;
  let policy: LineagePolicy | null = null;
  if (!legacyTip) {
    const parsed = LineagePolicySchema.safeParse(stored.policy);
    if (!parsed.success || policyDigest(parsed.data) !== header.data.policyDigest) {
      throw fail("the head item's lineage write policy is missing or is not the one its record header names");
    }
    policy = parsed.data;
  }
  return {
    lineageId,
    size: checkpoint.size,
    frontier: extended.frontier,
    rootHash: checkpoint.rootHash,
    tip: {
      lineageId,
      seq,
      recordHash,
      generationEpoch: header.data.generationEpoch,
      policyDigest: header.data.policyDigest ?? null,
    },
    checkpoint: stored.checkpoint,
    policy,
    legacyTip,
  };
}
