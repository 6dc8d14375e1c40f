import { type LineagePolicy, LineagePolicySchema, policyDigest } from '../authorship/lineage-policy';
import { HEX_DIGEST_PATTERN, type HexDigest } from '../canonical/digest';
import { LogStateError, ResealError } from '../errors';
import type { LineageIndexValue } from '../index/index-entry';
import type { MacAnchor } from '../ports/mac-anchor';
import type { NoticeKeyOpener } from '../ports/notice-key';
import type { ChainTip } from '../seal/chain-tip';
import type { LineageHead } from '../seal/lineage-head';
import { RECORD_FORMAT_WRITER_BOUND, RecordHeaderSchema, recordHashOf } from '../seal/record-header';
import { appendLeaf } from './append-leaf';
import { EMPTY_ROOT } from './empty-root';
import { frontierRoot } from './frontier-root';
import { HeadAuthentication } from './head-authentication';
import { type HeadKeyMac, isHeadKeyMacValid } from './head-key-mac';
import { type HeadState, verifyHeadStateMac } from './head-state-mac';
import { leafHash } from './merkle-hash';
import type { NoteVerifierKey } from './note-key';
import { subtreeRefs } from './subtree-refs';
import { openCheckpoint } from './verified-checkpoint';

/**
 * A lineage's log state as the head item stores it. Every field is a claim of the table until
 * {@link authenticateHeadState} (or, for a head with a signed checkpoint, {@link authenticateLogState})
 * has checked it.
 */
export interface StoredLogHead {
  /** The head item's head fields (seq, record hash, epoch, MAC, key id). */
  readonly head: LineageHead;
  /**
   * The head record's header, as stored (JSON), or `null` when absent: a small head
   * (docs/sealing.md, "The append's layout"), read by its attributes ({@link claimedLogState}).
   */
  readonly header: unknown | null;
  /** The signed checkpoint of the tree of `head.seq + 1` records (C2SP signed note; heads stored before the sealer stopped signing), or `null`. */
  readonly checkpoint: string | null;
  /** Compact range of the first `head.seq` leaves (hex, left to right; stored binary or as JSON hex), or `null`. */
  readonly frontier: readonly string[] | null;
  /**
   * The body of the lineage write policy in force at the head (JSON), or `null`/absent: for a
   * format-2 head it must hash to the head header's `policyDigest` (docs/authorship.md).
   */
  readonly policy?: unknown | null;
  /**
   * The sealer's head-state MAC over this head (`AnchorSignature` JSON, shared/log/head-state-mac.ts),
   * or `null`/absent: a head stored before the sealer stopped signing.
   */
  readonly headMac?: unknown | null;
  /**
   * The sealer's MAC over this head under a notice data key, with the wrapped key
   * (shared/log/head-key-mac.ts), or `null`/absent: a head stored with a KMS head-state MAC, or before.
   */
  readonly headKeyMac?: HeadKeyMac | null;
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
  /**
   * The signed lineage checkpoint the head item carried (heads stored before the sealer stopped
   * signing), or `null`: an empty lineage, or a head the sealer MAC'd (docs/verifiable-log.md,
   * "Appending"). Never newer than the deployment index's word on the lineage.
   */
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
 * The log state a head item claims, checked for everything a state must hold whoever vouches for
 * it, but authenticated by nothing yet: the stored header hashing to the head's record hash and
 * carrying the head's seq, lineage and epoch; the stored frontier of the first `head.seq` leaves
 * extended by that record's leaf giving the root; for a format-2 head the stored policy body
 * hashing to the header's `policyDigest` (docs/authorship.md). A small head (no `header`,
 * docs/sealing.md, "The append's layout") takes seq, record hash and epoch from its attributes and
 * the policy digest from its stored policy (`null` without one), all of which the head-state MAC
 * covers; it may carry no signed checkpoint, which covers neither its epoch nor its policy.
 * `checkpoint` is the head item's signed checkpoint as stored (unverified), or `null`. Only
 * {@link authenticateLogState} or {@link authenticateHeadState} make it a state that may be extended.
 *
 * @throws {LogStateError} when the head item is not a well-formed state
 */
