import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { costPerMillion } from '../../../../shared/cost/cost-per-million';
import {
  DEPLOYMENT_COMMIT_WCU,
  DEPLOYMENT_HEAD_READ_UNITS,
  type IndexLoad,
  indexDepth,
  indexNodesPerChangedKey,
  indexSharedDepth,
  indexTilesPerChangedKey,
  indexTilesPerIntegration,
  indexTilesPerPath,
  indexUsagePerWrite,
  integratorUsage,
  MANIFEST_ITEM_READ_UNITS,
  MEASURED_SEALER_HEAD_READ_UNITS,
  PROOF_ITEM_READ_UNITS,
  PROOF_ITEMS_PER_LINEAGE,
  RECORD_ITEM_BYTES,
  SEALER_CONSISTENCY_PROOF_ITEMS,
  SPARSE_HEADS_VERIFIED_WITH_KMS,
  SPARSE_INDEX_LOAD,
  SPARSE_WARM_LINEAGES,
  sealerIndexUsage,
  sparseIndexLoad,
  TILE_READ_UNITS,
  TILE_WRITE_UNITS,
} from '../../../../shared/cost/index-usage';
import { PriceTableSchema } from '../../../../shared/cost/price-table';
import { consistencyProofRefs } from '../../../../shared/log/consistency-proof';
import { lastLeafOf } from '../../../../shared/log/last-leaf';

const ROOT = join(import.meta.dirname, '..', '..', '..', '..');
const prices = PriceTableSchema.parse(JSON.parse(readFileSync(join(ROOT, 'bench', 'prices.json'), 'utf8')));

