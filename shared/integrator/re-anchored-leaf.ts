import { hash } from 'node:crypto';
import { HashDomain } from '../canonical/hash-domain';
import { InvalidInputError } from '../errors';
import { INDEX_HASH_BYTES } from '../index/index-hash';
import { HASH_BYTES, leafHash } from '../log/merkle-hash';
import { deploymentLeafHash } from './deployment-leaf';

const PREFIX = Buffer.from(`${HashDomain.DEPLOYMENT_LEAF_RE_ANCHORED}\0`, 'ascii');

/**
 * The leaf of a re-anchored deployment log (docs/deployment-log.md, "Re-anchor"):
 * `SHA-256("reseal/v1/deployment-leaf-re-anchored" || 0x00 || indexRoot(32) || statementHash(32))`.
 * From the re-anchor leaf on, every leaf commits to the statement as well as to the index root, so
 * no client can verify the newest index root without being shown the statement.
 *
 * @throws {InvalidInputError} when either hash is not 32 bytes
 */
export function reAnchoredLeaf(indexRoot: Uint8Array, statementHash: Uint8Array): Uint8Array {
  const ok = (h: Uint8Array, n: number) => h instanceof Uint8Array && h.byteLength === n;
  if (!ok(indexRoot, INDEX_HASH_BYTES) || !ok(statementHash, HASH_BYTES)) {
    throw new InvalidInputError('re-anchored leaf', [{ path: '', message: 'expected two 32-byte hashes' }]);
  }
  return hash('sha256', Buffer.concat([PREFIX, indexRoot, statementHash]), 'buffer');
}

/**
 * The RFC 9162 leaf hash of a deployment-log leaf: of {@link reAnchoredLeaf} when the log's history
 * is re-anchored (`statementHash` given), else of the plain leaf (`deploymentLeaf`).
 */
export function deploymentLeafHashIn(indexRoot: Uint8Array, statementHash: Uint8Array | null | undefined): Uint8Array {
  return statementHash ? leafHash(reAnchoredLeaf(indexRoot, statementHash)) : deploymentLeafHash(indexRoot);
}
