import { hash } from 'node:crypto';
import { HashDomain } from '../canonical/hash-domain';
import { InvalidInputError } from '../errors';
import { INDEX_HASH_BYTES } from '../index/index-hash';
import { leafHash } from '../log/merkle-hash';

const PREFIX = Buffer.from(`${HashDomain.DEPLOYMENT_LEAF}\0`, 'ascii');

/**
 * The leaf a deployment-log entry adds for one index root (docs/deployment-log.md, "Leaves"):
 * `SHA-256("reseal/v1/deployment-leaf" || 0x00 || indexRoot)`, 32 raw bytes. The RFC 9162 tree of
 * the deployment log is built over these, as a lineage's tree is over record hashes, so the index
 * root is a leaf of a cosigned log and never an extension line.
 *
 * @param indexRoot - the verifiable index root, 32 bytes
 * @throws {InvalidInputError} when the root is not 32 bytes
 */
export function deploymentLeaf(indexRoot: Uint8Array): Uint8Array {
  if (!(indexRoot instanceof Uint8Array) || indexRoot.byteLength !== INDEX_HASH_BYTES) {
    throw new InvalidInputError('index root', [{ path: '', message: 'expected 32 bytes' }]);
  }
  return hash('sha256', Buffer.concat([PREFIX, indexRoot]), 'buffer');
}

/** The RFC 9162 leaf hash of {@link deploymentLeaf}: `SHA-256(0x00 || deploymentLeaf(indexRoot))`. */
export function deploymentLeafHash(indexRoot: Uint8Array): Uint8Array {
  return leafHash(deploymentLeaf(indexRoot));
}
