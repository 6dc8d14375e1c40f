import type { HexDigest } from '../canonical/digest';
import type { IntegrationEvidence } from '../integrator/integration-evidence';
import type { NodeRef } from '../log/node-ref';

/**
 * The deployment log's head item as stored (docs/deployment-log.md, "Storage"). Every field is a
 * claim of the table until `authenticateDeploymentHead` has checked it against the signature.
 */
export interface StoredDeploymentHead {
  /** Leaves of the log. */
  readonly size: number;
  /** The signed checkpoint of `size` leaves (C2SP signed note by the log key). */
  readonly checkpoint: string;
  /** Compact range of the first `size − 1` leaves, hex. */
  readonly frontier: readonly HexDigest[];
  /** The index root the last leaf commits to, hex. */
  readonly indexRoot: HexDigest;
  /** The last checkpoint published (with its cosignatures when a witness is configured), or `null`. */
  readonly published: string | null;
  /**
   * The re-anchor statement note (signed by a recovery key and the log key) the log's history
   * continues from, carried forward by every append; absent or `null` before any re-anchor
   * (docs/deployment-log.md, "Re-anchor").
   */
  readonly reAnchor?: string | null;
  /**
   * The re-anchor statement notes before `reAnchor`, oldest first (each signed by a recovery key and
   * the log key), carried forward by every append and extended by each re-anchor; absent or empty
   * before a second re-anchor (docs/deployment-log.md, "Re-anchor", "A chain of re-anchors").
   */
  readonly reAnchorChain?: readonly string[] | null;
}

/** One leaf item: its index, the index root it commits to and the tree nodes it completes (hex, by level). */
export interface StoredDeploymentLeaf {
  readonly index: number;
  readonly indexRoot: HexDigest;
  readonly nodes: readonly HexDigest[];
}

/**
 * Where the integrator keeps the deployment log (docs/deployment-log.md, "Storage"). Adapters:
 * `DynamoDBDeploymentLogStore` (adapters/, items in the lineage table) and an in-memory store in
 * test/helpers. Writes are conditional, so two integrators cannot both extend one state.
 */
export interface DeploymentLogStore {
  /** The head item (strongly consistent), or `null` before the first integration. */
  readHead(): Promise<StoredDeploymentHead | null>;
  /**
   * Moves the head to `next` and puts the leaf, in one transaction: only while the head is still
   * `expected` (same size and checkpoint; `null`: absent) and the leaf is absent.
   * @returns `false` when the condition failed (another writer, or an edited head)
   */
  append(
    expected: StoredDeploymentHead | null,
    next: StoredDeploymentHead,
    leaf: StoredDeploymentLeaf,
  ): Promise<boolean>;
  /**
   * Sets the head's `published` note, only while the head is still at `size` with `checkpoint`.
   * @returns `false` when the head moved on
   */
  publish(size: number, checkpoint: string, published: string): Promise<boolean>;
  /** Hashes (hex) of the log's tree nodes, in the order of `refs`, `null` for each one not stored. Unverified. */
  readNodes(refs: readonly NodeRef[]): Promise<(HexDigest | null)[]>;
  /** Records one evidence item (never overwrites one). */
  recordEvidence(evidence: IntegrationEvidence, atMs: number): Promise<void>;
}
