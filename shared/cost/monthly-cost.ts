import { checkUnits } from './check-units';
import type { CostLine } from './cost-per-million';
import type { MonthlyDimension, PriceTable } from './price-table';

/**
 * A deployment's fixed monthly cost (docs/infrastructure.md, "Cost and quotas"): what its keys and
 * alarms cost each month whatever the traffic, apart from the cost per operation
 * (`costPerMillion`). Pure.
 */

/** Fixed monthly dollars, in total and by dimension. */
export interface MonthlyCost {
  readonly usdPerMonth: number;
  readonly lines: readonly CostLine<MonthlyDimension>[];
}

/**
 * Fixed monthly cost of a deployment's resources.
 *
 * @throws {RangeError} for a negative or non-finite count
 */
export function monthlyCost(resources: Readonly<Record<MonthlyDimension, number>>, prices: PriceTable): MonthlyCost {
  const lines = (Object.keys(resources) as MonthlyDimension[]).map((dimension) => {
    const units = resources[dimension];
    checkUnits(`resources.${dimension}`, units);
    return { dimension, units, usd: units * prices.prices[dimension].usd };
  });
  return { usdPerMonth: lines.reduce((sum, line) => sum + line.usd, 0), lines };
}
