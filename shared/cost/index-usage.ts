import { RESIDUAL_SHARED_PATH_BITS } from '../index/index-key';
import { INDEX_TILE_LEVELS } from '../index/index-tile';
import { addUsage, type Usage } from './usage';

/**
 * The deployment index's share of a write (docs/infrastructure.md, "Cost and quotas";
 * docs/deployment-log.md, "What changes for the sealer" and "Integration"): what the sealer reads
 * per invocation for its runs, and what the integrator does once per integration, amortized over the writes
 * of the interval. A model, not a count: the emulator bench's index holds a few hundred keys, so
 * its measured reads are those of a shallow tree; this gives the figures at a production index
 * size from the same shapes. Pure.
 */

/** What one integration interval of a deployment looks like. */
export interface IndexLoad {
  /** Keys in the verifiable index: one per lineage plus one per residual id ever sealed. */
  readonly indexKeys: number;
  /** Lineages in the verifiable index (default: `indexKeys / ` {@link DEFAULT_KEYS_PER_LINEAGE}). */
  readonly indexLineages?: number;
  /** Writes sealed in one integration interval (all lineages). */
  readonly writesPerIntegration: number;
  /** Distinct lineages those writes extend. */
  readonly lineagesPerIntegration: number;
  /** Writes per sealer run (consecutive writes to one lineage sealed together; 1 when sparse). */
  readonly writesPerRun: number;
  /**
   * Record items the integrator reads per lineage for its proofs (the consistency proof from the
   * indexed head and an inclusion proof per new record: one `BatchGetItem` of node-holding records).
   */
  readonly proofItemsPerLineage?: number;
  /**
   * Share (0 to 1) of an integration's lineages integrated warm (docs/deployment-log.md,
   * "Integration", "A warm integrator"): the integrator kept the frontier of the head the index
   * holds, so the new records extend it and no proof item is read. Default 0: every lineage reads
   * its {@link IndexLoad.proofItemsPerLineage} (a cold integrator; an upper bound); the sparse
   * scenario's figure is {@link SPARSE_WARM_LINEAGES}.
   */
  readonly warmLineages?: number;
  /** Witnesses the integrator submits each checkpoint to (one `Sign` and one item write each). */
  readonly witnesses?: number;
  /**
   * Sealer invocations whose heads one integration reads: an invocation that MACs its heads with
   * KMS (no data key) takes one batch head-state MAC for all its runs (docs/verifiable-log.md,
   * "Appending"), and the integrator verifies each distinct MAC once, so its `VerifyMac` per
   * integration is `headsVerifiedWithKms × min(lineagesPerIntegration, sealerInvocationsPerIntegration)`. Each invocation also sends its
   * runs' sealed-run notices in one `SendMessageBatch` (docs/deployment-log.md, "Sealed-run
   * notices"), so the notices cost `min(runs, sealerInvocationsPerIntegration)` requests; and
   * reads the deployment head once and each index tile once for all its runs ({@link sealerIndexUsage}).
   * Default: one per lineage for the MACs and one per run for the notices and the sealer's reads
   * (as before batches).
   */
  readonly sealerInvocationsPerIntegration?: number;
  /**
   * Read units a write of the sealer's deployment-head reads that the measured write this share is
   * added to already holds, left out by {@link indexUsagePerWrite} (never more than
   * {@link sealerIndexUsage} charges for them) so that they are not counted twice. Default 0: the
   * share on its own; the sparse scenario's is {@link MEASURED_SEALER_HEAD_READ_UNITS}.
   */
  readonly measuredSealerHeadReadUnits?: number;
  /**
   * Share (0 to 1) of an integration's distinct head MACs the integrator checks with KMS
   * `VerifyMac`: those of heads past every authenticated notice of its batch (moved since its
   * newest notice was batched, a lost or late notice, a notice sent without `auth`) that carry a
   * KMS head-state MAC (stored before head-key MACs, or by a sealer that had no data key). A head an
   * authenticated notice names needs no MAC at all (docs/deployment-log.md, "Integration", step
   * 2), and one past its notices carrying a head-key MAC is checked in process under a data key the
   * integrator opened (docs/verifiable-log.md, "Appending"). The notice key's `GenerateDataKey`
   * (sealer) and `Decrypt` (integrator; the sealer for heads another of its containers MAC'd) are
   * symmetric requests ($3 per 10,000) made once per container and data key (each sealer container
   * generates one per 15 minutes), left out of this model as the per-container cold-start calls
   * are. The integrator's `VerifyMac` per integration is this share of
   * `min(lineagesPerIntegration, sealerInvocationsPerIntegration)`. Default 1: every head through a
   * KMS MAC, as before notices and head-key MACs (an upper bound); the sparse scenario's figure is
   * {@link SPARSE_HEADS_VERIFIED_WITH_KMS}.
   */
  readonly headsVerifiedWithKms?: number;
}

