import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { HexDigest } from '../canonical/digest';
import { HEX_DIGEST_PATTERN } from '../canonical/digest';
import { hashBytes } from '../canonical/hash-bytes';
import { HashDomain } from '../canonical/hash-domain';
import { climbProofPath } from '../log/climb-proof-path';
import { proveInclusion } from '../log/inclusion-proof';
import { MemoryMerkleTree } from '../log/memory-tree';
import { leafHash } from '../log/merkle-hash';

/**
 * Most leaves a record batch may name: 2^32 − 1, what the record item's 4-byte size holds
 * (adapters/record-item.ts). A sealer invocation seals at most a few hundred records; the bound
 * is the encoding's, and a path is never longer than 32 hashes.
 */
export const MAX_RECORD_BATCH = 0xffff_ffff;

/**
 * Bytes of a record's batch salt: 16 random bytes, drawn per record when its batch is MAC'd. A
 * leaf's input is `recordHash || salt` and the salt is stored only in the record's own item, so a
 * batch-mate's path (which holds the leaf hash) cannot be checked against a rebuilt record, and a
 * record MAC'd but never stored cannot be given a place that verifies (docs/sealing.md, "The record
 * and its seal"). 128 bits: a guess at a lost salt succeeds with probability 2^-128.
 */
export const RECORD_BATCH_SALT_BYTES = 16;

/**
 * A record's place in its sealer invocation's record batch (docs/sealing.md, "The record and its
 * seal"): leaf `index` of the RFC 9162 tree of `size` leaves whose leaf inputs are the batch's
 * 32-byte record hashes each followed by its record's {@link RECORD_BATCH_SALT_BYTES}-byte `salt`
 * (lowercase hex), and `path`, the leaf's RFC 9162 §2.1.3.1 audit path (64 lowercase hex a hash,
 * leaf side first). The schema checks the JSON shape only: an index not below the size, a missing
 * salt or one that is not 32 lowercase hex, a path of the wrong length (longer than 32 hashes
 * included) or a path element that is not 64 lowercase hex is a MAC that fails
 * ({@link recordBatchRoot} gives `null`), never a malformed record, so every reader reports it as
 * the MAC failure of that record.
 */
export const RecordBatchPlaceSchema = z.strictObject({
  index: z.number().int().nonnegative().max(MAX_RECORD_BATCH),
  size: z.number().int().nonnegative().max(MAX_RECORD_BATCH),
  salt: z.string().optional(),
  path: z.array(z.string().max(64)),
});
/** Type of {@link RecordBatchPlaceSchema}. */
export type RecordBatchPlace = z.infer<typeof RecordBatchPlaceSchema>;

/**
 * The 32 bytes a batch record MAC is taken over: `SHA-256("reseal/v1/record-batch" || 0x00 ||
 * uint64be(size) || batchRoot)`, `size` the batch's leaf count and `batchRoot` the 32-byte RFC 9162
 * root of the batch's record hashes (docs/canonical-form.md). The size is bound because a record
 * stores it: a root alone leaves an edited size that keeps the leaf's path shape (leaf 0 of 3 and
 * of 4) folding to the same root, so the edit would pass; with the size MAC'd and RFC 9162's walk
 * refusing a path that does not fit index and size, every edit of the place fails the MAC. Bytes,
 * not JCS as the head-state batch message: the root and the stored place are binary, and a fixed
 * 40-byte input needs no canonical form. It never equals another MAC input of the sealer's key: a
 * single record's MAC is over its canonical header, JCS text of hundreds of bytes, never 32; a
 * head state's (`reseal/v1/head-state`) and a head-state batch's (`reseal/v1/head-state-batch`)
 * are 32-byte SHA-256 digests under other tags, and the hashed bytes differ from the tag on (the
 * NUL ends each tag), so an equal message would be a SHA-256 collision. A batch MAC cannot pass
 * for any of them, nor any of them for it.
 *
 * @throws {RangeError} when `size` is not an integer from 1 to {@link MAX_RECORD_BATCH} or `root` is not 32 bytes
 */
