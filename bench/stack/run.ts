/**
 * `npm run bench:stack`: the emulator bench (docs/infrastructure.md, "Cost and quotas"). Starts
 * MiniStack (or uses `AWS_ENDPOINT_URL`), deploys the stack as the integration tests do, with the
 * functions' endpoint set to a counting proxy, then measures writes (one busy lineage; sparse
 * lineages at one write per second each), recalls (latest and by seq; through triage, and the
 * client's own without triage) and audits
 * (`reseal verify --lineage`) at each lineage size, and prints the figures as markdown with the
 * floors measured in the same run and the cost model's dollars per million. Everything it
 * started is stopped on the way out, also on failure or Ctrl-C.
 *
 * `npm run bench:stack -- --help` lists the counts it takes.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { arch, cpus, platform, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { CloudFormationClient, DescribeStackResourcesCommand } from '@aws-sdk/client-cloudformation';
import { DEFAULT_INTEGRATION_INTERVAL_SECONDS } from '../../client/freshness-policy';
import type { StackOutputs } from '../../client/stack-outputs';
import { DEFAULT_GUARD_BATCHING_WINDOW_SECONDS } from '../../infra/reseal-stack';

/**
 * The guard window the sparse scenarios emulate by default, seconds: 1, the setting the cost
 * model's batched guard share (`SPARSE_GUARD_SHARE.batched`, shared/cost/measured-usage.ts) is
 * measured at; `--guard-window 0` measures the stack's default, none.
 */
const BENCH_GUARD_WINDOW_SECONDS = 1;

import { checkEndpoint } from '../../scripts/emulator/check-endpoint';
import { clientConfig, deployStack, STACK_NAME } from '../../scripts/emulator/deploy';
import { EMULATOR_DIR, type Emulator, ROOT, startEmulator } from '../../scripts/emulator/emulator';
import { monthlyCost } from '../../shared/cost/monthly-cost';
import { type PriceTable, PriceTableSchema } from '../../shared/cost/price-table';
import { parseInput } from '../../shared/schemas/parse';
import { type CountingProxy, startCountingProxy } from './counting-proxy';
import { deliveredBatches, eventSourceBatches } from './event-source-batches';
import { functionLogs } from './function-logs';
import { startGuardWindow } from './guard-window';
import { partyEndpoints } from './party-endpoints';
import {
  type BenchClient,
  type BenchStack,
  benchClient,
  benchLineageId,
  type Floor,
  headSeq,
  type Measured,
  measureAudit,
  measureAuditFloor,
  measureRecallFloor,
  measureRecalls,
  measureWriteFloor,
  measureWrites,
  pinBenchStack,
  sealInProcess,
  type WritePlan,
} from './stack-bench';
import {
  COST_HEADER,
  callsTable,
  costRow,
  DIRECT_RECALL_TARGET_HEADER,
  DIRECT_RECALL_TARGET_USD_PER_MILLION,
  directRecallTargetRow,
  floorCosts,
  GUARD_BATCHES_HEADER,
  guardBatchesRow,
  INDEX_COST_HEADER,
  indexCostRow,
  monthlyLine,
  OUTCOME_READS_HEADER,
  outcomeReadsRow,
  quantile,
  SPEED_HEADER,
  speedRow,
} from './stack-report';

const USAGE = `usage: npm run bench:stack -- [options]

  --records N,N,...      lineage sizes for the recalls and audits (default 10,100; add 1000 for the full run)
  --pipeline-max N       the largest size written through the pipeline as a measured busy lineage;
                         longer lineages are sealed in-process by the sealer service (default 100)
  --sparse-lineages N    lineages of the sparse scenario, one write per second each (default 50)
  --sparse-seconds N     seconds of sparse traffic (default 4)
  --paced-lineages N     lineages of the paced sparse scenario, one write per second each, each write
                         waited for to its seal (default 10: a rate the emulator seals as it comes,
                         so the client's outcome reads are its own, not the emulator's backlog's)
  --recalls N            recalls per target (latest, by seq) and size (default 3)
  --floor-writes N       design-floor writes timed (default 20)
  --guard-window S       the guard's batching window emulated in the sparse scenarios, whole seconds
                         (default ${BENCH_GUARD_WINDOW_SECONDS}, the window the cost model's batched guard share is
                         measured with; the stack's default is ${DEFAULT_GUARD_BATCHING_WINDOW_SECONDS}; 0: none). MiniStack ignores the window, so the
                         bench pauses the guard's event source and re-enables it once a window
                         (bench/stack/guard-window.ts)
  --only sparse          the write floor and the sparse scenarios alone (no busy lineage, recall
                         or audit): a check of the guard window in a few minutes
  --help                 this text

The functions are deployed each with its own path on the functions' counting proxy (the stack's
endpointOverrides, bench/stack/party-endpoints.ts): "Calls per operation" counts each function's
calls apart (client, guard, sealer, integrator, triage, …) and all of them as "functions, all".
"The client's outcome reads" sets the client's reads per write beside the p50 they were taken at.

AWS_ENDPOINT_URL=<loopback URL> uses that emulator instead of starting one (then the guard's
sends to the FIFO queue follow the queue URL past the proxy and are not counted).`;

