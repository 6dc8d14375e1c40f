import { capacityUnitHours } from './capacity-unit-hours';
import { checkUnits } from './check-units';
import { type CapacityDimension, PER_USE_DIMENSIONS, type PerUseDimension, type PriceTable } from './price-table';
import type { TableCapacityMode } from './table-capacity';
import type { Usage } from './usage';

/**
 * The cost model (docs/infrastructure.md, "Cost and quotas"): billable usage per operation (a
 * write, a recall, an audit) times list prices, in dollars per million operations; fixed monthly
 * costs (keys, alarms) apart (`monthlyCost`). Pure: the counts come from the emulator bench
 * (bench/stack/), the prices from a {@link PriceTable}.
 */

/** One line of a {@link CostBreakdown}. */
export interface CostLine<D extends string = PerUseDimension> {
  readonly dimension: D;
  /** Units per operation (per month for fixed costs). */
  readonly units: number;
  /** Dollars per million operations (per month for fixed costs). */
  readonly usd: number;
}

/**
 * Dollars per million operations, in total and by dimension (dimensions with no use left out). On
 * a provisioned table DynamoDB's lines are capacity-unit-hours per operation
 * ({@link CapacityDimension}) instead of request units.
 */
export interface CostBreakdown {
  readonly usdPerMillion: number;
  readonly lines: readonly CostLine<PerUseDimension | CapacityDimension>[];
}

/** The capacity dimension a DynamoDB request unit is billed in on a provisioned table. */
const PROVISIONED_AS: Partial<Record<PerUseDimension, CapacityDimension>> = {
  dynamodbWriteRequestUnit: 'dynamodbWriteCapacityUnitHour',
  dynamodbReadRequestUnit: 'dynamodbReadCapacityUnitHour',
};

/**
 * The design card's floor per operation: a write is two SQS hops (send, receive, delete on the
 * standard queue and on the FIFO queue), one `ResidualSealed` event and one KMS `GenerateMac`; a
 * recall through EventBridge is two events (`RecallRequested`, `TriageCompleted`). DynamoDB,
 * `Sign`, Lambda and logs are left out.
 */
export const DESIGN_FLOOR = {
  write: { sqsStandardRequest: 3, sqsFifoRequest: 3, eventBridgeCustomEvent: 1, kmsSymmetricRequest: 1 },
  recall: { eventBridgeCustomEvent: 2 },
} as const satisfies Record<string, Usage>;

/**
 * Dollars per million operations that each use `usage`, the lineage table billed as `capacity`
 * says: on demand (the default) per request unit, provisioned per capacity-unit-hour
 * ({@link capacityUnitHours}: the same units at the auto scaling target). The same counts either
 * way; only the price of a unit changes.
 *
 * @throws {RangeError} for a negative or non-finite number of units
 */
export function costPerMillion(
  usage: Usage,
  prices: PriceTable,
  capacity: TableCapacityMode = 'on-demand',
): CostBreakdown {
  const lines: CostLine<PerUseDimension | CapacityDimension>[] = [];
  for (const dimension of PER_USE_DIMENSIONS) {
    const units = usage[dimension] ?? 0;
    checkUnits(`usage.${dimension}`, units);
    if (units === 0) continue;
    const provisioned = capacity === 'provisioned' ? PROVISIONED_AS[dimension] : undefined;
    if (provisioned === undefined) {
      lines.push({ dimension, units, usd: units * prices.prices[dimension].usd * 1e6 });
    } else {
      const hours = capacityUnitHours(units);
      lines.push({ dimension: provisioned, units: hours, usd: hours * prices.prices[provisioned].usd * 1e6 });
    }
  }
  return { usdPerMillion: lines.reduce((sum, line) => sum + line.usd, 0), lines };
}
