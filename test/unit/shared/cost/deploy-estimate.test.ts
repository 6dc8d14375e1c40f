import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { costPerMillion } from '../../../../shared/cost/cost-per-million';
import { deployEstimate } from '../../../../shared/cost/deploy-estimate';
import {
  MEASURED_USAGE,
  SPARSE_GUARD_INVOCATIONS_PER_WRITE,
  SPARSE_GUARD_RECEIVE_UNITS_PER_WRITE,
} from '../../../../shared/cost/measured-usage';
import { PriceTableSchema } from '../../../../shared/cost/price-table';
import { addUsage } from '../../../../shared/cost/usage';

const ROOT = join(import.meta.dirname, '..', '..', '..', '..');
const prices = PriceTableSchema.parse(JSON.parse(readFileSync(join(ROOT, 'bench', 'prices.json'), 'utf8')));

describe('deployEstimate (docs/infrastructure.md, "What a deployment costs")', () => {
  it("prices the bench's measured write with the index's modelled share, the recall, and the template's keys and alarms a month", () => {
    const estimate = deployEstimate(prices, { kmsKeyMonth: 3, cloudWatchAlarmMonth: 3 });
    const sealed = addUsage(MEASURED_USAGE.write, MEASURED_USAGE.index);
    expect(estimate.write).toEqual(costPerMillion(addUsage(sealed, MEASURED_USAGE.guard.unbatched), prices));
    expect(estimate.writeWithGuardWindow).toEqual(
      costPerMillion(addUsage(sealed, MEASURED_USAGE.guard.batched), prices),
    );
    expect(estimate.index).toEqual(costPerMillion(MEASURED_USAGE.index, prices));
    expect(estimate.recall).toEqual(costPerMillion(MEASURED_USAGE.recall, prices));
    // The recorded bench run's sealer path and the index at 10^6 keys (bench/RESULTS.md,
    // "Notice-vouched heads, the sealer's copies of the head and the guard's CPU"): about $13.3 per
    // million sparse writes with the stack's default, no guard window, and $11.6 with a 1 s window
    // ($13.4 and $11.7 while the integrator read every lineage's proof items; $14.0 and $12.5 while
    // it verified every head's MAC, the sealer read its heads strongly and the guard validated the
    // large bodies with the schema; $17.4 before a residual id's path shared its lineage's first 16
    // bits, one event per sealer invocation and the cheaper outcome proof), $4.41 of it the index in
    // tiles (docs/infrastructure.md, "The index's share").
    expect(estimate.write.usdPerMillion).toBeCloseTo(13.32, 1);
    expect(estimate.writeWithGuardWindow.usdPerMillion).toBeCloseTo(11.64, 1);
    // The symmetric requests: the sealer invocation's two `GenerateMac`, one for all its records and
    // one for all its head states (0.175 invocations a write, measured: 0.35), no `VerifyMac` of the
    // head it stored itself
    // (docs/verifiable-log.md, "Appending"), and the integrator's `VerifyMac` of each distinct
    // head-state MAC once per integration, of the heads past the batch's notices only (17.5 sealer
    // invocations, 100 writes, one head in five: 0.035 a write; docs/deployment-log.md,
    // "Integration", step 2).
    expect(MEASURED_USAGE.write.kmsSymmetricRequest).toBeCloseTo(0.35, 9);
    expect(estimate.write.lines.find((l) => l.dimension === 'kmsSymmetricRequest')?.units).toBeCloseTo(0.385, 9);
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
    expect(estimate.writeWithGuardWindow.lines.find((l) => l.dimension === 'lambdaRequest')?.units).toBeCloseTo(
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
    expect(estimate.index.usdPerMillion).toBeCloseTo(4.41, 1);
    expect(estimate.recall.usdPerMillion).toBeCloseTo(6.73, 2);
    expect(estimate.monthly.usdPerMonth).toBeCloseTo(3.3, 6);
    expect(estimate.region).toBe('us-east-1');
    expect(estimate.priceDates).toEqual(['2026-12-05']);
    expect(estimate.priceSources).toContain('https://aws.amazon.com/kms/pricing/');
    expect(estimate.usageSource).toBe(MEASURED_USAGE.source);
  });

  it('refuses a negative resource count', () => {
    expect(() => deployEstimate(prices, { kmsKeyMonth: -1, cloudWatchAlarmMonth: 0 })).toThrow(RangeError);
  });
});