/** The bench's options, checked. */
export interface StackBenchOptions {
  readonly records: readonly number[];
  readonly pipelineMax: number;
  readonly sparseLineages: number;
  readonly sparseSeconds: number;
  /** Lineages of the paced sparse scenario (one write per second each, waited for to the seal). */
  readonly pacedLineages: number;
  readonly recalls: number;
  readonly floorWrites: number;
  /** The guard's batching window emulated in the sparse scenarios, seconds (0: none). */
  readonly guardWindow: number;
  /** `sparse`: the write floor and the sparse scenarios alone. */
  readonly only?: 'sparse';
}

function positiveInt(name: string, text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`--${name} must be a positive integer, got "${text}"`);
  return value;
}

/**
 * Options from the command line.
 * @throws {Error} naming the bad option
 */
export function parseBenchArgs(argv: readonly string[]): StackBenchOptions | 'help' {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      records: { type: 'string', default: '10,100' },
      'pipeline-max': { type: 'string', default: '100' },
      'sparse-lineages': { type: 'string', default: '50' },
      'sparse-seconds': { type: 'string', default: '4' },
      'paced-lineages': { type: 'string', default: '10' },
      recalls: { type: 'string', default: '3' },
      'floor-writes': { type: 'string', default: '20' },
      'guard-window': { type: 'string', default: String(BENCH_GUARD_WINDOW_SECONDS) },
      only: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) return 'help';
  const guardWindow = Number(values['guard-window']);
  if (!Number.isInteger(guardWindow) || guardWindow < 0 || guardWindow > 300) {
    throw new Error(`--guard-window must be whole seconds, 0 to 300, got "${values['guard-window']}"`);
  }
  if (values.only !== undefined && values.only !== 'sparse') {
    throw new Error(`--only takes "sparse", got "${values.only}"`);
  }
  return {
    records: values.records.split(',').map((n) => positiveInt('records', n.trim())),
    pipelineMax: positiveInt('pipeline-max', values['pipeline-max']),
    sparseLineages: positiveInt('sparse-lineages', values['sparse-lineages']),
    sparseSeconds: positiveInt('sparse-seconds', values['sparse-seconds']),
    pacedLineages: positiveInt('paced-lineages', values['paced-lineages']),
    recalls: positiveInt('recalls', values.recalls),
    floorWrites: positiveInt('floor-writes', values['floor-writes']),
    guardWindow,
    ...(values.only === 'sparse' ? { only: 'sparse' as const } : {}),
  };
}

/** The loopback address the functions' proxy listens on, on the emulator's own port. */
const PROXY_HOST = '127.0.0.2';

/**
 * A sparse scenario's writes, with the guard's batching window emulated when `windowSeconds` > 0
 * (bench/stack/guard-window.ts) and, on the embedded emulator, the batches the guard was handed
 * read from MiniStack's log (bench/stack/event-source-batches.ts).
 */
async function measureSparseWrites(
  stack: BenchStack,
  bench: BenchClient,
  plan: WritePlan,
  windowSeconds: number,
  ministackLog: string | undefined,
  log: (line: string) => void,
): Promise<Measured> {
  const window =
    windowSeconds > 0
      ? await startGuardWindow({
          endpoint: stack.endpoint,
          functionName: stack.outputs.GuardFunctionName,
          queueUrl: stack.outputs.ResidualWritesQueueUrl,
          windowSeconds,
          log,
        })
      : undefined;
  const fromMs = Date.now();
  let measured: Measured;
  try {
    measured = await measureWrites(stack, bench, plan);
  } finally {
    await window?.stop();
  }
  if (window) log(`guard window: ${window.windows} windows of ${windowSeconds} s`);
  if (ministackLog === undefined) return measured;
  const batches = deliveredBatches(
    eventSourceBatches(readFileSync(ministackLog, 'utf8')),
    stack.outputs.GuardFunctionName,
    fromMs,
    Date.now(),
  );
  return { ...measured, guardBatches: { ...batches, windowSeconds } };
}

