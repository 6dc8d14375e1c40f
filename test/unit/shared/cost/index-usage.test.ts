import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { costPerMillion } from '../../../../shared/cost/cost-per-million';
import {
  DEPLOYMENT_COMMIT_WCU,
  type IndexLoad,
  indexDepth,
  indexNodesPerChangedKey,
  indexTilesPerChangedKey,
  indexTilesPerPath,
  indexUsagePerWrite,
  integratorUsage,
  SPARSE_INDEX_LOAD,
  sealerIndexUsage,
  TILE_READ_UNITS,
  TILE_WRITE_UNITS,
} from '../../../../shared/cost/index-usage';
import { PriceTableSchema } from '../../../../shared/cost/price-table';

const ROOT = join(import.meta.dirname, '..', '..', '..', '..');
const prices = PriceTableSchema.parse(JSON.parse(readFileSync(join(ROOT, 'bench', 'prices.json'), 'utf8')));

describe('the index share of a write (docs/infrastructure.md, "Cost and quotas")', () => {
  it('docs/sealing.md "The index floor": about 8 read units for a run of one write at 10^6 keys, tiles read eventually consistent', () => {
    expect(indexDepth(1e6)).toBeCloseTo(21.2, 1);
    // Six tiles of 4 levels per path at 10^6 keys, half a read unit each (docs/verifiable-index.md, "Tiles").
    expect(indexTilesPerPath(1e6)).toBeCloseTo(5.93, 2);
    const reads = sealerIndexUsage(SPARSE_INDEX_LOAD).dynamodbReadRequestUnit ?? 0;
    expect(reads).toBeGreaterThan(7.5);
    expect(reads).toBeLessThan(8.5);
    // A run of ten writes shares the head and the lineage's path: each write reads its own residual path.
    const run = sealerIndexUsage({ ...SPARSE_INDEX_LOAD, writesPerRun: 10 }).dynamodbReadRequestUnit ?? 0;
    expect(run).toBeCloseTo((2 + TILE_READ_UNITS * indexTilesPerPath(1e6) * 11) / 10, 6);
  });

  it("the tiles per path and per changed key are bench/index.ts's at 10^5 and 10^6 keys, within a tenth", () => {
    expect(indexTilesPerPath(1e5)).toBeCloseTo(5.14, 0);
    expect(indexTilesPerPath(1e6)).toBeCloseTo(5.97, 0);
    for (const [keys, changed, measured] of [
      [1e5, 1, 5.13],
      [1e5, 50, 3.44],
      [1e5, 1000, 2.38],
      [1e6, 1, 6.0],
      [1e6, 50, 4.36],
      [1e6, 1000, 3.23],
    ] as const) {
      expect(Math.abs(indexTilesPerChangedKey(keys, changed) - measured) / measured).toBeLessThan(0.1);
    }
  });

  it("the nodes per changed key are bench/index.ts's measured node writes (18.92, 13.49, 9.16 at 10^5 keys)", () => {
    expect(indexNodesPerChangedKey(1e5, 1)).toBeCloseTo(18.92, 0);
    expect(indexNodesPerChangedKey(1e5, 50)).toBeCloseTo(13.49, 0);
    expect(indexNodesPerChangedKey(1e5, 1000)).toBeCloseTo(9.16, 0);
    expect(indexNodesPerChangedKey(10, 1e6)).toBe(1); // never less than the leaf itself
  });

  it("the integrator's work is one integration's, divided by its writes", () => {
    const load: IndexLoad = { ...SPARSE_INDEX_LOAD, witnesses: 1 };
    const usage = integratorUsage(load);
    const keys = load.writesPerIntegration + load.lineagesPerIntegration;
    const tiles = keys * indexTilesPerChangedKey(load.indexKeys, keys);
    expect(usage.dynamodbWriteRequestUnit).toBeCloseTo((TILE_WRITE_UNITS * tiles + DEPLOYMENT_COMMIT_WCU + 1) / 100, 9);
    expect(usage.kmsAsymmetricRequest).toBeCloseTo(2 / 100, 9); // the log key's and the witness's Sign
    // One SendMessageBatch of notices per sealer invocation (17.5), the poller's two calls.
    expect(usage.sqsStandardRequest).toBeCloseTo((17.5 + 2) / 100, 9);
    // Twice the writes per interval: the fixed part halves, the shared path levels grow.
    const busier = integratorUsage({ ...load, writesPerIntegration: 200, lineagesPerIntegration: 100 });
    expect(busier.kmsAsymmetricRequest).toBeCloseTo(1 / 100, 9);
    expect(busier.dynamodbWriteRequestUnit ?? 0).toBeLessThan(usage.dynamodbWriteRequestUnit ?? 0);
  });

  it('the sealed-run notices: one SendMessageBatch per sealer invocation, never more than one request per run', () => {
    const load: IndexLoad = { ...SPARSE_INDEX_LOAD, sealerInvocationsPerIntegration: undefined };
    expect(integratorUsage(load).sqsStandardRequest).toBeCloseTo((100 + 2) / 100, 9); // one per run, as before batches
    expect(integratorUsage({ ...load, sealerInvocationsPerIntegration: 13 }).sqsStandardRequest).toBeCloseTo(0.15, 9);
    expect(
      integratorUsage({ ...load, writesPerRun: 4, sealerInvocationsPerIntegration: 80 }).sqsStandardRequest,
    ).toBeCloseTo((25 + 2) / 100, 9);
  });

  it("the integrator's VerifyMac: one per distinct head-state MAC, a sealer invocation's batch covering its heads", () => {
    const load: IndexLoad = { ...SPARSE_INDEX_LOAD, sealerInvocationsPerIntegration: undefined };
    expect(integratorUsage(load).kmsSymmetricRequest).toBeCloseTo(50 / 100, 9); // one per lineage, as before batches
    expect(integratorUsage({ ...load, sealerInvocationsPerIntegration: 13 }).kmsSymmetricRequest).toBeCloseTo(0.13, 9);
    // Never more than one per lineage, whatever the invocations.
    expect(integratorUsage({ ...load, sealerInvocationsPerIntegration: 80 }).kmsSymmetricRequest).toBeCloseTo(0.5, 9);
  });

  it("the sparse scenario at 10^6 keys: about 6.4 WCU, 14 RCU and the integrator's 0.175 VerifyMac, about $7.0 per million writes", () => {
    const usage = indexUsagePerWrite(SPARSE_INDEX_LOAD);
    expect(usage.dynamodbWriteRequestUnit).toBeGreaterThan(5.5);
    expect(usage.dynamodbWriteRequestUnit).toBeLessThan(7);
    expect(usage.dynamodbReadRequestUnit).toBeGreaterThan(13);
    expect(usage.dynamodbReadRequestUnit).toBeLessThan(15.5);
    // The integrator's proof items are read eventually consistent: half a unit each.
    const withoutProofs = integratorUsage({ ...SPARSE_INDEX_LOAD, proofItemsPerLineage: 0 });
    const withProofs = integratorUsage({ ...SPARSE_INDEX_LOAD, proofItemsPerLineage: 10 });
    expect((withProofs.dynamodbReadRequestUnit ?? 0) - (withoutProofs.dynamodbReadRequestUnit ?? 0)).toBeCloseTo(
      (SPARSE_INDEX_LOAD.lineagesPerIntegration * 10 * 0.5) / SPARSE_INDEX_LOAD.writesPerIntegration,
      9,
    );
    // One `VerifyMac` per sealer invocation's batch MAC: 17.5 invocations (5.7 writes each), 100 writes.
    expect(SPARSE_INDEX_LOAD.sealerInvocationsPerIntegration).toBeCloseTo(17.5, 9);
    expect(usage.kmsSymmetricRequest).toBeCloseTo(0.175, 9);
    const cost = costPerMillion(usage, prices);
    expect(cost.usdPerMillion).toBeGreaterThan(6.5);
    expect(cost.usdPerMillion).toBeLessThan(7.5);
  });

  it('refuses a load that is not finite and positive', () => {
    expect(() => indexUsagePerWrite({ ...SPARSE_INDEX_LOAD, writesPerIntegration: 0 })).toThrow(RangeError);
    expect(() => indexUsagePerWrite({ ...SPARSE_INDEX_LOAD, indexKeys: Number.NaN })).toThrow(RangeError);
    expect(() => sealerIndexUsage({ ...SPARSE_INDEX_LOAD, writesPerRun: -1 })).toThrow(RangeError);
  });
});
