import { type TableCapacity, tableCapacity } from './table-capacity';

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

/** The longest batching window an SQS event source takes, seconds (`MaximumBatchingWindowInSeconds`): the bound of the guard's window and of the integration interval. */
export const MAX_BATCHING_WINDOW_SECONDS = 300;

/**
 * The {@link DeploySettings} among a deployment's context values (`-c NAME=VALUE` strings or
 * cdk.json's JSON values; docs/infrastructure.md, "Configuration"), parsed once for the CDK app
 * and for `reseal deploy`'s check before it runs the CDK. Unset (absent, null or empty) is
 * {@link DEFAULT_DEPLOY_SETTINGS}'s. Whole numbers are decimal digits or a JSON number: `1.5`,
 * `1e3`, `0x10` and `abc` are refused, where `Number()` would take some of them.
 *
 * @throws {Error} `context NAME=VALUE: expected …`, naming the setting, the value given and what it takes
 */
export function deploySettingsFromContext(context: Readonly<Record<string, unknown>>): DeploySettings {
  const given = (name: string): unknown => {
    const value = context[name];
    return value === undefined || value === null || value === '' ? undefined : value;
  };
  const whole = (name: string, min: number, max: number, what: string): number | undefined => {
    const value = given(name);
    if (value === undefined) return undefined;
    const n =
      typeof value === 'number' ? value : typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : Number.NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max) {
      throw new Error(`context ${name}=${JSON.stringify(value)}: expected ${what}`);
    }
    return n;
  };
  const seconds = (min: number) => `whole seconds, ${min} to ${MAX_BATCHING_WINDOW_SECONDS}`;
  const guardBatchingWindowSeconds = whole('guardBatchingWindowSeconds', 0, MAX_BATCHING_WINDOW_SECONDS, seconds(0));
  const integrationIntervalSeconds = whole('integrationIntervalSeconds', 1, MAX_BATCHING_WINDOW_SECONDS, seconds(1));
  const units = 'whole capacity units, 1 or more';
  const minCapacity = whole('tableMinCapacity', 1, Number.MAX_SAFE_INTEGER, units);
  const maxCapacity = whole('tableMaxCapacity', 1, Number.MAX_SAFE_INTEGER, units);
  const mode = given('tableCapacity');
  let capacity: TableCapacity;
  try {
    capacity = tableCapacity({ mode: mode === undefined ? undefined : String(mode), minCapacity, maxCapacity });
  } catch (error) {
    throw new Error(`context ${(error as Error).message}`);
  }
  return {
    guardBatchingWindowSeconds: guardBatchingWindowSeconds ?? DEFAULT_DEPLOY_SETTINGS.guardBatchingWindowSeconds,
    integrationIntervalSeconds: integrationIntervalSeconds ?? DEFAULT_DEPLOY_SETTINGS.integrationIntervalSeconds,
    tableCapacity: capacity,
  };
}