/** Mean leaf depth of the index beyond log2 of its keys, as bench/index.ts measured it (17.9 at 10^5 keys). */
export const INDEX_DEPTH_OVER_LOG2 = 1.3;

/**
 * Lambda GB-s of one integration: the emulator bench's integrator took about 2.7 GB-s an invocation
 * (bench/RESULTS.md, run of 2026-12-05 13:33), on the emulator's workers: an upper bound of AWS's.
 */
export const INTEGRATION_GB_SECONDS = 2.7;

/** Default {@link IndexLoad.proofItemsPerLineage}: about log2 of a lineage of a thousand records. */
export const PROOF_ITEMS_PER_LINEAGE = 10;

/**
 * WCU of the deployment log's commit per integration: one transaction of the head item (under
 * 2 KB: checkpoint, frontier, published note) and the leaf item (under 1 KB), billed twice.
 */
export const DEPLOYMENT_COMMIT_WCU = 2 * (2 + 1);

/** Keys per lineage in the index when a load does not say: bench/index.ts's mix, a lineage and 19 residual ids. */
export const DEFAULT_KEYS_PER_LINEAGE = 20;

/** Mean depth of a key's leaf in an index of `keys` keys with independent paths. */
export function indexDepth(keys: number): number {
  return Math.log2(Math.max(2, keys)) + INDEX_DEPTH_OVER_LOG2;
}

/**
 * Mean depth of a key's leaf when a residual id's path starts with its lineage's first `p` bits
 * (docs/verifiable-index.md, "Keys"): a lineage's keys sit in its subtree at depth `p`, with the
 * `(keys − keysPerLineage) / 2^p` other keys whose paths start the same way, and part below it as
 * random keys do: `p + log2(keysPerLineage + (keys − keysPerLineage) / 2^p) + 1.3`. At `p` = 0
 * this is {@link indexDepth}.
 */
export function indexSharedDepth(keys: number, lineages: number, p = RESIDUAL_SHARED_PATH_BITS): number {
  const own = keys / Math.max(1, Math.min(lineages, keys));
  return p + Math.log2(Math.max(2, own + (keys - own) / 2 ** p)) + INDEX_DEPTH_OVER_LOG2;
}

/**
 * Index nodes one integration makes per changed key: a key's path below the levels the batch's
 * `changedKeys` paths share (`depth − log2 K + 1`, which gives bench/index.ts's measured 18.9,
 * 13.5 and 9.2 nodes per key for 1, 50 and 1,000 keys at 10^5). Before tiles, one item each.
 */
export function indexNodesPerChangedKey(keys: number, changedKeys: number): number {
  return Math.max(1, indexDepth(keys) - Math.log2(Math.max(1, changedKeys)) + 1);
}

/**
 * Tiles a stretch of `levels` levels of a path crosses, on average, with tiles of `k` levels
 * (docs/verifiable-index.md, "Tiles"): one per `k` levels, and the tile the stretch starts in,
 * `levels / k + (k + 1) / 2k` for a start uniformly placed within a tile.
 */
export function indexTilesPerLevels(levels: number, k = INDEX_TILE_LEVELS): number {
  return levels / k + (k + 1) / (2 * k);
}

/**
 * Tiles one proof reads at `keys` keys with independent paths: a leaf's path from the root,
 * `depth / k + (k + 1) / 2k` (5.1 at 10^5 keys and 5.9 at 10^6 with 4 levels; bench/index.ts
 * measured 5.14 and 5.97 before residual ids shared their lineage's path prefix).
 */
