import type { NodeRef } from './node-ref';

/**
 * The leaf at which `ref`'s subtree is complete, `(index + 1) · 2^level − 1`: the record (or
 * deployment-log leaf) whose item stores that node (docs/verifiable-log.md, "Stored state").
 * Not a safe integer for refs past 2^53 leaves; callers skip those.
 */
export function lastLeafOf(ref: NodeRef): number {
  return (ref.index + 1) * 2 ** ref.level - 1;
}
