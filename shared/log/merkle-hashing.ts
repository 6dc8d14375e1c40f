import { createHash } from 'node:crypto';

/**
 * Hashing of the Merkle tree of a lineage's log, RFC 9162 §2.1.1 (the RFC 6962 tree): SHA-256,
 * leaf hash `SHA-256(0x00 || leaf)`, interior node `SHA-256(0x01 || left || right)`.
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

/** Private copy, so a caller that mutates the exported constant cannot change what verifiers accept. */
const EMPTY = sha256();

/**
 * `MTH({})`, the root of the empty tree (RFC 9162 §2.1.1): SHA-256 of the empty string,
 * `e3b0c442…7852b855`. A fresh copy is returned wherever a function yields it.
 */
export const EMPTY_ROOT: Uint8Array = EMPTY.slice();

/** A fresh copy of {@link EMPTY_ROOT}, taken from a private original no caller can mutate. */
export function emptyRoot(): Uint8Array {
  return EMPTY.slice();
}

/** Whether `hash` is `MTH({})`, compared with the private original (not the mutable export). */
export function isEmptyRoot(hash: Uint8Array): boolean {
  return hashesEqual(hash, EMPTY);
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

/** Byte equality in time independent of where the first difference is. */
export function hashesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.byteLength !== b.byteLength) return false;
  let diff = 0;
  for (let i = 0; i < a.byteLength; i += 1) diff |= (a[i] as number) ^ (b[i] as number);
  return diff === 0;
}
