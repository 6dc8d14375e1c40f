import { type CostBreakdown, costPerMillion } from './cost-per-million';
import { MEASURED_USAGE } from './measured-usage';
import { type MonthlyCost, monthlyCost } from './monthly-cost';
import type { MonthlyDimension, PriceTable } from './price-table';
import { addUsage, type Usage } from './usage';

/** What `reseal deploy` prints about cost (docs/infrastructure.md, "What a deployment costs"). */
export interface DeployEstimate {
  /**
   * Dollars per million writes (publish to proven outcome), the index's share included, the guard
   * without its batching window (the stack's default, `guardBatchingWindowSeconds` 0).
   */
  readonly write: CostBreakdown;
  /** {@link write} with the guard's batching window on (`guardBatchingWindowSeconds` ≥ 1: batches of up to 10 from about 10 writes/s). */
  readonly writeWithGuardWindow: CostBreakdown;
  /** The deployment index's share of {@link write} (modelled at a production index size, shared/cost/index-usage.ts). */
  readonly index: CostBreakdown;
  /** Dollars per million recalls (request to proven answer). */
  readonly recall: CostBreakdown;
  /** Fixed dollars a month (KMS keys, alarms), whatever the traffic. */
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

/**
 * The cost estimate of a deployment: the bench's measured usage per write and per recall
 * ({@link MEASURED_USAGE}) priced with `prices`, a write with the index's modelled share added
 * (`usage.index`: the sealer's index read and the integrator's work at 10^6 keys) and the guard's
 * share without and with its batching window (`usage.guard`), and the fixed
 * monthly cost of `resources` (counted in the synthesized template).
 *
 * @throws {RangeError} for a negative or non-finite resource count
 */
export function deployEstimate(
  prices: PriceTable,
  resources: Readonly<Record<MonthlyDimension, number>>,
  usage: {
    readonly source: string;
    readonly write: Usage;
    readonly recall: Usage;
    readonly index?: Usage;
    readonly guard?: { readonly unbatched: Usage; readonly batched: Usage };
  } = MEASURED_USAGE,
): DeployEstimate {
  const listed = Object.values(prices.prices);
  return {
    write: costPerMillion(addUsage(addUsage(usage.write, usage.index ?? {}), usage.guard?.unbatched ?? {}), prices),
    writeWithGuardWindow: costPerMillion(
      addUsage(addUsage(usage.write, usage.index ?? {}), usage.guard?.batched ?? {}),
      prices,
    ),
    index: costPerMillion(usage.index ?? {}, prices),
    recall: costPerMillion(usage.recall, prices),
    monthly: monthlyCost(resources, prices),
    region: prices.region,
    priceDates: [...new Set(listed.map((p) => p.date))].sort(),
    priceSources: [...new Set(listed.map((p) => p.source))].sort(),
    usageSource: usage.source,
  };
}
