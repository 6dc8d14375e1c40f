import { createHash } from 'node:crypto';
import { hashesEqual } from './hashes-equal';

/** Private copy, so a caller that mutates the exported constant cannot change what verifiers accept. */
const EMPTY = Uint8Array.from(createHash('sha256').digest());

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