export function claimedLogState(stored: StoredLogHead, lineageId: string): LogState {
  const fail = (reason: string, cause?: unknown) =>
    new LogStateError(lineageId, reason, cause === undefined ? undefined : { cause });
  const seq = stored.head.seq;
  if (!Number.isSafeInteger(seq) || seq < 0) throw fail(`the head names seq ${seq}`);
  const small = stored.header === null || stored.header === undefined;
  if (small && typeof stored.checkpoint === 'string') {
    // A signed checkpoint binds size and root only: beside no header, nothing would bind the
    // epoch and policy the item claims, so the item's word on them could pass as signed.
    throw fail('the head item carries a signed checkpoint but no record header');
  }
  const tip = small ? smallHeadTip(stored, fail) : headerTip(stored, lineageId, fail);
  const { recordHash } = tip;
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
  return {
    lineageId,
    size: seq + 1,
    frontier: extended.frontier,
    rootHash: frontierRoot(extended.frontier),
    tip: {
      lineageId,
      seq,
      recordHash,
      generationEpoch: tip.generationEpoch,
      policyDigest: tip.policyDigest,
      ...(tip.sealedAtMs === undefined ? {} : { sealedAtMs: tip.sealedAtMs }),
    },
    checkpoint: typeof stored.checkpoint === 'string' ? stored.checkpoint : null,
    policy: tip.policy,
    legacyTip: tip.legacyTip,
  };
}

/** What a head item says of its tip record, checked as far as the item can check it. */
interface ClaimedTip {
  readonly recordHash: HexDigest;
  readonly generationEpoch: number;
  readonly policyDigest: HexDigest | null;
  readonly policy: LineagePolicy | null;
  readonly legacyTip: boolean;
  /** The tip record's sealing time, when the item carries its header (a small head does not). */
  readonly sealedAtMs?: number;
}

/**
 * The tip of a head item that carries its record's header (every head stored before the small
 * head, docs/sealing.md, "The append's layout"): the header hashes to the head's record hash and
 * carries its seq, lineage and epoch; for a format-2 header the stored policy hashes to its
 * `policyDigest` (docs/authorship.md).
 */
function headerTip(stored: StoredLogHead, lineageId: string, fail: (reason: string) => LogStateError): ClaimedTip {
  const seq = stored.head.seq;
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
  // The policy in force is the body the header names by digest: no table item decides.
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
    recordHash,
    generationEpoch: header.data.generationEpoch,
    policyDigest: header.data.policyDigest ?? null,
    sealedAtMs: header.data.sealedAtMs,
    policy,
    legacyTip,
  };
}

/**
 * The tip of a small head item (no `header`: docs/sealing.md, "The append's layout"): seq, record
 * hash and epoch are the item's own attributes and the writer policy digest is the stored policy's
 * (`null` without one: a format-1 tip), exactly what the head-state MAC covers, so
 * {@link authenticateHeadState} checks them all; until then they are the table's word, as any
 * claimed state is. A stored policy that is not a lineage write policy fails.
 */
function smallHeadTip(stored: StoredLogHead, fail: (reason: string) => LogStateError): ClaimedTip {
  const { recordHash, generationEpoch } = stored.head;
  if (!HEX_DIGEST_PATTERN.test(recordHash)) throw fail(`the head item claims record hash ${recordHash}`);
  if (!Number.isSafeInteger(generationEpoch) || generationEpoch < 0) {
    throw fail(`the head item claims generation epoch ${generationEpoch}`);
  }
  if (stored.policy === null || stored.policy === undefined) {
    return { recordHash, generationEpoch, policyDigest: null, policy: null, legacyTip: true };
  }
  const parsed = LineagePolicySchema.safeParse(stored.policy);
  if (!parsed.success) throw fail("the head item's lineage write policy is malformed");
  return {
    recordHash,
    generationEpoch,
    policyDigest: policyDigest(parsed.data),
    policy: parsed.data,
    legacyTip: false,
  };
}

/**
 * Authenticates the stored log state by its signed lineage checkpoint (docs/verifiable-log.md,
 * "Appending", heads stored before the sealer stopped signing): {@link claimedLogState}, and the
 * checkpoint's signature and origin, its size = `head.seq + 1` and its root = the claimed root.
 * Only then are the tip's seq, record hash and epoch taken as true, so a table writer cannot plant
 * a record under the next honest seal or edit the head's claims. It shows the state is one the
 * log signed, not the latest: a whole rollback to an earlier signed state authenticates; the
 * deployment index is the floor (docs/sealing.md, "The index floor").
 *
 * @param stored - the head item's log state, or `null` when there is no head item
 * @param context - the lineage, its checkpoint origin and the log's verifier key
 * @returns the authenticated state; an empty one for `stored === null`
 * @throws {LogStateError} when anything does not authenticate (a head without a signed checkpoint included)
 */
