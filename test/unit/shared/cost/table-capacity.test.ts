import { describe, expect, it } from 'vitest';
import {
  CAPACITY_TARGET_UTILIZATION_PERCENT,
  DEFAULT_TABLE_MAX_CAPACITY,
  DEFAULT_TABLE_MIN_CAPACITY,
  tableCapacity,
} from '../../../../shared/cost/table-capacity';

describe('tableCapacity (docs/infrastructure.md, "Provisioned capacity")', () => {
  it('defaults to on demand, and a provisioned table to 5 to 40,000 units at 70 % utilization', () => {
    expect(tableCapacity({})).toEqual({ mode: 'on-demand' });
    expect(tableCapacity({ mode: 'on-demand' })).toEqual({ mode: 'on-demand' });
    expect(tableCapacity({ mode: 'provisioned' })).toEqual({
      mode: 'provisioned',
      minCapacity: 5,
      maxCapacity: 40_000,
    });
    expect([DEFAULT_TABLE_MIN_CAPACITY, DEFAULT_TABLE_MAX_CAPACITY]).toEqual([5, 40_000]);
    expect(CAPACITY_TARGET_UTILIZATION_PERCENT).toBe(70);
    expect(tableCapacity({ mode: 'provisioned', minCapacity: 1, maxCapacity: 1 })).toEqual({
      mode: 'provisioned',
      minCapacity: 1,
      maxCapacity: 1,
    });
  });

  it('refuses another mode, bounds that are not whole units ≥ 1, a minimum above the maximum, and bounds on demand', () => {
    expect(() => tableCapacity({ mode: 'PROVISIONED' })).toThrow(/tableCapacity: expected on-demand or provisioned/);
    for (const bad of [0, -5, 2.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => tableCapacity({ mode: 'provisioned', minCapacity: bad })).toThrow(
        /tableMinCapacity: expected a whole number of capacity units, 1 or more/,
      );
      expect(() => tableCapacity({ mode: 'provisioned', maxCapacity: bad })).toThrow(/tableMaxCapacity: expected/);
    }
    expect(() => tableCapacity({ mode: 'provisioned', minCapacity: 100, maxCapacity: 50 })).toThrow(
      /tableMinCapacity 100 is above tableMaxCapacity 50/,
    );
    // The default maximum bounds a minimum given alone.
    expect(() => tableCapacity({ mode: 'provisioned', minCapacity: 40_001 })).toThrow(/above tableMaxCapacity 40000/);
    expect(() => tableCapacity({ minCapacity: 5 })).toThrow(/need tableCapacity provisioned/);
    expect(() => tableCapacity({ mode: 'on-demand', maxCapacity: 5 })).toThrow(/need tableCapacity provisioned/);
  });
});
