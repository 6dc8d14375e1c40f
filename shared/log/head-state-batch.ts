import { HEX_DIGEST_PATTERN, type HexDigest } from '../canonical/digest';
import { hashCanonical } from '../canonical/hash-canonical';
import { HashDomain } from '../canonical/hash-domain';

/**
 * Most head states one batch head-state MAC covers (docs/verifiable-log.md, "Appending"): 64, far
 * above the 10 lineages one sealer invocation sealed, so it bounds a stored list (32 bytes a head
 * in the head item) and what a reader hashes. The sealer makes no batch MACs any more (it MACs
 * each head under its notice data key); the heads stored with one are read forever.
 */
export const MAX_HEAD_STATE_BATCH = 64;

/**
 * The 32 bytes a batch head-state MAC is taken over:
 * `SHA-256("reseal/v1/head-state-batch" || 0x00 || JCS({ v: 1, heads }))`, where `heads` are the
 * `headStateMessage` digests of the batch's head states (64 lowercase hex each), distinct and in
 * ascending order ({@link isHeadStateBatch}; docs/canonical-form.md). Never the message of a single
 * head state (tag `reseal/v1/head-state`: the hashed bytes differ from the tag on, so equal
 * messages would be a SHA-256 collision) nor a record MAC's input (a record's canonical header,
 * JSON text, never 32 bytes of a digest): a batch MAC cannot pass for either, nor either for it.
 *
 * @throws {RangeError} when `heads` is not a batch ({@link isHeadStateBatch})
 */
export function headStateBatchMessage(heads: readonly HexDigest[]): Uint8Array {
  if (!isHeadStateBatch(heads))
    throw new RangeError('a head-state batch is 1 to 64 distinct lowercase digests, ascending');
  return Buffer.from(hashCanonical(HashDomain.HEAD_STATE_BATCH, { v: 1, heads }), 'hex');
}

/**
 * Whether `heads` is a well-formed batch: an array of 1 to {@link MAX_HEAD_STATE_BATCH} lowercase
 * 64-hex digests, strictly ascending (so distinct, and one list per set of heads: a reader never
 * decides between two spellings of one batch).
 */
export function isHeadStateBatch(heads: unknown): heads is readonly HexDigest[] {
  if (!Array.isArray(heads) || heads.length < 1 || heads.length > MAX_HEAD_STATE_BATCH) return false;
  return heads.every(
    (head, i) =>
      typeof head === 'string' && HEX_DIGEST_PATTERN.test(head) && (i === 0 || (heads[i - 1] as string) < head),
  );
}