/** Everything the bench started, to stop. */
interface Started {
  emulator?: Emulator;
  proxies: CountingProxy[];
  /** Temporary directories to remove at the end. */
  dirs: string[];
}

async function setUp(started: Started, log: (line: string) => void): Promise<BenchStack> {
  const borrowed = process.env.AWS_ENDPOINT_URL;
  // The emulator accepts any credentials; the in-process CLI's SDK clients read them from the environment.
  Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test', AWS_REGION: 'us-east-1' });
  started.emulator = await startEmulator({ advertisedHost: borrowed ? undefined : PROXY_HOST, log });
  const endpoint = started.emulator.endpoint;
  const port = Number(new URL(endpoint).port);
  // On the embedded emulator the proxy sits where queue URLs point, so the guard's SendMessage
  // (which follows the queue URL) passes through it too.
  const functionsProxy = await startCountingProxy({
    target: endpoint,
    ...(borrowed ? {} : { host: PROXY_HOST, port }),
  });
  started.proxies.push(functionsProxy);
  const cliProxy = await startCountingProxy({ target: endpoint });
  started.proxies.push(cliProxy);
  log(
    `functions' calls through ${functionsProxy.endpoint} (each function under its own path), the CLI's through ${cliProxy.endpoint}`,
  );

  const previous = process.env.RESEAL_ENDPOINT_OVERRIDE;
  process.env.RESEAL_ENDPOINT_OVERRIDE = functionsProxy.endpoint;
  let outputs: StackOutputs;
  try {
    outputs = (await deployStack(endpoint, {
      embedded: started.emulator.embedded,
      log,
      // Each function its own path on the proxy, so its calls are counted apart (bench/stack/party-endpoints.ts).
      context: { endpointOverrides: JSON.stringify(partyEndpoints(functionsProxy.endpoint)) },
    })) as StackOutputs;
  } finally {
    if (previous === undefined) delete process.env.RESEAL_ENDPOINT_OVERRIDE;
    else process.env.RESEAL_ENDPOINT_OVERRIDE = previous;
  }
  const cloudFormation = new CloudFormationClient(clientConfig(endpoint));
  return {
    outputs,
    endpoint,
    functionCalls: functionsProxy.tally,
    functionParties: functionsProxy.byParty,
    cli: { endpoint: cliProxy.endpoint, calls: cliProxy.tally },
    logs: await functionLogs(endpoint, cloudFormation, STACK_NAME),
  };
}

/** Keys and alarms the deployed stack pays for each month. */
async function fixedResources(endpoint: string) {
  const cloudFormation = new CloudFormationClient(clientConfig(endpoint));
  const { StackResources = [] } = await cloudFormation.send(
    new DescribeStackResourcesCommand({ StackName: STACK_NAME }),
  );
  const count = (type: string) => StackResources.filter((r) => r.ResourceType === type).length;
  return { kmsKeyMonth: count('AWS::KMS::Key'), cloudWatchAlarmMonth: count('AWS::CloudWatch::Alarm') };
}

/** Loads and checks bench/prices.json. */
export function loadPrices(path = join(ROOT, 'bench', 'prices.json')): PriceTable {
  return parseInput(PriceTableSchema, JSON.parse(readFileSync(path, 'utf8')), `price table ${path}`);
}

