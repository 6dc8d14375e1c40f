import type { HexDigest } from '../canonical/digest';
import type { DeploymentLogStore, StoredDeploymentHead } from './deployment-log-store';

/**
 * What a client reads of the deployment log to build a freshness chain (docs/deployment-log.md,
 * "Clients"): the head item (for its `published` note), one leaf item's index root, and tree
 * nodes. Everything read is a claim: the client proves it with `verifyDeploymentChain`, so a
 * table writer can hide an item but not forge one. Adapter: `DynamoDBDeploymentLogStore`.
 */
export interface DeploymentLogReads extends Pick<DeploymentLogStore, 'readHead' | 'readNodes'> {
  /**
   * The head item read eventually consistently (half a strongly consistent read; it may lag the
   * table by about a second): a trigger only, telling a waiting client the head may have moved
   * (`DeploymentChainReader.headMark`), never a value a chain is verified from. Absent: the
   * reader uses `readHead`.
   */
  peekHead?(): Promise<StoredDeploymentHead | null>;
  /** The index root (hex, unverified) leaf `index` commits to, or `null` when the leaf item is absent or malformed. */
  readLeafIndexRoot(index: number): Promise<HexDigest | null>;
}
