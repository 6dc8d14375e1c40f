import { InvalidInputError } from '../errors';
import { HASH_BYTES, isMerkleHash } from './merkle-hash';

/**
 * Argument check of the RFC 9162 §2.1 proof builders and compact ranges, which throw
 * {@link InvalidInputError} on invalid arguments (the verifiers answer `false` instead).
 */

/** @throws {InvalidInputError} naming the index of the first element that is not 32 bytes, or `''` for a non-array */
export function requireHashes(what: string, hashes: unknown): asserts hashes is readonly Uint8Array[] {
  if (!Array.isArray(hashes)) throw new InvalidInputError(what, [{ path: '', message: 'expected an array of hashes' }]);
  hashes.forEach((hash, i) => {
    if (!isMerkleHash(hash))
      throw new InvalidInputError(what, [{ path: String(i), message: `expected ${HASH_BYTES} bytes` }]);
  });
}
