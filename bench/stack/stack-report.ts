/**
 * The emulator bench's figures as markdown (bench/RESULTS.md keeps a run): calls, bytes and
 * capacity per operation, throughput and latency beside the floor timed in the same run, and the
 * cost model's dollars per million beside the design card's floor.
 */
import { type CostBreakdown, costPerMillion, DESIGN_FLOOR } from '../../shared/cost/cost-per-million';
import { type IndexLoad, indexUsagePerWrite } from '../../shared/cost/index-usage';
import type { MonthlyCost } from '../../shared/cost/monthly-cost';
import type { PriceTable } from '../../shared/cost/price-table';
import { addUsage } from '../../shared/cost/usage';
import type { CallCounts, PartyCounts } from './call-tally';
import { FUNCTION_PARTIES } from './party-endpoints';
import type { Floor, Measured } from './stack-bench';
import { guardReceiveUnits, scenarioUsage } from './stack-usage';

/** The `q`-quantile (0–1) of `values`, nearest rank; NaN for none. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] as number;
}

const fmt = (value: number, digits = 2): string =>
  Number.isNaN(value) ? '–' : value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(digits);
const ratio = (a: number, b: number): string => (b > 0 && Number.isFinite(a / b) ? `${(a / b).toFixed(2)}×` : '–');

/** Calls of one party, per operation: one row per AWS operation. */
function callRows(party: string, counts: CallCounts, operations: number): string[] {
  return Object.entries(counts)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, s]) => {
      // The emulator reports no capacity for some reads (BatchGetItem): say so rather than print 0,
      // with the read units of the items returned where the bench's own client saw them.
      const unreported = name.startsWith('DynamoDB.') && s.readUnits === 0 && s.writeUnits === 0;
      const estimated = s.estimatedReadUnits ?? 0;
      const units = unreported
        ? `${estimated > 0 ? `not reported (≈${fmt(estimated / operations, 2)} by item size)` : 'not reported'} | not reported`
        : `${fmt(s.readUnits / operations, 2)} | ${fmt(s.writeUnits / operations, 2)}`;
      return `| ${party} | ${name} | ${fmt(s.calls / operations, 3)} | ${fmt(s.requestBytes / s.calls, 0)} | ${fmt(s.responseBytes / s.calls, 0)} | ${units} |`;
    });
}

/** The label of the functions' calls all together, beside each function's. */
export const FUNCTIONS_TOTAL_PARTY = 'functions, all';

