import { half } from './half';
import { isOdd } from './is-odd';
import { nodeHash } from './merkle-hash';

/** The roots {@link climbProofPath} reached: `root` from every path element, `leftRoot` from the left ones only. */
export interface ClimbResult {
  readonly root: Uint8Array;
  readonly leftRoot: Uint8Array;
}

/**
 * The loop both RFC 9162 verifiers share (§2.1.3.2 for inclusion, §2.1.4.2 for consistency):
 * from `seed` at node `firstNode` of a level whose last node is `lastNode`, hash in each `path`
 * element as a left sibling (when the node is odd or the last one, then skipping the levels where
 * it is a left child) or as a right sibling. `leftRoot` takes only the left siblings (the old root
 * of a consistency proof); it is hashed only when `withLeftRoot`, else it stays `seed`.
 *
 * @returns `null` when the path is too long (the last node reaches 0 early) or too short
 *   (it is not 0 after)
 */
export function climbProofPath(
  firstNode: number,
  lastNode: number,
  seed: Uint8Array,
  path: readonly Uint8Array[],
  withLeftRoot: boolean,
): ClimbResult | null {
  let fn = firstNode;
  let sn = lastNode;
  let root = seed;
  let leftRoot = seed;
  for (const p of path) {
    if (sn === 0) return null;
    if (isOdd(fn) || fn === sn) {
      root = nodeHash(p, root);
      if (withLeftRoot) leftRoot = nodeHash(p, leftRoot);
      while (!isOdd(fn) && fn !== 0) {
        fn = half(fn);
        sn = half(sn);
      }
    } else {
      root = nodeHash(root, p);
    }
    fn = half(fn);
    sn = half(sn);
  }
  return sn === 0 ? { root, leftRoot } : null;
}
