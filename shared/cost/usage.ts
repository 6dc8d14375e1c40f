import type { PerUseDimension } from './price-table';

/**
 * Billable usage (docs/infrastructure.md, "Cost and quotas"): the units of each billing dimension
 * an operation uses, as the emulator bench counts them (bench/stack/), added up across the parts
 * of a stack and divided down to one operation before the cost model prices them. Pure.
 */

/** Billable units one operation uses, by dimension (absent = 0). */
export type Usage = Readonly<Partial<Record<PerUseDimension, number>>>;

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

/**
 * A usage divided by a number of operations (totals of a run → usage per operation).
 *
 * @throws {RangeError} for a number of operations that is not a positive integer
 */
export function usagePerOperation(usage: Usage, operations: number): Usage {
  if (!Number.isInteger(operations) || operations <= 0) {
    throw new RangeError(`operations must be a positive integer, got ${operations}`);
  }
  return Object.fromEntries(Object.entries(usage).map(([dimension, units]) => [dimension, units / operations]));
}
