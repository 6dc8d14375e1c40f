import type { HexDigest } from '../../shared/canonical/digest';
import type { IntegrationEvidence } from '../../shared/integrator/integration-evidence';
import { lastLeafOf } from '../../shared/log/last-leaf';
import type { NodeRef } from '../../shared/log/node-ref';
import type {
  DeploymentLogStore,
  StoredDeploymentHead,
  StoredDeploymentLeaf,
} from '../../shared/ports/deployment-log-store';

/**
 * {@link DeploymentLogStore} in memory, with the DynamoDB adapter's conditions (head unchanged,
 * leaf absent). Its fields are open so tests can play the table writer.
 */
export class InMemoryDeploymentLogStore implements DeploymentLogStore {
  head: StoredDeploymentHead | null = null;
  readonly leaves = new Map<number, StoredDeploymentLeaf>();
  readonly evidence: { evidence: IntegrationEvidence; atMs: number }[] = [];
  /** Successful appends. */
  appends = 0;

  async readHead(): Promise<StoredDeploymentHead | null> {
    return this.head === null ? null : structuredClone(this.head);
  }

  /** The head as an eventually consistent read shows it (here: as stored). */
  async peekHead(): Promise<StoredDeploymentHead | null> {
    return this.readHead();
  }

  async append(
    expected: StoredDeploymentHead | null,
    next: StoredDeploymentHead,
    leaf: StoredDeploymentLeaf,
  ): Promise<boolean> {
    const same =
      expected === null
        ? this.head === null
        : this.head !== null && this.head.size === expected.size && this.head.checkpoint === expected.checkpoint;
    if (!same || this.leaves.has(leaf.index)) return false;
    this.head = structuredClone(next);
    this.leaves.set(leaf.index, structuredClone(leaf));
    this.appends += 1;
    return true;
  }

  async publish(size: number, checkpoint: string, published: string): Promise<boolean> {
    if (this.head === null || this.head.size !== size || this.head.checkpoint !== checkpoint) return false;
    this.head = { ...this.head, published };
    return true;
  }

  async readNodes(refs: readonly NodeRef[]): Promise<(HexDigest | null)[]> {
    return refs.map((ref) => this.leaves.get(lastLeafOf(ref))?.nodes[ref.level] ?? null);
  }

  /** The index root leaf `index` commits to, as a client reads it (`DeploymentLogReads`). */
  async readLeafIndexRoot(index: number): Promise<HexDigest | null> {
    return this.leaves.get(index)?.indexRoot ?? null;
  }

  async recordEvidence(evidence: IntegrationEvidence, atMs: number): Promise<void> {
    this.evidence.push({ evidence, atMs });
  }
}