export function indexTilesPerPath(keys: number, k = INDEX_TILE_LEVELS): number {
  return indexTilesPerLevels(indexDepth(keys), k);
}

/**
 * Tiles one integration writes (and reads) per changed key when no two changed keys share a path
 * prefix of their own (see {@link indexTilesPerIntegration}): those of the levels below the
 * shared ones, `(indexNodesPerChangedKey − 1) / k + (k + 1) / 2k`; bench/index.ts measured 5.13, 3.44
 * and 2.38 at 10^5 keys and 6.00, 4.36 and 3.23 at 10^6 for 1, 50 and 1,000 keys changed
 * together (this gives 5.10, 3.69, 2.61 and 5.93, 4.52, 3.44: within a tenth).
 */
export function indexTilesPerChangedKey(keys: number, changedKeys: number, k = INDEX_TILE_LEVELS): number {
  return indexTilesPerLevels(indexNodesPerChangedKey(keys, changedKeys) - 1, k);
}

/**
 * Tiles one integration writes (and reads) when `changedLineages` lineages each change
 * `keysPerChangedLineage` keys (their lineage key and their new residual ids), the residual ids'
 * paths starting with their lineage's first `p` bits (docs/verifiable-index.md, "Keys"). The
 * batch's paths share the top `log2 C` levels (C = changedLineages); a lineage's keys share its
 * path on down to where they part, X = `p + log2 m` (m = keysPerChangedLineage; never above
 * the leaves, never above `log2 C`); below X each key has its own levels down to its leaf
 * ({@link indexSharedDepth} D), and the tile it parts in is the lineage's:
 * `C × ((X − log2 C) / k + (k + 1) / 2k + m (D − X) / k)`. With m = 1 or `p` = 0 this is
 * `C m` × {@link indexTilesPerChangedKey}. bench/index.ts at 10^6 keys (50,000 lineages, 50
 * lineages with 2 new residual ids each): see the test's measured figures.
 */
export function indexTilesPerIntegration(
  keys: number,
  lineages: number,
  changedLineages: number,
  keysPerChangedLineage: number,
  p = RESIDUAL_SHARED_PATH_BITS,
  k = INDEX_TILE_LEVELS,
): number {
  const depth = indexSharedDepth(keys, lineages, p);
  const shared = Math.log2(Math.max(1, changedLineages));
  const parting = Math.min(depth, Math.max(shared, p + Math.log2(Math.max(1, keysPerChangedLineage))));
  return (
    changedLineages *
    (indexTilesPerLevels(Math.max(0, parting - shared), k) + (keysPerChangedLineage * (depth - parting)) / k)
  );
}

/** Read units of one eventually consistent item read under 4 KB (a tile; docs/verifiable-index.md, "Tiles"). */
export const TILE_READ_UNITS = 0.5;

/**
 * Read units of one proof item (a record item holding tree nodes): eventually consistent, since a
 * stale copy is the item or nothing and a node is checked against the head's tree (docs/pipeline.md,
 * "Learning the outcome of a write"); a miss is read again strongly, rare enough to leave out.
 */
export const PROOF_ITEM_READ_UNITS = 0.5;

/**
 * Write units per tile written: a tile of 4 levels is an item under 1 KB but for a few holding
 * several leaves (bench/index.ts at 10^6 keys: 4.45 units for 4.36 tiles per changed key).
 */
export const TILE_WRITE_UNITS = 1.02;

function checkLoad(load: IndexLoad): void {
  for (const [name, value] of Object.entries(load)) {
    if (value !== undefined && (!Number.isFinite(value) || value < 0)) {
      throw new RangeError(`load.${name} must be a finite number ≥ 0, got ${value}`);
    }
  }
  if (load.writesPerIntegration <= 0 || load.writesPerRun <= 0 || load.lineagesPerIntegration <= 0) {
    throw new RangeError('writesPerIntegration, writesPerRun and lineagesPerIntegration must be > 0');
  }
  if ((load.headsVerifiedWithKms ?? 1) > 1) {
    throw new RangeError(`load.headsVerifiedWithKms is a share, 0 to 1, got ${load.headsVerifiedWithKms}`);
  }
  if ((load.warmLineages ?? 0) > 1) {
    throw new RangeError(`load.warmLineages is a share, 0 to 1, got ${load.warmLineages}`);
  }
}

