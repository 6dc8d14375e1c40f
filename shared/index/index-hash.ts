import { hash } from 'node:crypto';
import { HashDomain } from '../canonical/hash-domain';

/**
 * Node hashing of the verifiable index (docs/verifiable-index.md, "Hashing"): Reseal's tagged
 * SHA-256 over raw bytes, one tag per node kind, so a leaf, an interior node and an empty subtree
 * can never be taken for one another.
 *
 * ```
 * empty    = SHA-256("reseal/v1/index-empty" || 0x00)
 * leaf     = SHA-256("reseal/v1/index-leaf"  || 0x00 || keyPath(32) || entryDigest(32))
 * interior = SHA-256("reseal/v1/index-node"  || 0x00 || left(32) || right(32))
 * ```
 */

/** Length in bytes of every index hash, key path and entry digest (SHA-256). */
export const INDEX_HASH_BYTES = 32;

const prefix = (tag: string) => Buffer.from(`${tag}\0`, 'latin1');
const LEAF_PREFIX = prefix(HashDomain.INDEX_LEAF);
const NODE_PREFIX = prefix(HashDomain.INDEX_NODE);
const EMPTY = hash('sha256', prefix(HashDomain.INDEX_EMPTY), 'buffer');

function tagged(tagPrefix: Buffer, a: Uint8Array, b: Uint8Array): Uint8Array {
  const message = Buffer.allocUnsafe(tagPrefix.byteLength + 2 * INDEX_HASH_BYTES);
  tagPrefix.copy(message, 0);
  message.set(a, tagPrefix.byteLength);
  message.set(b, tagPrefix.byteLength + INDEX_HASH_BYTES);
  return hash('sha256', message, 'buffer');
}

/** The hash of every empty subtree, at any depth (a fresh copy each call; the original stays private). */
export function emptyIndexHash(): Uint8Array {
  return Uint8Array.from(EMPTY);
}

/** Whether `h` is the empty-subtree hash. */
export function isEmptyIndexHash(h: Uint8Array): boolean {
  return Buffer.compare(h, EMPTY) === 0;
}

/** A leaf's hash from its key path and entry digest (32 bytes each). */
export function indexLeafHash(keyPath: Uint8Array, entryDigest: Uint8Array): Uint8Array {
  return tagged(LEAF_PREFIX, keyPath, entryDigest);
}

/** An interior node's hash from its children's hashes (32 bytes each). */
export function indexNodeHash(left: Uint8Array, right: Uint8Array): Uint8Array {
  return tagged(NODE_PREFIX, left, right);
}
