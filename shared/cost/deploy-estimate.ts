import { type CostBreakdown, costPerMillion } from './cost-per-million';
import { DEFAULT_DEPLOY_SETTINGS, type DeploySettings } from './deploy-settings';
import { MEASURED_USAGE } from './measured-usage';
import { type MonthlyCost, monthlyCost } from './monthly-cost';
import type { MonthlyDimension, PriceTable } from './price-table';
import { DEFAULT_TABLE_MAX_CAPACITY, DEFAULT_TABLE_MIN_CAPACITY } from './table-capacity';
import { addUsage, type Usage } from './usage';

/** The cost target of a sparse write, dollars per million (docs/infrastructure.md, "Cost and quotas"). */
export const TARGET_USD_PER_MILLION_WRITES = 5;

/** One row of the estimate's table of alternatives: its settings and what they cost the user besides dollars ({@link PricedAlternative}: priced). */
export interface DeployAlternative {
  /** Stable name of the row (`defaults`, `guardWindow`, `provisioned`, `longerInterval`, `longestInterval`). */
  readonly id: string;
  /** The settings, as `-c` values added to the row above's. */
  readonly label: string;
  readonly settings: DeploySettings;
  /** What the row costs besides dollars: latency, throttling, later proofs. */
  readonly tradeOff: string;
}

/** An alternative priced: per million writes, and the fixed monthly dollars of its table's minimum capacity. */
export interface PricedAlternative extends DeployAlternative {
  readonly write: CostBreakdown;
  readonly usdPerMonthCapacity: number;
}

const provisioned = {
  mode: 'provisioned',
  minCapacity: DEFAULT_TABLE_MIN_CAPACITY,
  maxCapacity: DEFAULT_TABLE_MAX_CAPACITY,
} as const;

/**
 * The settings `reseal deploy` prices beside the deployment's own, each adding one to the row
 * before: the defaults; the guard's 1 s window; a provisioned table; a 10 s integration interval;
 * then the last with a 30 s interval in place of 10 s (the first row at or under the $5 target).
 */
export const DEPLOY_ALTERNATIVES: readonly DeployAlternative[] = [
  {
    id: 'defaults',
    label: 'the defaults',
    settings: DEFAULT_DEPLOY_SETTINGS,
    tradeOff: 'nothing: the table idles at $0 and needs no capacity planning',
  },
  {
    id: 'guardWindow',
    label: '-c guardBatchingWindowSeconds=1',
    settings: { ...DEFAULT_DEPLOY_SETTINGS, guardBatchingWindowSeconds: 1 },
    tradeOff: 'a write may wait for its batch: up to 1 s, up to 20 s at very low traffic',
  },
  {
    id: 'provisioned',
    label: '+ -c tableCapacity=provisioned',
    settings: { ...DEFAULT_DEPLOY_SETTINGS, guardBatchingWindowSeconds: 1, tableCapacity: provisioned },
    tradeOff: 'bursts above the capacity are throttled and retried until it scales (minutes); the minimum is paid idle',
  },
  {
    id: 'longerInterval',
    label: '+ -c integrationIntervalSeconds=10',
    settings: { guardBatchingWindowSeconds: 1, integrationIntervalSeconds: 10, tableCapacity: provisioned },
    tradeOff: 'a write is proven about 10 s after it is sealed, not 2 s',
  },
  {
    id: 'longestInterval',
    label: '+ -c integrationIntervalSeconds=30, not 10',
    settings: { guardBatchingWindowSeconds: 1, integrationIntervalSeconds: 30, tableCapacity: provisioned },
    tradeOff: 'a write is proven about 30 s after it is sealed; a cold recall may be shown a state up to 30 s older',
  },
];

