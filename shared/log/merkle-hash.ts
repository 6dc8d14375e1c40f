import { createHash } from 'node:crypto';

/**
 * Hashing of the Merkle tree of a lineage's log, RFC 9162 §2.1.1 (the RFC 6962 tree): SHA-256,
 * leaf hash `SHA-256(0x00 || leaf)`, interior node `SHA-256(0x01 || left || right)`; the empty
 * tree's root is in shared/log/empty-root.ts (docs/verifiable-log.md, "Public API").
 */

/** Length in bytes of every hash in the tree (SHA-256). */
export const HASH_BYTES = 32;

const LEAF_PREFIX = Uint8Array.of(0x00);
const NODE_PREFIX = Uint8Array.of(0x01);

function sha256(...parts: Uint8Array[]): Uint8Array {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  return Uint8Array.from(hash.digest());
}

/** Leaf hash, RFC 9162 §2.1.1: `SHA-256(0x00 || leaf)`. Any leaf length (Reseal's leaves are 32 bytes). */
export function leafHash(leaf: Uint8Array): Uint8Array {
  return sha256(LEAF_PREFIX, leaf);
}

/** Interior node hash, RFC 9162 §2.1.1: `SHA-256(0x01 || left || right)`. */
export function nodeHash(left: Uint8Array, right: Uint8Array): Uint8Array {
  return sha256(NODE_PREFIX, left, right);
}

/** Whether `h` is a tree hash: a `Uint8Array` of {@link HASH_BYTES} bytes. */
export const isMerkleHash = (h: unknown): h is Uint8Array => h instanceof Uint8Array && h.byteLength === HASH_BYTES;
