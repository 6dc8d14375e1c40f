import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { costPerMillion } from '../../../../shared/cost/cost-per-million';
import {
  DEPLOY_ALTERNATIVES,
  type DeployEstimate,
  deployEstimate,
  TARGET_USD_PER_MILLION_WRITES,
} from '../../../../shared/cost/deploy-estimate';
import { DEFAULT_DEPLOY_SETTINGS, type DeploySettings } from '../../../../shared/cost/deploy-settings';
import { indexUsagePerWrite, sparseIndexLoad } from '../../../../shared/cost/index-usage';
import {
  MEASURED_USAGE,
  SPARSE_GUARD_INVOCATIONS_PER_WRITE,
  SPARSE_GUARD_RECEIVE_UNITS_PER_WRITE,
} from '../../../../shared/cost/measured-usage';
import { PriceTableSchema } from '../../../../shared/cost/price-table';
import { addUsage } from '../../../../shared/cost/usage';

const ROOT = join(import.meta.dirname, '..', '..', '..', '..');
const prices = PriceTableSchema.parse(JSON.parse(readFileSync(join(ROOT, 'bench', 'prices.json'), 'utf8')));

/** The priced row `id` of the estimate's alternatives. */
const row = (estimate: DeployEstimate, id: string) => {
  const found = estimate.alternatives.find((a) => a.id === id);
  if (!found) throw new Error(`no row ${id}`);
  return found;
};
const provisioned = { mode: 'provisioned', minCapacity: 5, maxCapacity: 40_000 } as const;

