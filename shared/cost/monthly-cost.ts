import { HOURS_A_MONTH } from './capacity-unit-hours';
import { checkUnits } from './check-units';
import type { CostLine } from './cost-per-million';
import type { CapacityDimension, MonthlyDimension, PriceTable } from './price-table';
import type { TableCapacity } from './table-capacity';

/**
 * A deployment's fixed monthly cost (docs/infrastructure.md, "Cost and quotas"): what its keys and
 * alarms cost each month whatever the traffic, apart from the cost per operation
 * (`costPerMillion`), and on a provisioned table the capacity it keeps when idle. Pure.
 */

/** Fixed monthly dollars, in total and by dimension. */
export interface MonthlyCost {
  readonly usdPerMonth: number;
  /** Units a month: resources (keys, alarms), or capacity-unit-hours of a provisioned table's minimum. */
  readonly lines: readonly CostLine<MonthlyDimension | CapacityDimension>[];
}

/**
 * Fixed monthly cost of a deployment's resources, and of its table's minimum capacity when it is
 * provisioned (`capacity`; default on demand, which idles at $0): the minimum read and the minimum
 * write units, {@link HOURS_A_MONTH} hours each. The cost per operation prices the units consumed
 * above it as well, so a provisioned deployment's total is an upper bound by at most this minimum.
 *
 * @throws {RangeError} for a negative or non-finite count
 */
export function monthlyCost(
  resources: Readonly<Record<MonthlyDimension, number>>,
  prices: PriceTable,
  capacity: TableCapacity = { mode: 'on-demand' },
): MonthlyCost {
  const lines: CostLine<MonthlyDimension | CapacityDimension>[] = (Object.keys(resources) as MonthlyDimension[]).map(
    (dimension) => {
      const units = resources[dimension];
      checkUnits(`resources.${dimension}`, units);
      return { dimension, units, usd: units * prices.prices[dimension].usd };
    },
  );
  if (capacity.mode === 'provisioned') {
    checkUnits('capacity.minCapacity', capacity.minCapacity);
    for (const dimension of ['dynamodbReadCapacityUnitHour', 'dynamodbWriteCapacityUnitHour'] as const) {
      const units = capacity.minCapacity * HOURS_A_MONTH;
      lines.push({ dimension, units, usd: units * prices.prices[dimension].usd });
    }
  }
  return { usdPerMonth: lines.reduce((sum, line) => sum + line.usd, 0), lines };
}