export function authenticateLogState(
  stored: StoredLogHead | null,
  context: { readonly lineageId: string; readonly origin: string; readonly key: NoteVerifierKey },
): LogState {
  const { lineageId } = context;
  if (stored === null) return emptyLogState(lineageId);
  const claimed = claimedLogState(stored, lineageId);
  const reason = signedCheckpointMismatch(claimed, context);
  if (reason !== null) throw new LogStateError(lineageId, reason);
  return claimed;
}

/**
 * Authenticates the stored log state before it is extended or integrated (docs/verifiable-log.md,
 * "Appending"): {@link claimedLogState}, vouched for by one of, in this order, a sealed-run notice
 * of the integration's batch whose `auth` verified, naming exactly the claimed head (`noticed`, the
 * integrator only: no `VerifyMac`; docs/deployment-log.md, "Integration", step 2), the head item's
 * head-key MAC under the notice data key its blob wraps (`opener` opens the blob; the MAC verifies
 * over exactly the claimed state, in process; what the sealer stores now), its head-state MAC
 * under the records' HMAC key ({@link verifyHeadStateMac}; the sealer's fallback, and heads stored
 * before), its signed lineage checkpoint (heads stored before, still read), or the lineage's
 * entry in the deployment index (`indexed`, read under the authenticated deployment checkpoint)
 * when it is exactly the claimed head. A voucher that does not vouch (a blob the opener refuses, a
 * MAC that does not verify) falls through to the next; a head none of them vouches for is never
 * extended. The state's `checkpoint` is the head item's signed checkpoint only when it verifies
 * for this state; else `null` (always `null` when a notice or the index vouches).
 * Authentication shows the state is one the sealer stored, not the latest: the caller checks it
 * against the index (`checkAgainstIndex`), which the head never outranks, and the integrator
 * against every notice of the batch (`NOTICE_MISMATCH`).
 *
 * @param stored - the head item's log state, or `null` when there is no head item
 * @param context - the lineage, its checkpoint origin, the log's verifier key, the MAC anchor
 *   (`null`: a reader without the HMAC key, which can only take a notice, a head-key MAC, the
 *   signed checkpoint or the index), the notice key's opener (absent or `null`: no head-key MAC
 *   is checked), the lineage's index entry (`null`: not integrated, or not read) and the heads
 *   the batch's notices of this lineage name (absent or empty: none; `noticeVouchedHeads`,
 *   shared/integrator/notice-vouched-heads.ts)
 * @returns the state and what authenticated it; an empty state (`authenticatedBy: null`) for `stored === null`
 * @throws {LogStateError} when nothing vouches for the head, or it is not a well-formed state
 * @throws what the anchor throws when a MAC cannot be checked, or what the opener throws when no
 *   other voucher vouches (key unavailable: retried)
 */