/**
 * Bytes of a record item as the integrator reads it past the indexed head: the bench write's (1 KiB
 * payload, a 100-key manifest stored apart) measured 1.2–1.97 KB (docs/sealing.md, "The append's
 * layout"); the upper end, so the reads are not understated.
 */
export const RECORD_ITEM_BYTES = 2_000;

/**
 * Read units of one eventually consistent read of a lineage's manifest item (the bench's 100-key
 * manifest, 5 WCU: up to 5 KB, two 4 KB units at half a unit each), which the integrator makes for
 * a lineage it has not kept the manifest of (`readChain`'s `keptManifests`: a warm integrator keeps
 * it, as it keeps the frontier, so it is read with the cold lineages' proof items only).
 */
export const MANIFEST_ITEM_READ_UNITS = 1;

/**
 * Read units of one strongly consistent `GetItem` of the deployment head (`DEPLOYMENT#log` /
 * `HEAD`): an item under 4 KB (checkpoint, frontier, published note; see
 * {@link DEPLOYMENT_COMMIT_WCU}). The sealer reads it once per invocation, the integrator once per
 * integration.
 */
export const DEPLOYMENT_HEAD_READ_UNITS = 1;

/**
 * Record items one sealer run reads for its consistency proof from the lineage's indexed head to
 * the head it extends (docs/sealing.md, "The index floor", step 5; `SealerLog.consistencyFrom`,
 * one `BatchGetItem`, {@link PROOF_ITEM_READ_UNITS} each): one item per distinct last leaf of the
 * RFC 9162 proof's nodes, 6.45, 6.95 and 7.45 on average for a lineage of 500 to 1,500 records one,
 * two and three records ahead of the index (a sparse lineage writes once a second, integrated
 * every 2 s). Not {@link PROOF_ITEMS_PER_LINEAGE}: the integrator's also hold inclusion proofs.
 */
export const SEALER_CONSISTENCY_PROOF_ITEMS = 7;

/**
 * Read units a write of the sealer's deployment-head `GetItem` that the measured write
 * (shared/cost/measured-usage.ts, `MEASURED_USAGE.write`) already holds: the bench counts every
 * function's `GetItem` through its proxy (bench/stack/counting-proxy.ts), this read among them,
 * and its 2.73 read units a write are those of the run of 2026-12-06 18:53 UTC, which made 0.105
 * sealer invocations a write (0.21 `GenerateMac`, two per invocation), one head read each, 1 read
 * unit each (MiniStack reports one per consistent call). The sparse scenario's
 * {@link IndexLoad.measuredSealerHeadReadUnits}: {@link indexUsagePerWrite} leaves them out, so
 * the deploy estimate counts the head read once, at the model's 0.175 invocations a write.
 */
export const MEASURED_SEALER_HEAD_READ_UNITS = 0.105;

/**
 * Sealer runs per sealer invocation: the runs of an integration interval over
 * {@link IndexLoad.sealerInvocationsPerIntegration} (default one invocation per run), at least 1.
 */
function sealerRunsPerInvocation(load: IndexLoad): number {
  const runs = load.writesPerIntegration / load.writesPerRun;
  return Math.max(1, runs / (load.sealerInvocationsPerIntegration ?? runs));
}

