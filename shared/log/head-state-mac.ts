import type { HexDigest } from '../canonical/digest';
import { hashCanonical } from '../canonical/hash-canonical';
import { HashDomain } from '../canonical/hash-domain';
import type { AnchorSignature, MacAnchor } from '../ports/mac-anchor';
import { AnchorSignatureSchema } from '../seal/anchor-signature';
import { headStateBatchMessage, isHeadStateBatch } from './head-state-batch';

/**
 * What the sealer vouches for when it stores a lineage's head (docs/verifiable-log.md,
 * "Appending"): the tree it extended to and the head record, as the lineage index value names them
 * (docs/deployment-log.md, "Index values") plus the head record's seq. Hex fields are lowercase.
 */
export interface HeadState {
  readonly lineageId: string;
  /** Number of records (RFC 9162 tree size); the head record is seq `treeSize − 1`. */
  readonly treeSize: number;
  /** RFC 9162 root of the `treeSize` leaves, 64 hex. */
  readonly rootHash: HexDigest;
  /** The head record's seq. */
  readonly headSeq: number;
  /** The head record's hash, 64 hex. */
  readonly headRecordHash: HexDigest;
  /** The head record's generation epoch. */
  readonly generationEpoch: number;
  /** The head header's `policyDigest`, or `null` for a legacy (format-1) head. */
  readonly writerPolicyDigest: HexDigest | null;
}

/**
 * The 32 bytes the head-state MAC is taken over:
 * `SHA-256("reseal/v1/head-state" || 0x00 || JCS({ v: 1, lineageId, treeSize, rootHash, headSeq,
 * headRecordHash, generationEpoch, writerPolicyDigest }))` (docs/canonical-form.md). A record's MAC
 * is taken over its canonical header (JSON text, never 32 bytes of a digest), so neither can pass
 * for the other.
 */
export function headStateMessage(state: HeadState): Uint8Array {
  return Buffer.from(headStateDigest(state), 'hex');
}

/** {@link headStateMessage} as 64 lowercase hex: how a batch head-state MAC names the state. */
export function headStateDigest(state: HeadState): HexDigest {
  return hashCanonical(HashDomain.HEAD_STATE, headStateBody(state));
}

/**
 * The JSON object every MAC of a head state hashes under its own domain tag (the KMS head-state
 * MAC's `reseal/v1/head-state`, the head-key MAC's `reseal/v1/head-state-key`): version 1 and the
 * state's fields, copied one by one so no other property of `state` ever enters the message.
 */
export function headStateBody(state: HeadState): Record<string, unknown> {
  return {
    v: 1,
    lineageId: state.lineageId,
    treeSize: state.treeSize,
    rootHash: state.rootHash,
    headSeq: state.headSeq,
    headRecordHash: state.headRecordHash,
    generationEpoch: state.generationEpoch,
    writerPolicyDigest: state.writerPolicyDigest,
  };
}

/**
 * A head item's `headMac` (docs/verifiable-log.md, "Stored state"): the MAC of its own head state
 * alone (no `heads`), or a batch MAC (`heads`: the {@link headStateDigest}s of the head states one
 * sealer invocation stored, distinct and ascending, this head's among them; the MAC is over
 * `headStateBatchMessage(heads)`, shared/log/head-state-batch.ts).
 */
export interface HeadStateMac extends AnchorSignature {
  readonly heads?: readonly HexDigest[];
}

/**
 * The sealer's MAC over a head state, with the records' HMAC key (KMS `GenerateMac`; no `Sign`):
 * what lets the next run (and the integrator) take a head item's tree as one the sealer stored,
 * without a signed lineage checkpoint (docs/verifiable-log.md, "Appending").
 * @throws what `anchor.generateMac` throws (key disabled or unreachable: the run is retried)
 */
export function macHeadState(state: HeadState, anchor: MacAnchor): Promise<AnchorSignature> {
  return anchor.generateMac(headStateMessage(state));
}

/**
 * Whether `stored` (the head item's `headMac`, unparsed: {@link HeadStateMac}) vouches for `state`
 * under the anchor's key. Without `heads`: the MAC of `state`'s own message. With `heads`: a
 * well-formed batch (shared/log/head-state-batch.ts) naming `state`'s digest, whose batch message
 * the MAC verifies over. `false` for a missing or malformed MAC or list, one of another key, one
 * of another state, a batch not naming `state`, or a single-form MAC beside a `heads` list (its
 * message is another state's, never a batch's). One MAC vouches for every head state of its batch,
 * each stored apart: a head item may carry another lineage's batch MAC and still only authenticate
 * a state the batch names, which the sealer stored. Says nothing about freshness, as before.
 * @throws what `anchor.verifyMac` throws when the check cannot be made (key disabled or
 *   unreachable): the caller retries, it never takes the head as authenticated
 */
export async function verifyHeadStateMac(state: HeadState, stored: unknown, anchor: MacAnchor): Promise<boolean> {
  if (stored === null || typeof stored !== 'object' || Array.isArray(stored)) return false;
  const { heads, ...signature } = stored as { heads?: unknown };
  const parsed = AnchorSignatureSchema.safeParse(signature);
  if (!parsed.success || parsed.data.keyId !== anchor.keyId) return false;
  if (!('heads' in stored)) return anchor.verifyMac(headStateMessage(state), parsed.data);
  if (!isHeadStateBatch(heads) || !heads.includes(headStateDigest(state))) return false;
  return anchor.verifyMac(headStateBatchMessage(heads), parsed.data);
}
