import type { TableCapacity } from './table-capacity';

/**
 * The settings of a deployment the cost of a write depends on (docs/infrastructure.md, "What a
 * deployment costs"), as the stack's props name them: the guard's batching window, the
 * integration interval and the lineage table's billing.
 */
export interface DeploySettings {
  /** The guard's event source batching window, whole seconds (0: none). */
  readonly guardBatchingWindowSeconds: number;
  /** The integration interval, whole seconds ≥ 1: writes per integration are 50 writes/s × this in the sparse scenario. */
  readonly integrationIntervalSeconds: number;
  /** How the lineage table is billed. */
  readonly tableCapacity: TableCapacity;
}

/**
 * The stack's defaults (infra/reseal-stack.ts: `DEFAULT_GUARD_BATCHING_WINDOW_SECONDS`,
 * `DEFAULT_INTEGRATION_INTERVAL_SECONDS`; the table on demand), which a test holds equal to them.
 */
export const DEFAULT_DEPLOY_SETTINGS: DeploySettings = {
  guardBatchingWindowSeconds: 0,
  integrationIntervalSeconds: 2,
  tableCapacity: { mode: 'on-demand' },
};