/**
 * What the sealer's code reads of the index per write (docs/sealing.md, "The index floor";
 * functions/sealer/sealer-index.ts), one invocation of R runs (the interval's runs over
 * {@link IndexLoad.sealerInvocationsPerIntegration}, at least 1)
 * amortized over its writes:
 *
 * - once per invocation, the deployment head ({@link DEPLOYMENT_HEAD_READ_UNITS}), shared by all its runs;
 * - per run, the consistency proof from the lineage's indexed head to the head it extends
 *   ({@link SEALER_CONSISTENCY_PROOF_ITEMS} record items, {@link PROOF_ITEM_READ_UNITS} each),
 *   charged to every run: a run whose head is the indexed one reads none, so an upper bound;
 * - once per invocation, the tiles of its runs' paths walked together, each tile once
 *   ({@link TILE_READ_UNITS} each): the lineage's key and each write's residual id, the same shape
 *   as an integration's changed keys, so {@link indexTilesPerIntegration} of R lineages with
 *   `1 + writesPerRun` keys each (the R paths share their top `log2 R` levels, a lineage's keys
 *   share its path down to where they part). The warm tile cache's hits across invocations are
 *   not counted: every integration rewrites the root tile and, a sparse lineage being integrated
 *   every interval, every tile of its path, and the hits on the top tiles of the invocations one
 *   container makes between two integrations depend on how many containers share the work: an
 *   upper bound.
 *
 * At 10^6 keys, runs of one write and 5.7 runs an invocation (the sparse scenario): 0.175 read
 * units of the head, 3.5 of the consistency proof and 6.97 tiles (3.48 units) a write, 7.16 units
 * (8.30 were each run an invocation of its own: 7.59 tiles, bench/index.ts measured 6.96).
 *
 * @throws {RangeError} for a load that is not finite and positive
 */
export function sealerIndexUsage(load: IndexLoad): Usage {
  checkLoad(load);
  const runs = sealerRunsPerInvocation(load);
  const tiles = indexTilesPerIntegration(load.indexKeys, indexLineagesOf(load), runs, 1 + load.writesPerRun);
  const proofs = runs * SEALER_CONSISTENCY_PROOF_ITEMS * PROOF_ITEM_READ_UNITS;
  const perInvocation = DEPLOYMENT_HEAD_READ_UNITS + proofs + TILE_READ_UNITS * tiles;
  return { dynamodbReadRequestUnit: perInvocation / (runs * load.writesPerRun) };
}

/** {@link IndexLoad.indexLineages}, or its default. */
function indexLineagesOf(load: IndexLoad): number {
  return load.indexLineages ?? load.indexKeys / DEFAULT_KEYS_PER_LINEAGE;
}

/**
 * The integrator's work per write (docs/deployment-log.md, "Integration"), one integration
 * amortized over its writes: the deployment head read; per lineage its head item and its records
 * past the indexed head (one eventually consistent `Query`, {@link RECORD_ITEM_BYTES} a record,
 * priced by the 4 KB units of their sum), and per lineage not integrated warm
 * ({@link IndexLoad.warmLineages}) its proof items ({@link PROOF_ITEM_READ_UNITS} each) and its
 * manifest item ({@link MANIFEST_ITEM_READ_UNITS}); one `VerifyMac` per distinct KMS head-state MAC
 * of the heads past the batch's notices ({@link IndexLoad.headsVerifiedWithKms}; a head a notice
 * names needs none, docs/deployment-log.md, "Integration", step 2, and a head-key MAC is checked
 * in process), a sealer invocation's batch MAC covering all its heads
 * ({@link IndexLoad.sealerInvocationsPerIntegration}; docs/verifiable-log.md, "Appending"); the
 * changed keys' tiles read (eventually consistent, {@link TILE_READ_UNITS} each; the
 * warm cache's hits not counted) and their new tiles written ({@link indexTilesPerChangedKey},
 * `BatchWriteItem`, {@link TILE_WRITE_UNITS} each); the deployment log's commit ({@link DEPLOYMENT_COMMIT_WCU}); one log-key
 * `Sign`, and per witness one `Sign` and one item write; the sealed-run notices, one
 * `SendMessageBatch` per sealer invocation ({@link IndexLoad.sealerInvocationsPerIntegration}:
 * an invocation holds at most 10 FIFO messages, so its runs' notices fit one call, and ten
 * notices of a few records are one billed 64 KB request), never more than one request per run,
 * and the poller's receive and delete; one invocation of
 * {@link INTEGRATION_GB_SECONDS} (and one per witness call).
 *
 * @throws {RangeError} for a load that is not finite and positive
 */