async function main(argv: readonly string[]): Promise<void> {
  const options = parseBenchArgs(argv);
  if (options === 'help') {
    console.log(USAGE);
    return;
  }
  if (process.env.AWS_ENDPOINT_URL) checkEndpoint(process.env.AWS_ENDPOINT_URL);
  const prices = loadPrices();
  const log = (line: string) => console.error(`[bench:stack] ${line}`);
  const started: Started = { proxies: [], dirs: [] };
  const runStarted = performance.now();
  try {
    const stack = await setUp(started, log);
    const bench = benchClient(stack);
    const full = options.only === undefined;
    // MiniStack's own log, where it names each batch it hands a function (the embedded emulator's only).
    const ministackLog = started.emulator?.embedded
      ? join(EMULATOR_DIR, `ministack-${new URL(stack.endpoint).port}.log`)
      : undefined;
    const windowLabel = options.guardWindow > 0 ? `, guard window ${options.guardWindow} s (emulated)` : '';
    const run = Date.now().toString(36);
    const lineage = (name: string) => benchLineageId(`bench-${run}-${name}`);

    log('warm-up: one write and one recall (cold starts, not measured)');
    await measureWrites(stack, bench, { name: 'warm-up', lineages: [lineage('warm')], perLineage: 1, intervalMs: 0 });
    await measureRecalls(stack, bench, 'warm-up', lineage('warm'), { latest: true }, 1);

    log(`design floor: ${options.floorWrites} writes one at a time, then ${options.floorWrites * 2} four at a time`);
    const writeFloor = await measureWriteFloor(stack, options.floorWrites, 1);
    const writeFloorParallel = await measureWriteFloor(stack, options.floorWrites * 2, 4);
    const writeFloorSpeed: Floor = { ...writeFloorParallel, latenciesMs: writeFloor.latenciesMs };
    const recallFloor = full ? await measureRecallFloor(stack, Math.max(options.recalls, 5)) : undefined;

    const writes: Measured[] = [];
    // Lineage sizes for the busy lineages, recalls and audits: none with `--only sparse`.
    const sizes = full ? options.records : [];
    for (const n of sizes.filter((size) => size > options.pipelineMax)) {
      log(`a ${n}-record lineage sealed in-process (not measured), for recalls and audits`);
      await sealInProcess(stack, lineage(`busy-${n}`), n);
    }
    for (const n of sizes.filter((size) => size <= options.pipelineMax)) {
      log(`busy lineage: ${n} writes at once`);
      writes.push(
        await measureWrites(stack, bench, {
          name: `busy lineage, ${n} writes`,
          lineages: [lineage(`busy-${n}`)],
          perLineage: n,
          intervalMs: 0,
        }),
      );
    }
    const sparseLineages = Array.from({ length: options.sparseLineages }, (_, i) => lineage(`sparse-${i}`));
    log(`sparse: ${options.sparseLineages} lineages × 1 write/s × ${options.sparseSeconds} s${windowLabel}`);
    writes.push(
      await measureSparseWrites(
        stack,
        bench,
        {
          name: `sparse, ${options.sparseLineages} lineages × 1 write/s${windowLabel}`,
          lineages: sparseLineages,
          perLineage: options.sparseSeconds,
          intervalMs: 1_000,
        },
        options.guardWindow,
        ministackLog,
        log,
      ),
    );

    // The same writes at a rate the emulator seals as they come (the scenario above publishes
    // faster than it seals, so its clients' polls measure the emulator's backlog): the client's
    // reads to its sealed outcome at the latency the pipeline sets.
    const pacedLineages = Array.from({ length: options.pacedLineages }, (_, i) => lineage(`paced-${i}`));
    log(`sparse, paced: ${pacedLineages.length} lineages × 1 write/s × ${options.sparseSeconds} s${windowLabel}`);
    const paced = await measureSparseWrites(
      stack,
      bench,
      {
        name: `sparse, paced, ${pacedLineages.length} lineages × 1 write/s${windowLabel}`,
        lineages: pacedLineages,
        perLineage: options.sparseSeconds,
        intervalMs: 1_000,
        // Every write waited for from its publish: no wait queued behind another's.
        waiters: pacedLineages.length * options.sparseSeconds,
      },
      options.guardWindow,
      ministackLog,
      log,
    );
    writes.push(paced);

    // An agent that waits until its write is proven (publish --wait, the MCP write tool): the
    // client's polls while the seal awaits integration (docs/pipeline.md, "Polling the table").
    const provenLineages = Array.from({ length: Math.min(10, options.sparseLineages) }, (_, i) =>
      lineage(`proven-${i}`),
    );
    log(
      `sparse until proven: ${provenLineages.length} lineages × 1 write/s × ${options.sparseSeconds} s${windowLabel}`,
    );
    writes.push(
      await measureSparseWrites(
        stack,
        bench,
        {
          name: `sparse until proven, ${provenLineages.length} lineages × 1 write/s${windowLabel}`,
          lineages: provenLineages,
          perLineage: options.sparseSeconds,
          intervalMs: 1_000,
          waiters: provenLineages.length * options.sparseSeconds,
          untilProven: true,
        },
        options.guardWindow,
        ministackLog,
        log,
      ),
    );

    // The CLI's stack pin (docs/cli.md, "Pinning the stack"), written once through the counting proxy.
    const pinDir = mkdtempSync(join(tmpdir(), 'reseal-bench-pin-'));
    started.dirs.push(pinDir);
    const pinFile = join(pinDir, 'stack.json');
    await pinBenchStack(stack, pinFile);
    const recalls: Measured[] = [];
    const directRecalls: Measured[] = [];
    const audits: Measured[] = [];
    const auditFloors: Floor[] = [];
    for (const n of sizes) {
      const id = lineage(`busy-${n}`);
      log(`recalls of a ${n}-record lineage`);
      recalls.push(
        await measureRecalls(stack, bench, `recall latest, ${n} records`, id, { latest: true }, options.recalls),
      );
      const seq = Math.floor((await headSeq(stack, id)) / 2);
      recalls.push(await measureRecalls(stack, bench, `recall by seq, ${n} records`, id, { seq }, options.recalls));
      log(`recalls of a ${n}-record lineage without triage (the client's own proof, no event)`);
      directRecalls.push(
        await measureRecalls(
          stack,
          bench,
          `recall latest, no triage, ${n} records`,
          id,
          { latest: true },
          options.recalls,
          'client',
        ),
        await measureRecalls(
          stack,
          bench,
          `recall by seq, no triage, ${n} records`,
          id,
          { seq },
          options.recalls,
          'client',
        ),
      );
      log(`audits of a ${n}-record lineage (reseal verify --lineage: signed tree, pinned; then --audit-macs)`);
      const floor = await measureAuditFloor(stack, id);
      audits.push(await measureAudit(stack, `verify --lineage, ${n} records`, id, n, { pinFile }));
      auditFloors.push(floor);
      audits.push(
        await measureAudit(stack, `verify --lineage --audit-macs, ${n} records`, id, n, { auditMacs: true, pinFile }),
      );
      auditFloors.push(floor);
    }

    const monthly = monthlyCost(await fixedResources(stack.endpoint), prices);
    const floors = floorCosts(prices);
    const cpu = cpus()[0]?.model ?? 'unknown CPU';
    const out: string[] = [
      '# Reseal emulator bench',
      '',
      `- date: ${new Date().toISOString()}`,
      `- machine: ${platform()} ${arch()}, ${cpus().length} × ${cpu}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB; node ${process.version}`,
      `- endpoint: ${started.emulator?.embedded ? 'embedded MiniStack' : `AWS_ENDPOINT_URL (${stack.endpoint})`}; prices: bench/prices.json (${prices.region})`,
      `- options: ${JSON.stringify(options)}`,
      '',
      '## Throughput and latency (publish to proven outcome; request to proven answer)',
      '',
      ...SPEED_HEADER,
      ...writes.map((m) => speedRow(m, writeFloorSpeed)),
      ...(recallFloor ? recalls.map((m) => speedRow(m, recallFloor)) : []),
      ...(recallFloor ? directRecalls.map((m) => speedRow(m, recallFloor)) : []),
      ...audits.map((m, i) => speedRow(m, auditFloors[i] as Floor)),
      '',
      `Write floor: the design card's calls (two SQS hops, GenerateMac, PutEvents) made directly: p50 ${quantile(writeFloor.latenciesMs, 0.5)} ms one at a time, ${(writeFloorParallel.operations / writeFloorParallel.seconds).toFixed(1)}/s four at a time. Recall floor: two PutEvents. Audit floor: the lineage's records read with consistent Query pages, nothing checked.`,
      '',
      'What the emulator bounds: it runs one sealer invocation at a time per FIFO queue, runs the functions as workers on this machine\'s node beside itself, the bench and its proxies, and answers every call from one process; rates and latencies here are the emulator\'s, and the ceiling on AWS follows from the counts and the quotas (docs/infrastructure.md, "Cost and quotas").',
      '',
      "## The client's outcome reads (per write, beside the latency they were taken at)",
      '',
      ...OUTCOME_READS_HEADER,
      ...writes.map(outcomeReadsRow),
      '',
      "The client polls its outcome every 500 ms until the seal (and, until proven, the deployment log's proof) is there: its reads per write grow with the wait. Where a scenario publishes faster than the emulator seals, the wait is the emulator's backlog; the paced scenario's rate is one the emulator keeps up with, so its reads are the client's at a latency the pipeline sets. The emulator reports no capacity for BatchGetItem: its items are priced by their size.",
      '',
      "## The guard's batches (MiniStack's log)",
      '',
      ...GUARD_BATCHES_HEADER,
      ...writes.filter((m) => m.guardBatches !== undefined).map(guardBatchesRow),
      '',
      `MiniStack ignores the event source's batching window (\`MaximumBatchingWindowInSeconds\`, \`guardBatchingWindowSeconds\`, ${DEFAULT_GUARD_BATCHING_WINDOW_SECONDS} s by default): where a window is shown it was emulated, the guard's event source mapping paused and re-enabled once a window until the queue was empty (bench/stack/guard-window.ts; docs/infrastructure.md, "The guard's batching window"); without one, MiniStack's poller took whatever each pass found. The batches are the ones MiniStack logged, failed records included; the guard pollers' \`ReceiveMessage\` is billed by the 64 KiB chunks of each batch, at the client's mean message size.`,
      '',
      '## Cost per million operations (cost model, bench/prices.json)',
      '',
      ...COST_HEADER,
      ...writes.map((m) => costRow(m, prices, 'write')),
      ...recalls.map((m) => costRow(m, prices, 'recall')),
      ...directRecalls.map((m) => costRow(m, prices, 'direct-recall')),
      ...audits.map((m) => costRow(m, prices, 'audit')),
      '',
      "## Recall without triage against its target (the client's own path)",
      '',
      ...DIRECT_RECALL_TARGET_HEADER,
      ...directRecalls.map((m) => directRecallTargetRow(m, prices)),
      '',
      `The issue's target: ≤ $${DIRECT_RECALL_TARGET_USD_PER_MILLION.toFixed(2)} per million recalls on the client's own path (ResealClient.recallDirect, reseal recall --no-triage: no RecallRequested or TriageCompleted, no triage report). The emulator reports no capacity for BatchGetItem; its items are priced here by their size (4 KB a unit, half for an eventually consistent read), an estimate.`,
      '',
      `Design card's floor: $${floors.write.usdPerMillion.toFixed(2)} per million writes (${floors.write.lines.map((l) => `${l.units} ${l.dimension}`).join(', ')}), $${floors.recall.usdPerMillion.toFixed(2)} per million recalls (two events). Audits: per audit of the whole lineage.`,
      '',
      monthlyLine(monthly),
      '',
      // The deployment index's share of a write at a production index size (shared/cost/index-usage.ts).
      '## The index share of a write at 10^6 keys (modelled)',
      '',
      ...INDEX_COST_HEADER,
      ...writes.map((m) =>
        indexCostRow(m, prices, {
          indexKeys: 1e6,
          intervalSeconds: DEFAULT_INTEGRATION_INTERVAL_SECONDS,
          // The sparse scenario's nominal rate (one write a second per lineage); a busy lineage's is the run's.
          ...(m === paced
            ? { lineages: options.pacedLineages, writesPerSecond: options.pacedLineages }
            : m.name.startsWith('sparse')
              ? { lineages: options.sparseLineages, writesPerSecond: options.sparseLineages }
              : { lineages: 1 }),
        }),
      ),
      '',
      "The sealer's index reads per invocation and the integrator's work per integration (shared/cost/index-usage.ts), amortized over the writes of a 2 s interval: the sparse scenario at its nominal rate (one write a second per lineage), a busy lineage at the run's. The measured write above already holds both at the bench's index size (a few hundred keys) and the emulator's rate, which integrates a few writes at a time; the emulator reports no capacity for their BatchGetItem reads (docs/infrastructure.md, \"Cost and quotas\").",
      '',
      '## Calls per operation',
      '',
      ...[...writes, ...recalls, ...directRecalls, ...audits].flatMap((m) => [callsTable(m), '']),
      `(${((performance.now() - runStarted) / 1000).toFixed(0)} s)`,
    ];
    console.log(out.join('\n'));
  } finally {
    for (const proxy of started.proxies) await proxy.close();
    await started.emulator?.stop();
    for (const dir of started.dirs) rmSync(dir, { recursive: true, force: true });
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
