import { IndexNodeMissingError, InvalidInputError } from '../errors';
import type { IndexNodeStore } from '../ports/index-node-store';
import type { IndexEntry } from './index-entry';
import { INDEX_HASH_BYTES, isEmptyIndexHash } from './index-hash';
import { type IndexKey, indexKeyPath, KEY_PATH_BITS, keyPathBit } from './index-key';
import { IndexNodeReader } from './index-node-reader';
import type { IndexProof } from './index-proof';

/** What the index of a root holds for a key, with the proof that shows it. */
export type IndexKeyProof =
  | { readonly kind: 'presence'; readonly entry: IndexEntry; readonly proof: IndexProof }
  | { readonly kind: 'absence'; readonly proof: IndexProof };

/**
 * Proves what the index of `root` holds for `key` (docs/verifiable-index.md, "Proofs"): walks the
 * key's path down from the root, one tile read per `tileLevels` levels (docs/verifiable-index.md, "Tiles"), to the key's leaf (presence), an empty
 * subtree or another key's leaf (absence). Encode with `encodeIndexProof`; check with
 * `checkIndexPresence` / `checkIndexAbsence`.
 *
 * @param root - an index root this store holds, 32 bytes
 * @throws {InvalidInputError} when the root is not 32 bytes
 * @throws {IndexNodeMissingError} when a node on the path is missing or edited
 * @throws what the store throws
 */
export async function proveIndexKey(store: IndexNodeStore, root: Uint8Array, key: IndexKey): Promise<IndexKeyProof> {
  if (!(root instanceof Uint8Array) || root.byteLength !== INDEX_HASH_BYTES) {
    throw new InvalidInputError('index root', [{ path: '', message: 'expected 32 bytes' }]);
  }
  const path = indexKeyPath(key);
  const reader = new IndexNodeReader(store);
  const siblings: (Uint8Array | null)[] = [];
  let hash = Uint8Array.from(root);
  for (;;) {
    // Unreachable with checked nodes (paths part by depth 256); a bound all the same.
    if (siblings.length > KEY_PATH_BITS) throw new IndexNodeMissingError(Buffer.from(hash).toString('hex'), true);
    if (isEmptyIndexHash(hash)) return { kind: 'absence', proof: { kind: 'absence', siblings, leaf: null } };
    const node = await reader.read(hash);
    if (node.kind === 'leaf') {
      if (Buffer.compare(node.keyPath, path) === 0) {
        return { kind: 'presence', entry: node.entry, proof: { kind: 'presence', siblings, leaf: null } };
      }
      return {
        kind: 'absence',
        proof: { kind: 'absence', siblings, leaf: { keyPath: node.keyPath, entryDigest: node.entryDigest } },
      };
    }
    const right = keyPathBit(path, siblings.length) === 1;
    const sibling = right ? node.left : node.right;
    siblings.push(isEmptyIndexHash(sibling) ? null : Uint8Array.from(sibling));
    hash = Uint8Array.from(right ? node.right : node.left);
  }
}
