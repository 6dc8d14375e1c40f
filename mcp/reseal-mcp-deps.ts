import type { ResealClient } from '../client/reseal-client';
import type { SnapshotSource } from '../client/snapshot-providers';

/**
 * The client calls the tools make (a {@link ResealClient}; a fake in tests). Outcomes and recalls
 * come back proven with the log's public key; the client keeps the last verified signed
 * checkpoint of each lineage in its own checkpoint store (`checkpointStore` of its deps).
 */
export type McpClient = Pick<
  ResealClient,
  | 'publishWrite'
  | 'waitForOutcome'
  | 'recall'
  | 'recallDirect'
  | 'latestCheckpoint'
  | 'provenRecord'
  | 'logKey'
  | 'verifyLineage'
  | 'lineageFreshness'
  | 'exportLineage'
  | 'verifyExport'
  | 'readRefusals'
  | 'keptCheckpoint'
  | 'verifyStoredLineage'
  | 'readVerifiedLineage'
>;

/**
 * What the Reseal MCP tools work with: a client of the deployed stack (the AWS details and the
 * checkpoint store stay in it, never in a tool's arguments) and the snapshot providers that
 * complete a call without `env`.
 */
export interface ResealMcpDeps {
  readonly client: McpClient;
  /** Takes the environment snapshot when a call passes no `env`; `null`: none configured. */
  readonly snapshots: SnapshotSource | null;
  /** Clock, ms since the Unix epoch (default `Date.now`). */
  readonly nowMs?: () => number;
  /**
   * When this agent session took over, ms since the Unix epoch: the default `boundaryAtMs` of a
   * write (hosts start one server per session). Default: when the server was created.
   */
  readonly sessionStartMs?: number;
}
