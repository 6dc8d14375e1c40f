/**
 * A perfect subtree of the RFC 9162 §2.1 tree: the 2^level leaves starting at index * 2^level.
 * Level 0 is a leaf (index = leaf index = record seq); every node of a tree is addressed this way
 * whatever the tree's size, so a stored node never changes once written.
 */
export interface NodeRef {
  readonly level: number;
  readonly index: number;
}

/**
 * The leaf at which `ref`'s subtree is complete, `(index + 1) · 2^level − 1`: the record (or
 * deployment-log leaf) whose item stores that node (docs/verifiable-log.md, "Stored state").
 * Not a safe integer for refs past 2^53 leaves; callers skip those.
 */
export function lastLeafOf(ref: NodeRef): number {
  return (ref.index + 1) * 2 ** ref.level - 1;
}

/** A stored node: a NodeRef with its hash. */
export interface TreeNode extends NodeRef {
  readonly hash: Uint8Array;
}

/** Fetches node hashes, in the order of `refs`; rejects when one is missing (e.g. with `MerkleNodeMissingError`). */
export type NodeSource = (refs: readonly NodeRef[]) => Promise<Uint8Array[]>;
