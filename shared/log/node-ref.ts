/**
 * A perfect subtree of the RFC 9162 §2.1 tree: the 2^level leaves starting at index * 2^level.
 * Level 0 is a leaf (index = leaf index = record seq); every node of a tree is addressed this way
 * whatever the tree's size, so a stored node never changes once written.
 */
export interface NodeRef {
  readonly level: number;
  readonly index: number;
}

/** A stored node: a NodeRef with its hash. */
export interface TreeNode extends NodeRef {
  readonly hash: Uint8Array;
}

/** Fetches node hashes, in the order of `refs`; rejects when one is missing (e.g. with `MerkleNodeMissingError`). */
export type NodeSource = (refs: readonly NodeRef[]) => Promise<Uint8Array[]>;