describe('the index share of a write (docs/infrastructure.md, "Cost and quotas")', () => {
  it('docs/sealing.md "The index floor": the tiles of one path at 10^6 keys, a residual id sharing its lineage\'s down to depth 16', () => {
    expect(indexDepth(1e6)).toBeCloseTo(21.2, 1);
    // Six tiles of 4 levels per path at 10^6 keys, half a read unit each (docs/verifiable-index.md, "Tiles").
    expect(indexTilesPerPath(1e6)).toBeCloseTo(5.93, 2);
    // A run of one write walks its lineage's key and its residual id together: they part at depth
    // 16 + log2 2 = 17 of 22.44, so 17 / 4 + 5 / 8 + 2 × 5.44 / 4 = 7.59 tiles (bench/index.ts at
    // 10^6 keys measured 6.96; 11.9 with independent paths).
    const depth = indexSharedDepth(1e6, 50_000);
    expect(depth).toBeCloseTo(22.44, 2);
    expect(indexTilesPerIntegration(1e6, 50_000, 1, 2)).toBeCloseTo(7.595, 3);
  });

  it('docs/sealing.md "The index floor": an invocation reads the deployment head once, each run its consistency proof, its runs\' paths walked together', () => {
    // By hand, the sparse scenario: R = 100 runs / 17.5 invocations = 5.714 runs an invocation,
    // their paths sharing the top log2 R = 2.515 levels; a run's two keys part at depth 17 of
    // 22.44: (17 − 2.515) / 4 + 5 / 8 + 2 × (22.44 − 17) / 4 = 4.246 + 2.720 = 6.966 tiles a run.
    // A write: 1 / 5.714 (the head) + 7 × 0.5 (the consistency proof) + 6.966 × 0.5 (the tiles)
    // = 0.175 + 3.5 + 3.483 = 7.158 read units. The per-run formula gave 5.922 (2 read units of
    // head and proof a run, 7.84 tiles).
    expect(SPARSE_INDEX_LOAD.sealerInvocationsPerIntegration).toBeCloseTo(17.5, 9);
    const tiles = indexTilesPerIntegration(1e6, 50_000, 100 / 17.5, 2);
    expect(tiles / (100 / 17.5)).toBeCloseTo(6.966, 3);
    const reads = (load: IndexLoad) => sealerIndexUsage(load).dynamodbReadRequestUnit ?? 0;
    expect(reads(SPARSE_INDEX_LOAD)).toBeCloseTo(7.158, 3);
    expect(reads(SPARSE_INDEX_LOAD)).toBeCloseTo(
      (DEPLOYMENT_HEAD_READ_UNITS + (100 / 17.5) * SEALER_CONSISTENCY_PROOF_ITEMS * PROOF_ITEM_READ_UNITS) /
        (100 / 17.5) +
        (TILE_READ_UNITS * tiles) / (100 / 17.5),
      9,
    );
    // Each run an invocation of its own (no sealerInvocationsPerIntegration): the head, the proof
    // and the 7.595 tiles a run, 1 + 3.5 + 3.797 = 8.297.
    const alone: IndexLoad = { ...SPARSE_INDEX_LOAD, sealerInvocationsPerIntegration: undefined };
    expect(reads(alone)).toBeCloseTo(8.297, 3);
    // Never fewer than one run an invocation, whatever the invocations.
    expect(reads({ ...alone, sealerInvocationsPerIntegration: 500 })).toBeCloseTo(reads(alone), 9);
    // A run of ten writes, alone: one head, one proof, its lineage's key and ten residual ids
    // parting at 16 + log2 11 = 19.46: 19.46 / 4 + 5 / 8 + 11 × 2.98 / 4 = 13.69 tiles;
    // (1 + 3.5 + 6.84) / 10 = 1.134 a write.
    expect(reads({ ...alone, writesPerRun: 10 })).toBeCloseTo(1.134, 3);
  });

  it("the sealer's consistency proof: about 7 record items for a lineage of 500 to 1,500 records one to three records past the index", () => {
    let items = 0;
    let proofs = 0;
    for (let size = 500; size < 1500; size++) {
      for (const ahead of [1, 2, 3]) {
        items += new Set(
          consistencyProofRefs(size, size + ahead)
            .flat()
            .map(lastLeafOf),
        ).size;
        proofs += 1;
      }
    }
    expect(Math.abs(items / proofs - SEALER_CONSISTENCY_PROOF_ITEMS)).toBeLessThan(0.1);
  });

  it("the sealer's deployment-head read is counted once: the measured write holds the bench's 0.105 read units of it", () => {
    // The bench's proxy counts every function's GetItem (0.105 sealer invocations a write at 18:53
    // UTC, one consistent head read each), so the share added to the measured write leaves them out.
    expect(MEASURED_SEALER_HEAD_READ_UNITS).toBe(0.105);
    expect(SPARSE_INDEX_LOAD.measuredSealerHeadReadUnits).toBe(MEASURED_SEALER_HEAD_READ_UNITS);
    const share = (load: IndexLoad) => indexUsagePerWrite(load).dynamodbReadRequestUnit ?? 0;
    const whole = (load: IndexLoad) =>
      (sealerIndexUsage(load).dynamodbReadRequestUnit ?? 0) + (integratorUsage(load).dynamodbReadRequestUnit ?? 0);
    expect(whole(SPARSE_INDEX_LOAD) - share(SPARSE_INDEX_LOAD)).toBeCloseTo(0.105, 9);
    const standalone: IndexLoad = { ...SPARSE_INDEX_LOAD, measuredSealerHeadReadUnits: undefined };
    expect(share(standalone)).toBeCloseTo(whole(standalone), 9);
    // Never more than the model's own head reads (0.175 a write).
    const more: IndexLoad = { ...SPARSE_INDEX_LOAD, measuredSealerHeadReadUnits: 5 };
    expect(whole(more) - share(more)).toBeCloseTo(0.175, 9);
    // Only the reads move.
    expect({ ...indexUsagePerWrite(standalone), dynamodbReadRequestUnit: 0 }).toEqual({
      ...indexUsagePerWrite(SPARSE_INDEX_LOAD),
      dynamodbReadRequestUnit: 0,
    });
  });

  it("a residual id's path under its lineage's first P bits: the model against bench/index.ts at 10^6 keys, within a tenth", () => {
    // bench/index.ts, 10^6 keys (50,000 lineages × 19 residual ids, plus the lineages), P = 0, 12,
    // 16, 20 (bench/RESULTS.md, "A residual id's key path under its lineage's"): the mean leaf
    // depth, and tiles written per changed key for the sparse write's integration (50 lineages
    // moving, 2 new residual ids of each: 150 keys) and for 150 keys of 150 lineages. The model
    // gives 21.2, 21.4, 22.4, 25.7; 4.11, 2.81, 2.42, 2.56; 4.13, 4.15, 4.43, 5.24.
    for (const [p, depth, sparse, unrelated] of [
      [0, 21.3, 3.94, 3.95],
      [12, 21.3, 2.79, 3.93],
      [16, 22.3, 2.32, 4.14],
      [20, 25.7, 2.55, 5.02],
    ] as const) {
      expect(Math.abs(indexSharedDepth(1e6, 50_000, p) - depth) / depth).toBeLessThan(0.1);
      expect(Math.abs(indexTilesPerIntegration(1e6, 50_000, 50, 3, p) / 150 - sparse) / sparse).toBeLessThan(0.1);
      expect(Math.abs(indexTilesPerIntegration(1e6, 50_000, 150, 1, p) / 150 - unrelated) / unrelated).toBeLessThan(
        0.1,
      );
    }
    // Independent paths (P = 0), or one key per lineage, are the formula of independent keys.
    expect(indexTilesPerIntegration(1e6, 50_000, 150, 1, 0)).toBeCloseTo(150 * indexTilesPerChangedKey(1e6, 150), 1);
    expect(indexSharedDepth(1e6, 50_000, 0)).toBeCloseTo(indexDepth(1e6), 1);
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
    const tiles = indexTilesPerIntegration(load.indexKeys, 50_000, load.lineagesPerIntegration, 3);
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
    // Every head through its MAC (no notice of the batch naming it): the share's default.
    const load: IndexLoad = {
      ...SPARSE_INDEX_LOAD,
      sealerInvocationsPerIntegration: undefined,
      headsVerifiedWithKms: undefined,
    };
    expect(integratorUsage(load).kmsSymmetricRequest).toBeCloseTo(50 / 100, 9); // one per lineage, as before batches
    expect(integratorUsage({ ...load, sealerInvocationsPerIntegration: 13 }).kmsSymmetricRequest).toBeCloseTo(0.13, 9);
    // Never more than one per lineage, whatever the invocations.
    expect(integratorUsage({ ...load, sealerInvocationsPerIntegration: 80 }).kmsSymmetricRequest).toBeCloseTo(0.5, 9);
  });

  it('docs/deployment-log.md "Integration", step 2: only heads past their notices carrying a KMS head-state MAC cost a VerifyMac; head-key MACs none', () => {
    const all: IndexLoad = { ...SPARSE_INDEX_LOAD, headsVerifiedWithKms: undefined };
    expect(integratorUsage(all).kmsSymmetricRequest).toBeCloseTo(0.175, 9); // 17.5 batch MACs, 100 writes
    expect(integratorUsage({ ...all, headsVerifiedWithKms: 1 }).kmsSymmetricRequest).toBeCloseTo(0.175, 9);
    expect(integratorUsage({ ...all, headsVerifiedWithKms: 0.2 }).kmsSymmetricRequest).toBeCloseTo(0.035, 9);
    // Counted: no VerifyMac once every head carries a head-key MAC.
    expect(SPARSE_HEADS_VERIFIED_WITH_KMS).toBe(0);
    expect(SPARSE_INDEX_LOAD.headsVerifiedWithKms).toBe(SPARSE_HEADS_VERIFIED_WITH_KMS);
    expect(integratorUsage(SPARSE_INDEX_LOAD).kmsSymmetricRequest).toBe(0);
    // $0.525 per million less than every head verified ($3 per 10,000 requests); nothing else moves.
    const saved = costPerMillion(integratorUsage(all), prices).usdPerMillion;
    expect(saved - costPerMillion(integratorUsage(SPARSE_INDEX_LOAD), prices).usdPerMillion).toBeCloseTo(0.525, 9);
    expect({ ...integratorUsage(all), kmsSymmetricRequest: 0 }).toEqual({
      ...integratorUsage(SPARSE_INDEX_LOAD),
      kmsSymmetricRequest: 0,
    });
    expect(() => integratorUsage({ ...all, headsVerifiedWithKms: 1.5 })).toThrow(RangeError);
    expect(() => integratorUsage({ ...all, headsVerifiedWithKms: -0.1 })).toThrow(RangeError);
  });

  it("the integrator's record and manifest reads: a Query of each lineage's new records by their 4 KB units, the manifest item of a cold lineage", () => {
    const reads = (load: IndexLoad) => integratorUsage(load).dynamodbReadRequestUnit ?? 0;
    const base = { ...SPARSE_INDEX_LOAD, warmLineages: 1 };
    // Two records of 2,000 bytes a lineage: one 4 KB unit, half a unit; ten records: five units.
    const twoRecords = reads(base);
    const tenRecords = reads({ ...base, writesPerIntegration: 500 });
    const tiles = (load: IndexLoad) =>
      (TILE_READ_UNITS * indexTilesPerIntegration(load.indexKeys, 50_000, 50, (50 + load.writesPerIntegration) / 50)) /
      load.writesPerIntegration;
    expect(twoRecords - tiles(base)).toBeCloseTo((1 + 50 * (1 + 0.5)) / 100, 9);
    expect(tenRecords - tiles({ ...base, writesPerIntegration: 500 })).toBeCloseTo((1 + 50 * (1 + 2.5)) / 500, 9);
    expect(RECORD_ITEM_BYTES).toBe(2_000);
    // A cold lineage adds its proof items and its manifest item.
    const cold = reads({ ...base, warmLineages: 0 });
    expect(cold - twoRecords).toBeCloseTo(
      (50 * (PROOF_ITEMS_PER_LINEAGE * PROOF_ITEM_READ_UNITS + MANIFEST_ITEM_READ_UNITS)) / 100,
      9,
    );
  });

  it('the sparse scenario at 10^6 keys: about 3.8 WCU, 9.9 RCU (a warm integrator reads few proof items) and no VerifyMac, about $4.4 per million writes', () => {
    const usage = indexUsagePerWrite(SPARSE_INDEX_LOAD);
    // 150 keys an integration: 2.42 tiles each modelled (bench/index.ts measured 2.32), 1.02 units a tile.
    expect(usage.dynamodbWriteRequestUnit).toBeGreaterThan(3.5);
    expect(usage.dynamodbWriteRequestUnit).toBeLessThan(4);
    // The sealer's 7.158 less the measured head reads' 0.105, and the integrator's 2.873: 2.573 of
    // heads, proof items and tiles, 0.25 of its Query of each lineage's two new records, 0.05 of
    // the cold lineages' manifest items.
    expect(usage.dynamodbReadRequestUnit).toBeCloseTo(7.158 - 0.105 + 2.573 + 0.25 + 0.05, 2);
    // The integrator's proof items are read eventually consistent: half a unit each (cold lineages).
    const cold: IndexLoad = { ...SPARSE_INDEX_LOAD, warmLineages: 0 };
    const withoutProofs = integratorUsage({ ...cold, proofItemsPerLineage: 0 });
    const withProofs = integratorUsage({ ...cold, proofItemsPerLineage: 10 });
    expect((withProofs.dynamodbReadRequestUnit ?? 0) - (withoutProofs.dynamodbReadRequestUnit ?? 0)).toBeCloseTo(
      (SPARSE_INDEX_LOAD.lineagesPerIntegration * 10 * 0.5) / SPARSE_INDEX_LOAD.writesPerIntegration,
      9,
    );
    // One `VerifyMac` per sealer invocation's batch MAC: 17.5 invocations (5.7 writes each), 100
    // writes, of the heads past the batch's notices only (one in five, the dearer of the bench's two counts).
    expect(SPARSE_INDEX_LOAD.sealerInvocationsPerIntegration).toBeCloseTo(17.5, 9);
    expect(usage.kmsSymmetricRequest).toBe(0);
    const cost = costPerMillion(usage, prices);
    expect(cost.usdPerMillion).toBeGreaterThan(4);
    expect(cost.usdPerMillion).toBeLessThan(5);
  });

  it('docs/deployment-log.md "A warm integrator": a lineage integrated warm reads no proof item; the sparse share is 0.9', () => {
    const cold: IndexLoad = { ...SPARSE_INDEX_LOAD, warmLineages: undefined };
    const proofUnits =
      (SPARSE_INDEX_LOAD.lineagesPerIntegration * PROOF_ITEMS_PER_LINEAGE * PROOF_ITEM_READ_UNITS) / 100;
    const reads = (load: IndexLoad) => integratorUsage(load).dynamodbReadRequestUnit ?? 0;
    expect(reads({ ...cold, warmLineages: 0 })).toBeCloseTo(reads(cold), 9); // default: every lineage cold
    // Its proof items and its manifest item (kept by a warm integrator, as the frontier is).
    const manifestUnits = (SPARSE_INDEX_LOAD.lineagesPerIntegration * MANIFEST_ITEM_READ_UNITS) / 100;
    expect(reads(cold) - reads({ ...cold, warmLineages: 1 })).toBeCloseTo(proofUnits + manifestUnits, 9);
    expect(SPARSE_WARM_LINEAGES).toBe(0.9);
    expect(SPARSE_INDEX_LOAD.warmLineages).toBe(SPARSE_WARM_LINEAGES);
    expect(reads(cold) - reads(SPARSE_INDEX_LOAD)).toBeCloseTo(0.9 * (proofUnits + manifestUnits), 9);
    // Only the proof and manifest items' reads move.
    expect({ ...integratorUsage(cold), dynamodbReadRequestUnit: 0 }).toEqual({
      ...integratorUsage(SPARSE_INDEX_LOAD),
      dynamodbReadRequestUnit: 0,
    });
    expect(() => integratorUsage({ ...cold, warmLineages: 1.5 })).toThrow(RangeError);
    expect(() => integratorUsage({ ...cold, warmLineages: -0.1 })).toThrow(RangeError);
  });

  it('models the sparse scenario at any integration interval: 50 writes a second × the interval per integration', () => {
    expect(sparseIndexLoad(2)).toEqual(SPARSE_INDEX_LOAD);
    const ten = sparseIndexLoad(10);
    expect(ten).toMatchObject({ writesPerIntegration: 500, lineagesPerIntegration: 50, writesPerRun: 1 });
    expect(ten.sealerInvocationsPerIntegration).toBeCloseTo(87.5, 9);
    // The integration's fixed work spread over five times the writes: its two `Sign`s, its invocation.
    expect(indexUsagePerWrite(ten).kmsAsymmetricRequest).toBeCloseTo(2 / 500, 9);
    expect(indexUsagePerWrite(ten).lambdaArmGbSecond).toBeCloseTo(2.7 / 500, 9);
    for (const bad of [0, 1.5, -2, Number.NaN]) expect(() => sparseIndexLoad(bad)).toThrow(RangeError);
  });

  it('refuses a load that is not finite and positive', () => {
    expect(() => indexUsagePerWrite({ ...SPARSE_INDEX_LOAD, writesPerIntegration: 0 })).toThrow(RangeError);
    expect(() => indexUsagePerWrite({ ...SPARSE_INDEX_LOAD, indexKeys: Number.NaN })).toThrow(RangeError);
    expect(() => sealerIndexUsage({ ...SPARSE_INDEX_LOAD, writesPerRun: -1 })).toThrow(RangeError);
  });
});
