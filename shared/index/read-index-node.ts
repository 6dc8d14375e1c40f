import { IndexNodeMissingError } from '../errors';
import type { IndexNode, IndexNodeStore } from '../ports/index-node-store';
import { entryDigest, entryKey, type IndexEntry } from './index-entry';
import { indexLeafHash, indexNodeHash } from './index-hashing';
import { indexKeyPath } from './index-key';

/** A node read back and checked against its address; a leaf comes with its key path and entry digest. */
export type CheckedIndexNode =
  | {
      readonly kind: 'leaf';
      readonly entry: IndexEntry;
      readonly keyPath: Uint8Array;
      readonly entryDigest: Uint8Array;
    }
  | { readonly kind: 'interior'; readonly left: Uint8Array; readonly right: Uint8Array };

/** The hash a node is stored under, and for a leaf its key path and entry digest. */
export function hashIndexNode(node: IndexNode): { hash: Uint8Array; checked: CheckedIndexNode } {
  if (node.kind === 'interior') return { hash: indexNodeHash(node.left, node.right), checked: node };
  const keyPath = indexKeyPath(entryKey(node.entry));
  const digest = entryDigest(node.entry);
  return {
    hash: indexLeafHash(keyPath, digest),
    checked: { kind: 'leaf', entry: node.entry, keyPath, entryDigest: digest },
  };
}

/**
 * Reads one node and checks that it hashes to the address it was read under
 * (docs/verifiable-index.md, "Node store"): a store edited behind the index is caught here.
 *
 * @throws {IndexNodeMissingError} when the node is not stored, or hashes to another address
 * @throws what the store throws
 */
export async function readIndexNode(store: IndexNodeStore, hash: Uint8Array): Promise<CheckedIndexNode> {
  const [node] = await store.getNodes([hash]);
  const address = Buffer.from(hash).toString('hex');
  if (node === undefined) throw new IndexNodeMissingError(address, false);
  let read: ReturnType<typeof hashIndexNode>;
  try {
    read = hashIndexNode(node);
  } catch (error) {
    throw new IndexNodeMissingError(address, true, { cause: error });
  }
  if (Buffer.compare(read.hash, hash) !== 0) throw new IndexNodeMissingError(address, true);
  return read.checked;
}