/** What `reseal deploy` prints about cost (docs/infrastructure.md, "What a deployment costs"). */
export interface DeployEstimate {
  /** The settings the estimate is for: the deployment's. */
  readonly settings: DeploySettings;
  /**
   * Dollars per million writes (publish to proven outcome) under {@link settings}: the guard's
   * share with or without its window, the index's share at the interval, DynamoDB on demand or
   * provisioned.
   */
  readonly write: CostBreakdown;
  /** The deployment index's share of {@link write} (modelled at a production index size, shared/cost/index-usage.ts). */
  readonly index: CostBreakdown;
  /** {@link DEPLOY_ALTERNATIVES}, each priced. */
  readonly alternatives: readonly PricedAlternative[];
  /** {@link TARGET_USD_PER_MILLION_WRITES}. */
  readonly targetUsdPerMillionWrites: number;
  /** Dollars per million recalls (request to proven answer), DynamoDB billed as {@link settings} say. */
  readonly recall: CostBreakdown;
  /** Fixed dollars a month (KMS keys, alarms; a provisioned table's minimum capacity), whatever the traffic. */
  readonly monthly: MonthlyCost;
  /** The price table's region. */
  readonly region: string;
  /** The dates the prices were read (sorted, unique). */
  readonly priceDates: readonly string[];
  /** The pages the prices come from (sorted, unique). */
  readonly priceSources: readonly string[];
  /** Where the usage per operation was measured. */
  readonly usageSource: string;
}

/** Usage per operation as {@link deployEstimate} takes it (default {@link MEASURED_USAGE}). */
export interface EstimatedUsage {
  readonly source: string;
  readonly write: Usage;
  readonly recall: Usage;
  /** The index's share of a write at the default interval. */
  readonly index?: Usage;
  /** The index's share of a write at an interval of `intervalSeconds` (else {@link index} at any). */
  readonly indexAt?: (intervalSeconds: number) => Usage;
  readonly guard?: { readonly unbatched: Usage; readonly batched: Usage };
}

/**
 * The cost estimate of a deployment with `settings` (default the stack's): the bench's measured
 * usage per write and per recall ({@link MEASURED_USAGE}) priced with `prices`, a write with the
 * index's modelled share at the settings' interval added (the sealer's index read and the
 * integrator's work at 10^6 keys) and the guard's share with its window (`guardBatchingWindowSeconds`
 * ≥ 1: the share the bench counted with a 1 s window) or without, DynamoDB's units priced on demand
 * or as provisioned capacity; the same for each of {@link DEPLOY_ALTERNATIVES}; and the fixed
 * monthly cost of `resources` (counted in the synthesized template) and of a provisioned table's
 * minimum capacity.
 *
 * @throws {RangeError} for a negative or non-finite resource count, or an interval below 1 s
 */
export function deployEstimate(
  prices: PriceTable,
  resources: Readonly<Record<MonthlyDimension, number>>,
  settings: DeploySettings = DEFAULT_DEPLOY_SETTINGS,
  usage: EstimatedUsage = MEASURED_USAGE,
): DeployEstimate {
  const listed = Object.values(prices.prices);
  const indexAt = (s: DeploySettings) => usage.indexAt?.(s.integrationIntervalSeconds) ?? usage.index ?? {};
  const writeAt = (s: DeploySettings) =>
    costPerMillion(
      addUsage(
        usage.write,
        indexAt(s),
        (s.guardBatchingWindowSeconds > 0 ? usage.guard?.batched : usage.guard?.unbatched) ?? {},
      ),
      prices,
      s.tableCapacity.mode,
    );
  const noResources = { kmsKeyMonth: 0, cloudWatchAlarmMonth: 0 };
  return {
    settings,
    write: writeAt(settings),
    index: costPerMillion(indexAt(settings), prices, settings.tableCapacity.mode),
    alternatives: DEPLOY_ALTERNATIVES.map((alternative) => ({
      ...alternative,
      write: writeAt(alternative.settings),
      usdPerMonthCapacity: monthlyCost(noResources, prices, alternative.settings.tableCapacity).usdPerMonth,
    })),
    targetUsdPerMillionWrites: TARGET_USD_PER_MILLION_WRITES,
    recall: costPerMillion(usage.recall, prices, settings.tableCapacity.mode),
    monthly: monthlyCost(resources, prices, settings.tableCapacity),
    region: prices.region,
    priceDates: [...new Set(listed.map((p) => p.date))].sort(),
    priceSources: [...new Set(listed.map((p) => p.source))].sort(),
    usageSource: usage.source,
  };
}
