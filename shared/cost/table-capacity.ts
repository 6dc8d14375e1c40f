/**
 * How the lineage table's reads and writes are billed (docs/infrastructure.md, "Provisioned
 * capacity"): on demand, per request unit (the default), or provisioned, per capacity unit and
 * hour, auto scaled to a target utilization. Pure: the stack builds the table from it and the
 * cost model prices a unit by it.
 */

/** The two ways a DynamoDB table is billed, as the stack's `tableCapacity` context names them. */
export const TABLE_CAPACITY_MODES = ['on-demand', 'provisioned'] as const;
/** One of {@link TABLE_CAPACITY_MODES}. */
export type TableCapacityMode = (typeof TABLE_CAPACITY_MODES)[number];

/**
 * The utilization, percent, that auto scaling keeps provisioned read and write capacity at: it
 * adds capacity when consumption stays above 70 % of it and removes it when well below, so about
 * 1 / 0.7 units are paid for each unit consumed (AWS's default target for DynamoDB auto scaling).
 */
export const CAPACITY_TARGET_UTILIZATION_PERCENT = 70;
/** Least read and least write capacity units a provisioned table keeps, idle or not. */
export const DEFAULT_TABLE_MIN_CAPACITY = 5;
/** Most read and most write capacity units auto scaling may set: 40,000, DynamoDB's default per-table quota. */
export const DEFAULT_TABLE_MAX_CAPACITY = 40_000;

/** The lineage table's billing: on demand, or provisioned between a minimum and a maximum (units, read and write alike). */
export type TableCapacity =
  | { readonly mode: 'on-demand' }
  | { readonly mode: 'provisioned'; readonly minCapacity: number; readonly maxCapacity: number };

/**
 * A {@link TableCapacity} from the stack's settings (context `tableCapacity`, `tableMinCapacity`,
 * `tableMaxCapacity`): the mode defaults to on demand, the bounds to
 * {@link DEFAULT_TABLE_MIN_CAPACITY} and {@link DEFAULT_TABLE_MAX_CAPACITY}. Bounds are whole
 * numbers of units, 1 or more, the minimum at most the maximum, and only for a provisioned table
 * (an on-demand one has no capacity to bound).
 *
 * @throws {Error} naming the setting and what it takes, for any other value
 */
export function tableCapacity(settings: {
  readonly mode?: string;
  readonly minCapacity?: number;
  readonly maxCapacity?: number;
}): TableCapacity {
  const mode = settings.mode ?? 'on-demand';
  if (!(TABLE_CAPACITY_MODES as readonly string[]).includes(mode)) {
    throw new Error(`tableCapacity: expected on-demand or provisioned, got ${JSON.stringify(mode)}`);
  }
  if (mode === 'on-demand') {
    if (settings.minCapacity !== undefined || settings.maxCapacity !== undefined) {
      throw new Error(
        'tableMinCapacity and tableMaxCapacity need tableCapacity provisioned (on demand has no capacity)',
      );
    }
    return { mode: 'on-demand' };
  }
  const minCapacity = settings.minCapacity ?? DEFAULT_TABLE_MIN_CAPACITY;
  const maxCapacity = settings.maxCapacity ?? DEFAULT_TABLE_MAX_CAPACITY;
  for (const [name, value] of [
    ['tableMinCapacity', minCapacity],
    ['tableMaxCapacity', maxCapacity],
  ] as const) {
    if (!Number.isSafeInteger(value) || value < 1) {
      throw new Error(`${name}: expected a whole number of capacity units, 1 or more, got ${value}`);
    }
  }
  if (minCapacity > maxCapacity) {
    throw new Error(`tableMinCapacity ${minCapacity} is above tableMaxCapacity ${maxCapacity}`);
  }
  return { mode: 'provisioned', minCapacity, maxCapacity };
}