/** Parties in the order the pipeline calls them (the functions the bench names), others after by name. */
function partyOrder(byFunction: PartyCounts): string[] {
  const known = Object.values(FUNCTION_PARTIES);
  const rank = (party: string) => {
    const i = known.indexOf(party);
    return i < 0 ? known.length : i;
  };
  return Object.keys(byFunction).sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

/**
 * The functions' rows of {@link callsTable}: each function's calls under its name, then all of
 * them as {@link FUNCTIONS_TOTAL_PARTY}; without `byFunction`, the total alone as `functions`.
 */
function functionRows(measured: Measured): string[] {
  if (!measured.functions) return [];
  const byFunction = measured.byFunction;
  if (!byFunction) return callRows('functions', measured.functions, measured.operations);
  return [
    ...partyOrder(byFunction).flatMap((party) => callRows(party, byFunction[party] ?? {}, measured.operations)),
    ...callRows(FUNCTIONS_TOTAL_PARTY, measured.functions, measured.operations),
  ];
}

/**
 * Per-operation table of a scenario's calls, and its Lambda activity: the client's (or the CLI's)
 * rows, then each function's where the proxy told them apart, then the functions' total.
 */
export function callsTable(measured: Measured): string {
  const per = measured.records ? `audit of ${measured.records} records` : 'operation';
  const lines = [
    `#### ${measured.name} (${measured.operations} operations; figures per ${per})`,
    '',
    '| party | AWS operation | calls | request bytes / call | response bytes / call | RCU | WCU |',
    '|---|---|---:|---:|---:|---:|---:|',
    ...callRows(measured.records ? 'CLI' : 'client', measured.client, measured.operations),
    ...functionRows(measured),
  ];
  if (measured.lambda) {
    lines.push('', '| function | invocations | GB-s | log bytes |', '|---|---:|---:|---:|');
    for (const [name, a] of Object.entries(measured.lambda)) {
      if (a.invocations === 0 && a.logBytes === 0) continue;
      lines.push(
        `| ${name} | ${fmt(a.invocations / measured.operations, 3)} | ${fmt(a.gbSeconds / measured.operations, 4)} | ${fmt(a.logBytes / measured.operations, 0)} |`,
      );
    }
  }
  return lines.join('\n');
}

/** Header of the guard's batches table (docs/infrastructure.md, "The guard's batching window"). */
export const GUARD_BATCHES_HEADER = [
  '| scenario | writes/s published | guard window | guard invocations | messages | per invocation | invocations per write | receive units per write | batches (records × count) |',
  '|---|---:|---|---:|---:|---:|---:|---:|---|',
] as const;

/**
 * One scenario's guard batches: the rate its writes were published at (a batch holds about
 * min(10, rate × window)), how many messages each guard invocation got, from MiniStack's log, and
 * the window that was emulated (`none`: MiniStack's own polling); dashes when not read.
 */
export function guardBatchesRow(measured: Measured): string {
  const b = measured.guardBatches;
  const published = measured.publishSeconds ? fmt(measured.operations / measured.publishSeconds) : '–';
  if (!b) return `| ${measured.name} | ${published} | – | – | – | – | – | – | not read |`;
  const counts = new Map<number, number>();
  for (const n of b.sizes) counts.set(n, (counts.get(n) ?? 0) + 1);
  const sizes = [...counts]
    .sort((x, y) => y[0] - x[0])
    .map(([n, k]) => `${n}×${k}`)
    .join(', ');
  const window = b.windowSeconds > 0 ? `${b.windowSeconds} s, emulated` : 'none';
  return `| ${measured.name} | ${published} | ${window} | ${b.batches} | ${b.records} | ${fmt(b.perInvocation)} | ${fmt(b.batches / measured.operations)} | ${fmt((guardReceiveUnits(measured) ?? Number.NaN) / measured.operations)} | ${sizes || '–'} |`;
}

/** Header of {@link outcomeReadsRow}'s table. */
export const OUTCOME_READS_HEADER = [
  '| scenario | writes/s published | p50 ms | GetItem / write | Query / write | BatchGetItem / write | RCU / write (reported) | BatchGetItem RCU / write (by item size) |',
  '|---|---:|---:|---:|---:|---:|---:|---:|',
] as const;

/**
 * The client's reads to its outcome in a write scenario (its `waitForOutcome` polls and proof),
 * per write, beside the publish-to-outcome p50 they were taken at: the polls grow with the wait,
 * so they are the client's own only where the pipeline keeps up with the writes (docs/pipeline.md,
 * "Polling the table").
 */
export function outcomeReadsRow(measured: Measured): string {
  const per = (operation: string) => (measured.client[`DynamoDB.${operation}`]?.calls ?? 0) / measured.operations;
  const reported = Object.entries(measured.client)
    .filter(([name]) => name.startsWith('DynamoDB.'))
    .reduce((sum, [, stats]) => sum + stats.readUnits, 0);
  const published = measured.publishSeconds ? fmt(measured.operations / measured.publishSeconds) : '–';
  return `| ${measured.name} | ${published} | ${fmt(quantile(measured.latenciesMs, 0.5), 0)} | ${fmt(per('GetItem'))} | ${fmt(per('Query'))} | ${fmt(per('BatchGetItem'))} | ${fmt(reported / measured.operations)} | ${fmt(estimatedBatchReadUnits(measured))} |`;
}

/** Header of {@link speedRow}'s table. */
export const SPEED_HEADER = [
  '| scenario | operations | per second | floor per second | ÷ floor | p50 ms | floor p50 | ÷ floor | p99 ms | floor p99 | ÷ floor |',
  '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
] as const;

/** Throughput and latency of a scenario beside its floor. */
export function speedRow(measured: Measured, floor: Floor): string {
  const rate = measured.operations / measured.seconds;
  const floorRate = floor.operations / floor.seconds;
  const [p50, p99] = [quantile(measured.latenciesMs, 0.5), quantile(measured.latenciesMs, 0.99)];
  const [f50, f99] = [quantile(floor.latenciesMs, 0.5), quantile(floor.latenciesMs, 0.99)];
  return `| ${measured.name} | ${measured.operations} | ${fmt(rate)} | ${fmt(floorRate)} | ${ratio(rate, floorRate)} | ${fmt(p50, 0)} | ${fmt(f50, 0)} | ${ratio(p50, f50)} | ${fmt(p99, 0)} | ${fmt(f99, 0)} | ${ratio(p99, f99)} |`;
}

/** Header of {@link costRow}'s table. */
export const COST_HEADER = [
  '| scenario | stack $/M | client $/M | total $/M | design floor $/M | ÷ floor | largest lines (total) |',
  '|---|---:|---:|---:|---:|---:|---|',
] as const;

/**
 * The issue's target for a recall on the client's own path, without triage's events (docs/infrastructure.md,
 * "Cost and quotas"), dollars per million recalls.
 */
export const DIRECT_RECALL_TARGET_USD_PER_MILLION = 0.5;

/** The client's `BatchGetItem` read units per operation, estimated by item size (the emulator reports none). */
export function estimatedBatchReadUnits(measured: Measured): number {
  const batch = measured.client['DynamoDB.BatchGetItem'];
  return batch && batch.readUnits === 0 ? (batch.estimatedReadUnits ?? 0) / measured.operations : 0;
}

/**
 * A recall without triage against {@link DIRECT_RECALL_TARGET_USD_PER_MILLION}: the client's dollars
 * per million as the emulator reports its capacity, plus its `BatchGetItem` items priced by their
 * size ({@link estimatedBatchReadUnits}), and whether the sum meets the target.
 */
export function directRecallTargetRow(measured: Measured, prices: PriceTable): string {
  const reported = costPerMillion(scenarioUsage(measured).client, prices).usdPerMillion;
  const batchUnits = estimatedBatchReadUnits(measured);
  const batch = costPerMillion({ dynamodbReadRequestUnit: batchUnits }, prices).usdPerMillion;
  const total = reported + batch;
  const met = total <= DIRECT_RECALL_TARGET_USD_PER_MILLION ? '✓' : '✗';
  return `| ${measured.name} | ${fmt(reported)} | ${fmt(batchUnits)} | ${fmt(batch)} | ${fmt(total)} | ${fmt(DIRECT_RECALL_TARGET_USD_PER_MILLION)} | ${met} |`;
}

/** Header of {@link directRecallTargetRow}'s table. */
export const DIRECT_RECALL_TARGET_HEADER = [
  '| scenario | client $/M (reported capacity) | BatchGetItem RCU / recall (by item size) | its $/M | client $/M | target $/M | met |',
  '|---|---:|---:|---:|---:|---:|:-:|',
] as const;

/** The cost model's output for a scenario: dollars per million operations, beside the design card's floor. */
export function costRow(
  measured: Measured,
  prices: PriceTable,
  kind: 'write' | 'recall' | 'direct-recall' | 'audit',
): string {
  const usage = scenarioUsage(measured);
  const stack = costPerMillion(usage.stack, prices);
  const client = costPerMillion(usage.client, prices);
  const total = costPerMillion(addUsage(usage.stack, usage.client), prices);
  // A recall without triage has no design-card floor (the card's is two events): its target is apart.
  const floor = kind === 'audit' || kind === 'direct-recall' ? null : costPerMillion(DESIGN_FLOOR[kind], prices);
  const largest = [...total.lines]
    .sort((a, b) => b.usd - a.usd)
    .slice(0, 4)
    .map((line) => `${line.dimension} $${fmt(line.usd)}`)
    .join(', ');
  const unpriced = usage.unpriced.length > 0 ? `; not priced: ${usage.unpriced.join(', ')}` : '';
  return `| ${measured.name} | ${fmt(stack.usdPerMillion)} | ${fmt(client.usdPerMillion)} | ${fmt(total.usdPerMillion)} | ${floor ? fmt(floor.usdPerMillion) : '–'} | ${floor ? ratio(total.usdPerMillion, floor.usdPerMillion) : '–'} | ${largest}${unpriced} |`;
}

/** The cost breakdown of the design card's floors. */
export function floorCosts(prices: PriceTable): { write: CostBreakdown; recall: CostBreakdown } {
  return { write: costPerMillion(DESIGN_FLOOR.write, prices), recall: costPerMillion(DESIGN_FLOOR.recall, prices) };
}

/** Fixed monthly costs as a line. */
export function monthlyLine(monthly: MonthlyCost): string {
  return `Fixed monthly costs, apart: ${monthly.lines.map((l) => `${l.units} × ${l.dimension} = $${l.usd.toFixed(2)}`).join(', ')}; total $${monthly.usdPerMonth.toFixed(2)} a month.`;
}

// --- The deployment index's share of a write, at a production index size (modelled) -------------

/** Header of {@link indexCostRow}'s table. */
export const INDEX_COST_HEADER = [
  '| scenario | writes per run | writes per integration | index WCU / write | index RCU / write | index $/M | measured: node writes WCU / write | measured: BatchGetItem calls / write |',
  '|---|---:|---:|---:|---:|---:|---:|---:|',
] as const;

/**
 * The index's share of a write scenario at `indexKeys` keys (shared/cost/index-usage.ts: the
 * sealer's index read per run, the integrator's work per integration amortized), beside what the
 * run measured of it at the bench's index size and rate (the integrator's `BatchWriteItem` of
 * index nodes; the `BatchGetItem` calls, whose capacity the emulator does not report). Writes per
 * sealer run come from the sealer's sealed-run notices per write, one per run
 * (docs/deployment-log.md, "Sealed-run notices"; a roll-forward's notice counts as a run more:
 * fewer writes per run, more index reads, an upper bound): the entries of the functions'
 * standard-queue `SendMessageBatch` (its billed units as bench/stack/call-tally.ts counts them,
 * one per entry), and the `SendMessage` of a sealer from before notices were batched. Sealer
 * invocations come from the `GenerateMac` per write: only the sealer makes them, one per
 * invocation whatever its records (the record-batch MAC, docs/sealing.md "The record and its
 * seal"; its heads are MAC'd in process under its data key, docs/verifiable-log.md, "Appending";
 * a lost race's re-seal counts as an invocation more, an upper bound); the share of heads the
 * integrator still authenticates with KMS (`headsVerifiedWithKms`: a head a notice of its batch
 * names needs none, one with a head-key MAC is checked in process, docs/deployment-log.md
 * "Integration") from the run's `VerifyMac` per sealer invocation, at most 1;
 * writes per integration from `writesPerSecond` (the scenario's nominal rate) or, without it, the
 * run's measured rate, over `intervalSeconds`.
 */
export function indexCostRow(
  measured: Measured,
  prices: PriceTable,
  shape: {
    readonly lineages: number;
    readonly indexKeys: number;
    readonly intervalSeconds: number;
    readonly writesPerSecond?: number;
  },
): string {
  const perWrite = (operation: string) => (measured.functions?.[operation]?.calls ?? 0) / measured.operations;
  // One sealed-run notice per run; one GenerateMac per sealer invocation (its records' batch MAC).
  const batchEntries = (measured.functions?.['SQS.SendMessageBatch']?.entries ?? 0) / measured.operations;
  const writesPerRun = Math.max(1, 1 / Math.max(perWrite('SQS.SendMessage') + batchEntries, 1e-9));
  const sealerInvocations = perWrite('KMS.GenerateMac');
  const headsVerifiedWithKms = Math.min(1, perWrite('KMS.VerifyMac') / Math.max(sealerInvocations, 1e-9));
  const rate = shape.writesPerSecond ?? measured.operations / Math.max(measured.seconds, 1e-9);
  const writesPerIntegration = Math.max(writesPerRun, rate * shape.intervalSeconds);
  const load: IndexLoad = {
    indexKeys: shape.indexKeys,
    writesPerIntegration,
    lineagesPerIntegration: Math.min(shape.lineages, writesPerIntegration),
    writesPerRun,
    sealerInvocationsPerIntegration: Math.max(1, sealerInvocations * writesPerIntegration),
    headsVerifiedWithKms,
  };
  const index = indexUsagePerWrite(load);
  const indexCost = costPerMillion(index, prices);
  const nodeWrites = (measured.functions?.['DynamoDB.BatchWriteItem']?.writeUnits ?? 0) / measured.operations;
  return `| ${measured.name} | ${fmt(writesPerRun)} | ${fmt(writesPerIntegration)} | ${fmt(index.dynamodbWriteRequestUnit ?? 0)} | ${fmt(index.dynamodbReadRequestUnit ?? 0)} | ${fmt(indexCost.usdPerMillion)} | ${fmt(nodeWrites)} | ${fmt(perWrite('DynamoDB.BatchGetItem'))} |`;
}
