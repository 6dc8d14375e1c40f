import { CAPACITY_TARGET_UTILIZATION_PERCENT } from './table-capacity';

/** Hours a month the cost model bills provisioned capacity for: AWS's 730 (365 × 24 / 12). */
export const HOURS_A_MONTH = 730;

/**
 * Capacity-unit-hours that `units` consumed request units cost on a provisioned table
 * (docs/infrastructure.md, "Provisioned capacity"): `units / 3600 / u`, u the target utilization.
 * Why: capacity is billed by the hour whether used or not, one unit a second for an hour;
 * auto scaling keeps consumption near its target, so each consumed unit carries `1 / u` units of
 * capacity; bursts above the capacity are throttled and retried (the SDK backs off) until it
 * scales, which takes minutes, so the model prices none of them dearer. A read unit and a
 * write unit are the same size on either billing (one 4 KB strongly consistent read or two
 * eventually consistent ones, one 1 KB write; transactions twice), so the bench's counts carry over.
 *
 * @param utilizationPercent the target, percent, 1 to 100 (default {@link CAPACITY_TARGET_UTILIZATION_PERCENT})
 * @throws {RangeError} for a target outside 1 to 100
 */
export function capacityUnitHours(units: number, utilizationPercent = CAPACITY_TARGET_UTILIZATION_PERCENT): number {
  if (!(utilizationPercent >= 1 && utilizationPercent <= 100)) {
    throw new RangeError(`utilizationPercent must be 1 to 100, got ${utilizationPercent}`);
  }
  return units / 3600 / (utilizationPercent / 100);
}
