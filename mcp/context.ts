import { z } from 'zod';
import type { ResealClient } from '../client/reseal-client';
import type { SnapshotSource } from '../client/snapshot-providers';
import { InvalidInputError } from '../shared/errors';
import type { EnvSnapshot } from '../shared/schemas/primitives';
import type { SnapshotUse } from './snapshot-use';

/** Longest a tool waits for a write's outcome or a recall's report by default, in ms (below MCP's 60 s request timeout). */
export const DEFAULT_TOOL_WAIT_MS = 45_000;
/** Longest a caller may ask a tool to wait, in ms. */
export const MAX_TOOL_WAIT_MS = 600_000;

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

/**
 * The snapshot a write or recall uses: the caller's `env` when given, else one taken now by the
 * configured providers.
 *
 * @throws {InvalidInputError} at `env` when none is given and no providers are configured
 */
export async function snapshotFor(env: EnvSnapshot | undefined, deps: ResealMcpDeps): Promise<SnapshotUse> {
  if (env !== undefined) return { source: 'caller', env, notes: [] };
  if (!deps.snapshots) {
    throw new InvalidInputError('tool arguments', [
      {
        path: 'env',
        message:
          'no env given and no snapshot providers configured: pass env, or configure them in reseal.config.json (RESEAL_CONFIG)',
      },
    ]);
  }
  const taken = await deps.snapshots.take();
  return { source: 'providers', env: taken.env, notes: taken.notes };
}

/**
 * The `timeoutMs` argument of a tool that waits for `what`: ms, 1 to {@link MAX_TOOL_WAIT_MS},
 * absent for {@link DEFAULT_TOOL_WAIT_MS} ({@link waitMs}).
 */
export function timeoutArg(what: string) {
  return z
    .number()
    .int()
    .min(1)
    .max(MAX_TOOL_WAIT_MS)
    .optional()
    .describe(`how long to wait for ${what} (default ${DEFAULT_TOOL_WAIT_MS.toLocaleString('en-US')})`);
}

/** The wait of a tool call: `timeoutMs` when given, else {@link DEFAULT_TOOL_WAIT_MS}. */
export function waitMs(timeoutMs: number | undefined): number {
  return timeoutMs ?? DEFAULT_TOOL_WAIT_MS;
}