export function recordBatchMessage(size: number, root: Uint8Array): Uint8Array {
  if (!Number.isInteger(size) || size < 1 || size > MAX_RECORD_BATCH)
    throw new RangeError(`a batch size is 1 to ${MAX_RECORD_BATCH}`);
  if (!(root instanceof Uint8Array) || root.byteLength !== 32) throw new RangeError('a batch root is 32 bytes');
  const input = Buffer.alloc(40);
  input.writeBigUInt64BE(BigInt(size), 0);
  input.set(root, 8);
  return Buffer.from(hashBytes(HashDomain.RECORD_BATCH, input), 'hex');
}

/** A fresh random batch salt, {@link RECORD_BATCH_SALT_BYTES} bytes as lowercase hex. */
export function randomRecordBatchSalt(): string {
  return randomBytes(RECORD_BATCH_SALT_BYTES).toString('hex');
}

const SALT_PATTERN = new RegExp(`^[0-9a-f]{${2 * RECORD_BATCH_SALT_BYTES}}$`);

/** The leaf input of a batch record: its 32-byte record hash, then its salt's bytes. */
function leafInput(recordHash: HexDigest, salt: string): Uint8Array {
  return Buffer.concat([Buffer.from(recordHash, 'hex'), Buffer.from(salt, 'hex')]);
}

/**
 * The batch of `leaves` (hex record hashes and their salts, in batch order: leaf `i` is
 * `leaves[i]`): its root and each record's place, by position, salt included.
 *
 * @throws {RangeError} when the list is empty, a hash is not 64 lowercase hex or a salt not
 *   {@link RECORD_BATCH_SALT_BYTES} bytes of lowercase hex
 */
export async function recordBatchOf(
  leaves: readonly { readonly recordHash: HexDigest; readonly salt: string }[],
): Promise<{ readonly root: Uint8Array; readonly places: RecordBatchPlace[] }> {
  if (leaves.length === 0) throw new RangeError('a record batch has at least one record');
  const tree = new MemoryMerkleTree();
  for (const { recordHash, salt } of leaves) {
    if (!HEX_DIGEST_PATTERN.test(recordHash)) throw new RangeError(`record hash ${recordHash} is not 64 lowercase hex`);
    if (!SALT_PATTERN.test(salt)) throw new RangeError(`salt ${salt} is not ${RECORD_BATCH_SALT_BYTES} bytes of hex`);
    tree.append(leafInput(recordHash, salt));
  }
  const size = tree.size;
  const places = await Promise.all(
    leaves.map(async ({ salt }, index) => ({
      index,
      size,
      salt,
      path: (await proveInclusion(index, size, tree.nodes)).map((node) => Buffer.from(node).toString('hex')),
    })),
  );
  return { root: tree.root(), places };
}

/**
 * The batch root `place` folds `recordHash || salt` to (RFC 9162 §2.1.3.2), or `null` when the
 * place is malformed: an index not below the size, a size above {@link MAX_RECORD_BATCH}, a salt
 * missing or not {@link RECORD_BATCH_SALT_BYTES} bytes of lowercase hex, a path too long or too
 * short for the position, a path element that is not 64 lowercase hex. Never throws.
 */
export function recordBatchRoot(recordHash: HexDigest, place: RecordBatchPlace): Uint8Array | null {
  const { index, size, salt, path } = place;
  if (
    !Number.isSafeInteger(index) ||
    !Number.isSafeInteger(size) ||
    index < 0 ||
    index >= size ||
    size > MAX_RECORD_BATCH
  )
    return null;
  if (typeof salt !== 'string' || !SALT_PATTERN.test(salt)) return null;
  if (
    !Array.isArray(path) ||
    path.length > 32 ||
    !path.every((node) => typeof node === 'string' && HEX_DIGEST_PATTERN.test(node))
  )
    return null;
  if (!HEX_DIGEST_PATTERN.test(recordHash)) return null;
  const climbed = climbProofPath(
    index,
    size - 1,
    leafHash(leafInput(recordHash, salt)),
    path.map((node) => Buffer.from(node, 'hex')),
    false,
  );
  return climbed === null ? null : climbed.root;
}