export function integratorUsage(load: IndexLoad): Usage {
  checkLoad(load);
  const writes = load.writesPerIntegration;
  const lineages = load.lineagesPerIntegration;
  const changedKeys = lineages + writes;
  const tiles = indexTilesPerIntegration(load.indexKeys, indexLineagesOf(load), lineages, changedKeys / lineages);
  const witnesses = load.witnesses ?? 1;
  // A warm lineage's proofs are its kept frontier, extended: no proof item read.
  const cold = 1 - (load.warmLineages ?? 0);
  const proofItems = (load.proofItemsPerLineage ?? PROOF_ITEMS_PER_LINEAGE) * cold;
  // One Query per lineage for its new records, billed by the 4 KB units of their sum, at half a unit.
  const recordUnits = 0.5 * Math.ceil(((writes / lineages) * RECORD_ITEM_BYTES) / 4096);
  const runs = writes / load.writesPerRun;
  const perIntegration: Usage = {
    dynamodbReadRequestUnit:
      DEPLOYMENT_HEAD_READ_UNITS +
      lineages * (1 + recordUnits + PROOF_ITEM_READ_UNITS * proofItems + MANIFEST_ITEM_READ_UNITS * cold) +
      TILE_READ_UNITS * tiles,
    dynamodbWriteRequestUnit: TILE_WRITE_UNITS * tiles + DEPLOYMENT_COMMIT_WCU + witnesses,
    kmsSymmetricRequest:
      (load.headsVerifiedWithKms ?? 1) * Math.min(lineages, load.sealerInvocationsPerIntegration ?? lineages),
    kmsAsymmetricRequest: 1 + witnesses,
    sqsStandardRequest: Math.min(runs, load.sealerInvocationsPerIntegration ?? runs) + 2,
    lambdaRequest: 1 + witnesses,
    lambdaArmGbSecond: INTEGRATION_GB_SECONDS,
  };
  return Object.fromEntries(Object.entries(perIntegration).map(([dimension, units]) => [dimension, units / writes]));
}

/**
 * {@link sealerIndexUsage} and {@link integratorUsage} together, less the sealer's deployment-head
 * reads the measured write already holds ({@link IndexLoad.measuredSealerHeadReadUnits}): the
 * index's share to add to a measured write.
 *
 * @throws {RangeError} for a load that is not finite and positive
 */
export function indexUsagePerWrite(load: IndexLoad): Usage {
  const sealer = sealerIndexUsage(load);
  const headReads = DEPLOYMENT_HEAD_READ_UNITS / (sealerRunsPerInvocation(load) * load.writesPerRun);
  const measured = Math.min(headReads, load.measuredSealerHeadReadUnits ?? 0);
  const reads = (sealer.dynamodbReadRequestUnit ?? 0) - measured;
  return addUsage({ ...sealer, dynamodbReadRequestUnit: reads }, integratorUsage(load));
}

/**
 * Sealer invocations per write in the sparse scenario: 0.175 (5.7 writes an invocation), as the
 * emulator bench counted them (bench/RESULTS.md, "One head-state MAC per sealer invocation", run
 * of 2026-12-06 09:54 UTC: 0.175 head-state `GenerateMac` a write, one per invocation). Also the
 * sealer's head-state MACs per write. An assumption for AWS, whose FIFO event source may hand
 * the sealer smaller batches when it runs more of them at once: more invocations a write mean more
 * `GenerateMac` and `VerifyMac`, at most one of each per run and per lineage.
 */
export const SPARSE_SEALER_INVOCATIONS_PER_WRITE = 0.175;

/**
 * {@link IndexLoad.headsVerifiedWithKms} in the sparse scenario: 0, as the emulator bench counted
 * it (bench/RESULTS.md, "Heads MAC'd under the notice data key", runs of 2026-12-07: no
 * `VerifyMac` in 200 sparse writes, 0.005 `Decrypt` a write, one per data key the integrator had
 * not opened). Every head the sealer stores carries a head-key MAC, so a head past its notices
 * costs the integrator no KMS request; only heads stored before, or by a sealer that had no data
 * key (then one KMS head-state MAC per head), would. Before head-key MACs it was 0.2 (a fifth of
 * the heads were past their notices: runs of 2026-12-06).
 */
export const SPARSE_HEADS_VERIFIED_WITH_KMS = 0;

