import { emptyIndexHash } from '../index/index-hash';
import type { Checkpoint } from '../log/checkpoint';
import { EMPTY_ROOT } from '../log/empty-root';

/**
 * The deployment log's tree head and the index root of its last leaf (docs/deployment-log.md,
 * "The deployment log"). Hashes are 32 raw bytes.
 */
export interface DeploymentLogState {
  /** Leaves (integrations that changed the index), 0 before the first. */
  readonly size: number;
  /** RFC 9162 root of the `size` leaves (`EMPTY_ROOT` for none). */
  readonly rootHash: Uint8Array;
  /** Compact range of all `size` leaves, left to right. */
  readonly frontier: readonly Uint8Array[];
  /** The index root the last leaf commits to (`emptyIndexHash()` before the first leaf). */
  readonly indexRoot: Uint8Array;
  /**
   * The statement hash of the re-anchor the log's history continues from (docs/deployment-log.md,
   * "Re-anchor"): its next leaves are re-anchored leaves. Absent or `null` before any re-anchor.
   */
  readonly reAnchor?: Uint8Array | null;
}

/** The state of a deployment log with no leaves: an empty index. */
export function emptyDeploymentLogState(): DeploymentLogState {
  return { size: 0, rootHash: Uint8Array.from(EMPTY_ROOT), frontier: [], indexRoot: emptyIndexHash() };
}

/** The checkpoint body of a deployment log state, for the log key to sign; `origin` is `reseal/<stackName>` (`logKeyName`). */
export function deploymentCheckpoint(origin: string, state: DeploymentLogState): Checkpoint {
  return { origin, size: state.size, rootHash: state.rootHash };
}
