import type { IndexNode, IndexNodeStore } from '../ports/index-node-store';
import { entryDigest, entryKey } from './index-entry';
import { indexLeafHash, indexNodeHash } from './index-hash';
import { indexKeyPath } from './index-key';
import { IndexNodeReader } from './index-node-reader';
import type { CheckedIndexNode } from './index-tile';

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
 * Reads one node on its own, checked against its address (docs/verifiable-index.md, "Node
 * store"): the node must be a tile's root. A walk reads through one {@link IndexNodeReader}
 * instead, which also finds the nodes inside the tiles it read.
 *
 * @throws {IndexNodeMissingError} when the node is not stored, or hashes to another address
 * @throws what the store throws
 */
export function readIndexNode(store: IndexNodeStore, hash: Uint8Array): Promise<CheckedIndexNode> {
  return new IndexNodeReader(store).read(hash);
}