/**
 * {@link IndexLoad.warmLineages} in the sparse scenario: 0.9, an estimate, not a count. A warm
 * integrator sees the same 50 lineages every interval, each integrated by it in the interval
 * before, so the frontier it kept is of the head the index holds and every lineage extends it;
 * its cache (10,000 lineages) never evicts them. The rest allows for the integrations that start
 * cold (an instance's first after a cold start, every few hours at one invocation every 2 s) and,
 * mostly, for batches the other of the two invocations the event source may run
 * (`MaximumConcurrency` 2) integrates: the instance that did not commit the indexed head kept an
 * older frontier, and reads the proof items once for each such lineage. The bench's
 * `BatchGetItem` of record items a write is the figure to keep.
 */
export const SPARSE_WARM_LINEAGES = 0.9;

/** Lineages of the sparse scenario (docs/infrastructure.md, "Cost and quotas"), each writing once a second. */
export const SPARSE_LINEAGES = 50;
/** Writes a second of the sparse scenario, all lineages: {@link SPARSE_LINEAGES} at one a second. */
export const SPARSE_WRITES_PER_SECOND = 50;
/** The integration interval {@link SPARSE_INDEX_LOAD} is modelled at: the stack's default, 2 s. */
export const SPARSE_INTERVAL_SECONDS = 2;

/**
 * The bench's sparse scenario at a production index with an integration interval of
 * `intervalSeconds` (the stack's `integrationIntervalSeconds`, whole seconds ≥ 1): its
 * {@link SPARSE_WRITES_PER_SECOND} writes × the interval per integration, every one of its
 * {@link SPARSE_LINEAGES} lineages in each (runs of one write: a lineage writes once a second), and
 * the sealer invocations those writes take at {@link SPARSE_SEALER_INVOCATIONS_PER_WRITE}. The
 * counted shares ({@link SPARSE_HEADS_VERIFIED_WITH_KMS}, {@link SPARSE_WARM_LINEAGES}) are kept as
 * counted at 2 s. A longer interval spreads each integration's fixed work (its `Sign`s, its commit,
 * its invocation, the upper tiles its lineages share) over more writes.
 *
 * @throws {RangeError} for an interval that is not a whole number of seconds ≥ 1
 */
export function sparseIndexLoad(intervalSeconds: number): IndexLoad {
  if (!Number.isSafeInteger(intervalSeconds) || intervalSeconds < 1) {
    throw new RangeError(`intervalSeconds must be whole seconds ≥ 1, got ${intervalSeconds}`);
  }
  const writes = SPARSE_WRITES_PER_SECOND * intervalSeconds;
  return {
    indexKeys: 1e6,
    indexLineages: 50_000,
    writesPerIntegration: writes,
    lineagesPerIntegration: SPARSE_LINEAGES,
    writesPerRun: 1,
    sealerInvocationsPerIntegration: writes * SPARSE_SEALER_INVOCATIONS_PER_WRITE,
    headsVerifiedWithKms: SPARSE_HEADS_VERIFIED_WITH_KMS,
    warmLineages: SPARSE_WARM_LINEAGES,
    measuredSealerHeadReadUnits: MEASURED_SEALER_HEAD_READ_UNITS,
  };
}

/**
 * The bench's sparse scenario at a production index (docs/infrastructure.md, "Cost and quotas"):
 * 50 lineages writing once a second, the default 2 s interval (100 writes, 50 lineages per
 * integration, runs of one write), 10^6 keys, one witness, and 17.5 sealer invocations an
 * integration (100 writes at {@link SPARSE_SEALER_INVOCATIONS_PER_WRITE}): every head MAC'd under
 * the sealer's data key, so no `VerifyMac` ({@link SPARSE_HEADS_VERIFIED_WITH_KMS}). A warm
 * integrator reads no proof item nor manifest item for {@link SPARSE_WARM_LINEAGES} of the
 * lineages: 50 proof items an integration, not 500, and 5 manifest items, not 50; each lineage's
 * two new records are one `Query` of half a unit. A sealer invocation of 5.7 runs reads the deployment head once, 0.175
 * read units a write, of which the bench's measured write holds {@link MEASURED_SEALER_HEAD_READ_UNITS}.
 * {@link sparseIndexLoad} at {@link SPARSE_INTERVAL_SECONDS}.
 */
export const SPARSE_INDEX_LOAD: IndexLoad = sparseIndexLoad(SPARSE_INTERVAL_SECONDS);
