import { InvalidInputError } from '../errors';
import { appendLeaf } from '../log/append-leaf';
import { frontierRoot } from '../log/frontier-root';
import type { TreeNode } from '../log/node-ref';
import type { DeploymentLogState } from './deployment-log-state';
import { deploymentLeafHashIn } from './re-anchored-leaf';

/** What {@link appendIndexRoot} produces: the next state and the tree nodes the new leaf completes. */
export interface DeploymentAppend {
  readonly state: DeploymentLogState;
  /** The perfect subtrees ending at the new leaf, by level (level 0 = its leaf hash): what a store persists for proofs. */
  readonly completed: readonly TreeNode[];
}

/**
 * Appends the leaf of `indexRoot` (docs/deployment-log.md, "Leaves") to the deployment log.
 * Pure: nothing is stored or signed.
 *
 * @throws {InvalidInputError} when the root is not 32 bytes or is the one the last leaf holds
 *   (an integration that changed nothing adds no leaf)
 */
export function appendIndexRoot(state: DeploymentLogState, indexRoot: Uint8Array): DeploymentAppend {
  if (state.size > 0 && Buffer.compare(state.indexRoot, indexRoot) === 0) {
    throw new InvalidInputError('deployment log append', [
      { path: 'indexRoot', message: 'the last leaf already holds this index root' },
    ]);
  }
  return appendLeafOf(state, indexRoot, state.reAnchor ?? null);
}

function appendLeafOf(state: DeploymentLogState, indexRoot: Uint8Array, reAnchor: Uint8Array | null): DeploymentAppend {
  const { frontier, completed } = appendLeaf(state.frontier, state.size, deploymentLeafHashIn(indexRoot, reAnchor));
  const root = Uint8Array.from(indexRoot);
  return {
    state: {
      size: state.size + 1,
      rootHash: frontierRoot(frontier),
      frontier,
      indexRoot: root,
      ...(reAnchor ? { reAnchor } : {}),
    },
    completed,
  };
}

/**
 * Appends the **re-anchor leaf** (docs/deployment-log.md, "Re-anchor"): the re-anchored leaf of the
 * unchanged index root and the statement's hash, at the restored head's size. From it on, the
 * state's leaves commit to that statement. Pure.
 */
export function appendReAnchor(state: DeploymentLogState, statementHash: Uint8Array): DeploymentAppend {
  return appendLeafOf(state, state.indexRoot, Uint8Array.from(statementHash));
}
