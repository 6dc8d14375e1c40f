import { type MonthlyDimension, PER_USE_DIMENSIONS, type PerUseDimension, type PriceTable } from './price-table';

/**
 * The cost model (docs/infrastructure.md, "Cost and quotas"): billable usage per operation (a
 * write, a recall, an audit) times list prices, in dollars per million operations; fixed monthly
 * costs (keys, alarms) apart. Pure: the counts come from the emulator bench (bench/stack/), the
 * prices from a {@link PriceTable}.
 */

/** Billable units one operation uses, by dimension (absent = 0). */
export type Usage = Readonly<Partial<Record<PerUseDimension, number>>>;

/** One line of a {@link CostBreakdown}. */
export interface CostLine<D extends string = PerUseDimension> {
  readonly dimension: D;
  /** Units per operation (per month for fixed costs). */
  readonly units: number;
  /** Dollars per million operations (per month for fixed costs). */
  readonly usd: number;
}

/** Dollars per million operations, in total and by dimension (dimensions with no use left out). */
export interface CostBreakdown {
  readonly usdPerMillion: number;
  readonly lines: readonly CostLine[];
}

/** Fixed monthly dollars, in total and by dimension. */
export interface MonthlyCost {
  readonly usdPerMonth: number;
  readonly lines: readonly CostLine<MonthlyDimension>[];
}

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

function checkUnits(what: string, value: number): void {
  if (!Number.isFinite(value) || value < 0) {
    throw new RangeError(`${what} must be a finite number ≥ 0, got ${value}`);
  }
}

/**
 * Dollars per million operations that each use `usage`.
 *
 * @throws {RangeError} for a negative or non-finite number of units
 */
export function costPerMillion(usage: Usage, prices: PriceTable): CostBreakdown {
  const lines: CostLine[] = [];
  for (const dimension of PER_USE_DIMENSIONS) {
    const units = usage[dimension] ?? 0;
    checkUnits(`usage.${dimension}`, units);
    if (units === 0) continue;
    lines.push({ dimension, units, usd: units * prices.prices[dimension].usd * 1e6 });
  }
  return { usdPerMillion: lines.reduce((sum, line) => sum + line.usd, 0), lines };
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

/** Usages added up, by dimension. */
export function addUsage(...usages: readonly Usage[]): Usage {
  const out: Partial<Record<PerUseDimension, number>> = {};
  for (const usage of usages) {
    for (const [dimension, units] of Object.entries(usage) as [PerUseDimension, number][]) {
      out[dimension] = (out[dimension] ?? 0) + units;
    }
  }
  return out;
}

/** A usage divided by a number of operations (totals of a run → usage per operation). */
export function perOperation(usage: Usage, operations: number): Usage {
  if (!Number.isInteger(operations) || operations <= 0) {
    throw new RangeError(`operations must be a positive integer, got ${operations}`);
  }
  return Object.fromEntries(Object.entries(usage).map(([dimension, units]) => [dimension, units / operations]));
}