export async function authenticateHeadState(
  stored: StoredLogHead | null,
  context: {
    readonly lineageId: string;
    readonly origin: string;
    readonly key: NoteVerifierKey;
    readonly anchor: MacAnchor | null;
    readonly opener?: NoticeKeyOpener | null;
    readonly indexed: LineageIndexValue | null;
    readonly noticed?: readonly LineageIndexValue[];
  },
): Promise<{ readonly state: LogState; readonly authenticatedBy: HeadAuthentication | null }> {
  const { lineageId } = context;
  if (stored === null) return { state: emptyLogState(lineageId), authenticatedBy: null };
  const claimed = claimedLogState(stored, lineageId);
  const head = headStateOf(claimed) as HeadState;
  if (context.noticed?.some((noticed) => sameHead(head, noticed))) {
    // A notice whose MAC verified under a notice data key (which only the sealer can mint) names
    // this very state: no head-state MAC needed.
    return { state: { ...claimed, checkpoint: null }, authenticatedBy: HeadAuthentication.NOTICE };
  }
  const keyMac = stored.headKeyMac ?? null;
  let unopened: { readonly error: unknown } | null = null;
  if (keyMac !== null && context.opener) {
    // A data key only the sealer (GenerateDataKey) and the integrator (Decrypt) can hold, under
    // the notice context: a blob that does not open vouches for nothing, it is no error. One the
    // opener throws on (an outage, or a blob a table writer chose so that KMS answers with some
    // other error) is thrown only when no other voucher vouches: he cannot block a head that is
    // vouched for anyway by storing such a blob beside it.
    let dataKey: Uint8Array | null = null;
    try {
      dataKey = await context.opener.open(keyMac.keyBlob);
    } catch (error) {
      unopened = { error };
    }
    if (dataKey !== null && isHeadKeyMacValid(head, dataKey, keyMac.mac)) {
      return { state: withVerifiedCheckpoint(claimed, context), authenticatedBy: HeadAuthentication.HEAD_KEY_MAC };
    }
  }
  if (stored.headMac !== undefined && stored.headMac !== null && context.anchor !== null) {
    if (await verifyHeadStateMac(head, stored.headMac, context.anchor)) {
      return { state: withVerifiedCheckpoint(claimed, context), authenticatedBy: HeadAuthentication.HEAD_MAC };
    }
  }
  const signed = claimed.checkpoint === null ? 'no signed checkpoint' : signedCheckpointMismatch(claimed, context);
  if (signed === null) return { state: claimed, authenticatedBy: HeadAuthentication.SIGNED_CHECKPOINT };
  if (context.indexed !== null && sameHead(head, context.indexed)) {
    return { state: { ...claimed, checkpoint: null }, authenticatedBy: HeadAuthentication.INDEX };
  }
  if (unopened !== null) throw unopened.error;
  const macs = [
    keyMac === null ? null : `a head-key MAC that does not verify${context.opener ? '' : ' here (no notice key)'}`,
    stored.headMac === undefined || stored.headMac === null ? null : 'a head-state MAC that does not verify',
  ].filter((m) => m !== null);
  const mac = macs.length === 0 ? 'no head MAC' : macs.join(' and ');
  throw new LogStateError(
    lineageId,
    `the head item carries ${mac}, ${signed === 'no signed checkpoint' ? signed : `a signed checkpoint that does not authenticate (${signed})`}, and is not the head the deployment index holds`,
  );
}

/** The head state a log state names (what the head-state MAC covers), or `null` for an empty lineage. */
export function headStateOf(state: LogState): HeadState | null {
  if (!state.tip) return null;
  return {
    lineageId: state.lineageId,
    treeSize: state.size,
    rootHash: Buffer.from(state.rootHash).toString('hex'),
    headSeq: state.tip.seq,
    headRecordHash: state.tip.recordHash,
    generationEpoch: state.tip.generationEpoch,
    writerPolicyDigest: state.tip.policyDigest ?? null,
  };
}

/** Whether a head state is exactly a lineage index value (size, root, head record, epoch, policy): the index's entry, or a notice's head. */
function sameHead(head: HeadState, indexed: LineageIndexValue): boolean {
  return (
    head.treeSize === indexed.treeSize &&
    head.rootHash === indexed.rootHash &&
    head.headRecordHash === indexed.headRecordHash &&
    head.generationEpoch === indexed.generationEpoch &&
    head.writerPolicyDigest === indexed.writerPolicyDigest
  );
}

/**
 * `claimed` as a head MAC vouched for it: the MAC covers the head state, not the checkpoint string
 * beside it, which is kept only when it verifies as this state's signed checkpoint (else a table
 * writer's text would be re-sent).
 */
function withVerifiedCheckpoint(
  claimed: LogState,
  context: { readonly origin: string; readonly key: NoteVerifierKey },
): LogState {
  const verified = claimed.checkpoint !== null && signedCheckpointMismatch(claimed, context) === null;
  return verified ? claimed : { ...claimed, checkpoint: null };
}

/** Why the claimed state's signed checkpoint does not authenticate it, or `null` when it does. */
function signedCheckpointMismatch(
  claimed: LogState,
  context: { readonly origin: string; readonly key: NoteVerifierKey },
): string | null {
  if (claimed.checkpoint === null) return 'the head item carries no signed checkpoint';
  let checkpoint: ReturnType<typeof openCheckpoint>;
  try {
    checkpoint = openCheckpoint(claimed.checkpoint, context.key, context.origin);
  } catch (error) {
    if (!(error instanceof ResealError)) throw error;
    return `checkpoint: ${error.message}`;
  }
  if (checkpoint.size !== claimed.size) {
    return `the head names seq ${claimed.size - 1} but the signed checkpoint covers ${checkpoint.size} records`;
  }
  if (!Buffer.from(claimed.rootHash).equals(Buffer.from(checkpoint.rootHash))) {
    return 'the frontier and head record do not hash to the signed root';
  }
  return null;
}