describe('deployEstimate (docs/infrastructure.md, "What a deployment costs")', () => {
  it("prices the bench's measured write with the index's modelled share, the recall, and the template's keys and alarms a month", () => {
    const estimate = deployEstimate(prices, { kmsKeyMonth: 3, cloudWatchAlarmMonth: 3 });
    expect(estimate.settings).toEqual(DEFAULT_DEPLOY_SETTINGS);
    const sealed = addUsage(MEASURED_USAGE.write, MEASURED_USAGE.index);
    expect(estimate.write).toEqual(costPerMillion(addUsage(sealed, MEASURED_USAGE.guard.unbatched), prices));
    expect(row(estimate, 'defaults').write).toEqual(estimate.write);
    const windowed = row(estimate, 'guardWindow').write;
    expect(windowed).toEqual(costPerMillion(addUsage(sealed, MEASURED_USAGE.guard.batched), prices));
    expect(estimate.index).toEqual(costPerMillion(MEASURED_USAGE.index, prices));
    expect(estimate.recall).toEqual(costPerMillion(MEASURED_USAGE.recall, prices));
    // The recorded bench runs' sealer and client paths and the index at 10^6 keys (bench/RESULTS.md,
    // "Heads MAC'd under the notice data key"): about $12.8 per million sparse writes with the
    // stack's default, no guard window, and $11.1 with a 1 s window ($13.3 and $11.6 with a
    // head-state GenerateMac per sealer invocation and the integrator's VerifyMac of the heads past
    // their notices; $17.4 before a residual id's path shared its lineage's first 16 bits, one
    // event per sealer invocation and the cheaper outcome proof), $4.34 of it the index in tiles
    // (docs/infrastructure.md, "The index's share").
    expect(estimate.write.usdPerMillion).toBeCloseTo(12.79, 1);
    expect(windowed.usdPerMillion).toBeCloseTo(11.11, 1);
    // The symmetric requests: the sealer invocation's one `GenerateMac`, for all its records (0.175
    // invocations a write); its heads are MAC'd in process under its data key, no `VerifyMac` of
    // the heads it extends, and no integrator `VerifyMac` (docs/verifiable-log.md, "Appending";
    // docs/deployment-log.md, "Integration", step 2).
    expect(MEASURED_USAGE.write.kmsSymmetricRequest).toBeCloseTo(0.175, 9);
    expect(estimate.write.lines.find((l) => l.dimension === 'kmsSymmetricRequest')?.units).toBeCloseTo(0.175, 9);
    // The guard's share as the bench counted it: about one message an invocation without a window
    // (0.9 invocations a write), 7.7 with its 1 s window emulated (docs/infrastructure.md, "The
    // guard's batching window"): its pollers' receive units and delete, its forward to the FIFO
    // queue and its Lambda request.
    expect(SPARSE_GUARD_INVOCATIONS_PER_WRITE).toBe(0.13);
    expect(MEASURED_USAGE.guard.batched.sqsStandardRequest).toBeCloseTo(
      SPARSE_GUARD_RECEIVE_UNITS_PER_WRITE + SPARSE_GUARD_INVOCATIONS_PER_WRITE,
      9,
    );
    expect(MEASURED_USAGE.guard.unbatched.lambdaRequest).toBe(0.9);
    expect(estimate.write.lines.find((l) => l.dimension === 'lambdaRequest')?.units).toBeCloseTo(
      0.9 + 0.175 + (MEASURED_USAGE.index.lambdaRequest ?? 0),
      9,
    );
    expect(windowed.lines.find((l) => l.dimension === 'lambdaRequest')?.units).toBeCloseTo(
      SPARSE_GUARD_INVOCATIONS_PER_WRITE + 0.175 + (MEASURED_USAGE.index.lambdaRequest ?? 0),
      9,
    );
    // One `ResidualSealed` event per sealer invocation, not per record (docs/pipeline.md, "Message shapes").
    expect(MEASURED_USAGE.write.eventBridgeCustomEvent).toBeCloseTo(0.175, 9);
    // The append as built: 4 WCU (record 2, head 1, marker 1) besides the index's tile writes.
    expect(MEASURED_USAGE.write.dynamodbWriteRequestUnit).toBe(4);
    // No sealer `Sign` per write: the only asymmetric requests are the index's (the integrator's
    // and the witness's, one each per integration of 100 writes).
    expect(estimate.write.lines.find((l) => l.dimension === 'kmsAsymmetricRequest')?.units).toBeCloseTo(0.02, 9);
    expect(estimate.index.usdPerMillion).toBeCloseTo(4.34, 1);
    expect(estimate.recall.usdPerMillion).toBeCloseTo(6.73, 2);
    expect(estimate.monthly.usdPerMonth).toBeCloseTo(3.3, 6);
    expect(estimate.region).toBe('us-east-1');
    expect(estimate.priceDates).toEqual(['2026-12-05', '2026-12-06']);
    expect(estimate.priceSources).toContain('https://aws.amazon.com/kms/pricing/');
    expect(estimate.usageSource).toBe(MEASURED_USAGE.source);
  });

  it('prices the settings being deployed, and the alternatives against the $5 target (docs/infrastructure.md, "Provisioned capacity")', () => {
    const resources = { kmsKeyMonth: 5, cloudWatchAlarmMonth: 4 };
    const defaults = deployEstimate(prices, resources);
    const at = (settings: DeploySettings) => deployEstimate(prices, resources, settings);
    // Every row is priced as a deployment with its settings would be, and the rows are the same
    // whatever is deployed.
    for (const alternative of DEPLOY_ALTERNATIVES) {
      const deployed = at(alternative.settings);
      expect(deployed.write).toEqual(row(defaults, alternative.id).write);
      expect(deployed.alternatives).toEqual(defaults.alternatives);
    }
    expect(defaults.alternatives.map((a) => a.id)).toEqual([
      'defaults',
      'guardWindow',
      'provisioned',
      'longerInterval',
      'longestInterval',
    ]);
    expect(defaults.targetUsdPerMillionWrites).toBe(5);

    // Provisioned (the guard's 1 s window on): the same counts, DynamoDB's units priced per
    // capacity-unit-hour at 70 % utilization. Writes 7.768 units a write (the append's 4, the
    // index's 3.768) × $0.00065 / 3600 / 0.7 = $0.2579 per million units: $2.004 (on demand
    // $4.855); reads 24.726 units × $0.00013 / 3600 / 0.7 = $0.05159 per million: $1.276 (on demand
    // $3.091). $11.108 − ($4.855 + $3.091) + ($2.004 + $1.276) = $6.44 per million writes.
    const capacity = at(row(defaults, 'provisioned').settings);
    const units = (cost: DeployEstimate['write'], dimension: string) =>
      cost.lines.find((l) => l.dimension === dimension)?.units ?? 0;
    expect(units(capacity.write, 'dynamodbWriteCapacityUnitHour')).toBeCloseTo(7.768254 / 3600 / 0.7, 9);
    expect(units(capacity.write, 'dynamodbReadCapacityUnitHour')).toBeCloseTo(24.726 / 3600 / 0.7, 6);
    expect(units(capacity.write, 'dynamodbWriteRequestUnit')).toBe(0);
    expect(capacity.write.usdPerMillion).toBeCloseTo(6.44, 2);
    // The minimum capacity is paid whatever the traffic: 5 RCU and 5 WCU × 730 h, $0.4745 + $2.3725.
    expect(row(defaults, 'provisioned').usdPerMonthCapacity).toBeCloseTo(2.847, 9);
    expect(capacity.monthly.usdPerMonth).toBeCloseTo(5.4 + 2.847, 9);
    expect(capacity.monthly.lines.slice(2)).toEqual([
      { dimension: 'dynamodbReadCapacityUnitHour', units: 3650, usd: expect.closeTo(0.4745, 9) },
      { dimension: 'dynamodbWriteCapacityUnitHour', units: 3650, usd: expect.closeTo(2.3725, 9) },
    ]);
    // A recall's units are priced as the table is billed: its 2 WCU and 8.333 RCU, $1.25 + $1.04
    // on demand, $0.516 + $0.430 provisioned: $6.73 → $5.38.
    expect(capacity.recall.usdPerMillion).toBeCloseTo(5.39, 2);

    // A 10 s interval: 500 writes an integration, not 100, so its fixed work (the two `Sign`s, the
    // commit, the invocation's 2.7 GB-s) and the upper tiles its 50 lineages share are spread over
    // five times the writes: the index's share on demand $4.34 → $2.01, and with the window and a
    // provisioned table $5.16 per million writes, 1.03× the target; at 30 s, $4.86, 0.97×: the
    // first row at or under the target.
    expect(indexUsagePerWrite(sparseIndexLoad(10)).kmsAsymmetricRequest).toBeCloseTo(2 / 500, 9);
    const longer = at({ ...DEFAULT_DEPLOY_SETTINGS, guardBatchingWindowSeconds: 1, integrationIntervalSeconds: 10 });
    expect(longer.index.usdPerMillion).toBeCloseTo(2.01, 2);
    expect(longer.write.usdPerMillion).toBeCloseTo(8.78, 2);
    expect(row(defaults, 'longerInterval').write.usdPerMillion).toBeCloseTo(5.16, 2);
    expect(row(defaults, 'longestInterval').write.usdPerMillion).toBeCloseTo(4.86, 2);
    expect(row(defaults, 'longestInterval').write.usdPerMillion).toBeLessThanOrEqual(TARGET_USD_PER_MILLION_WRITES);
    expect(row(defaults, 'longestInterval').settings).toEqual({
      guardBatchingWindowSeconds: 1,
      integrationIntervalSeconds: 30,
      tableCapacity: provisioned,
    });
    expect(row(defaults, 'longerInterval').settings).toEqual({
      guardBatchingWindowSeconds: 1,
      integrationIntervalSeconds: 10,
      tableCapacity: provisioned,
    });
    // Any window of 1 s or more is priced with the share the bench counted at 1 s.
    expect(at({ ...DEFAULT_DEPLOY_SETTINGS, guardBatchingWindowSeconds: 5 }).write).toEqual(
      row(defaults, 'guardWindow').write,
    );
  });

  it('refuses a negative resource count', () => {
    expect(() => deployEstimate(prices, { kmsKeyMonth: -1, cloudWatchAlarmMonth: 0 })).toThrow(RangeError);
  });
});
