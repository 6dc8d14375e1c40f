/**
 * The emulator bench's measurements on a deployed stack (docs/infrastructure.md, "Cost and
 * quotas"): writes, recalls and audits through the real client and CLI, each counted three ways —
 * the bench's own SDK clients through their middleware (bench/stack/counting-middleware.ts), the
 * functions' and the CLI's calls through counting proxies (bench/stack/counting-proxy.ts), and
 * the functions' invocations, duration and log bytes from their log groups
 * (bench/stack/function-logs.ts) — plus the design card's floor, timed on the same emulator.
 */
import { createHash, randomUUID } from 'node:crypto';
import { DynamoDBClient, GetItemCommand, paginateQuery } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { GenerateMacCommand, KMSClient } from '@aws-sdk/client-kms';
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  DeleteQueueCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { DynamoDBLineageStore } from '../../adapters/dynamodb-lineage-store';
import { KMSMacAnchor } from '../../adapters/kms-mac-anchor';
import { KMSNoteSigner } from '../../adapters/kms-note-signer';
import { LineageKeys } from '../../adapters/lineage-keys';
import { run as runCli } from '../../cli/run';
import { MemoryCheckpointStore } from '../../client/memory-checkpoint-store';
import { publishWaitSince } from '../../client/publish-wait-since';
import { ResealClient } from '../../client/reseal-client';
import { soleWriterLineageId, soleWriterPolicy } from '../../client/sole-writer-policy';
import { clientOutputsFrom, type StackOutputs } from '../../client/stack-outputs';
import { writeRequest } from '../../client/write-request';
import { SealerService } from '../../functions/sealer/sealer-service';
import { LocalWriterSigner } from '../../shared/authorship/local-writer-signer';
import { signWriteRequest } from '../../shared/authorship/write-signature';
import { evaluateWrite } from '../../shared/guard/evaluate-write';
import { sealerKeyName } from '../../shared/log/log-names';
import type { RecallTarget } from '../../shared/pipeline/recall-target';
import type { ResidualWriteRequest, UnsignedWriteRequest } from '../../shared/write/write-request';
import {
  type CallCounts,
  CallTally,
  countsSince,
  type PartyCounts,
  partyCountsSince,
  snapshotParties,
} from './call-tally';
import { countCalls } from './counting-middleware';
import type { DeliveredBatches } from './event-source-batches';
import type { FunctionLogs, FunctionsActivity } from './function-logs';

/** The deployed stack and where each party's calls are counted. */
export interface BenchStack {
  readonly outputs: StackOutputs;
  /** The emulator; the bench's own clients call it directly. */
  readonly endpoint: string;
  /** The functions' calls (the proxy their `AWS_ENDPOINT_URL` names), or `null` when not observed. */
  readonly functionCalls: CallTally | null;
  /**
   * The same calls by function (`guard`, `sealer`, `integrator`, …: the path each function's
   * endpoint names on the proxy, bench/stack/party-endpoints.ts); absent or `null` when not told apart.
   */
  readonly functionParties?: ReadonlyMap<string, CallTally> | null;
  /** Endpoint the in-process CLI is given, and its tally (a proxy of its own). */
  readonly cli: { readonly endpoint: string; readonly calls: CallTally };
  /** The functions' log groups, or `null` when not read. */
  readonly logs: FunctionLogs | null;
}

/** One measured scenario. */
export interface Measured {
  readonly name: string;
  /** Writes, recalls or audits it made. */
  readonly operations: number;
  /** Records each audit walked (audits only). */
  readonly records?: number;
  /** Calls of the bench's client (the agent's side), counted by the SDK middleware. */
  readonly client: CallCounts;
  /** Calls of the functions, all together, counted by the proxy (`null`: not observed). */
  readonly functions: CallCounts | null;
  /**
   * {@link functions} by function (`guard`, `sealer`, `integrator`, …), as the proxy told them
   * apart; absent or `null`: not told apart.
   */
  readonly byFunction?: PartyCounts | null;
  /** The functions' invocations, GB-s and log bytes (`null`: not read). */
  readonly lambda: FunctionsActivity | null;
  /** Wall time from the first publish to the last outcome, seconds. */
  readonly seconds: number;
  /** Publish-to-outcome (or request-to-answer) latency of each operation, ms. */
  readonly latenciesMs: readonly number[];
  /**
   * Writes only: from the first publish's start to the last one's end, seconds; the rate the
   * guard's queue really got (a loaded machine publishes slower than the plan asks).
   */
  readonly publishSeconds?: number;
  /**
   * The batches the guard was handed, from the emulator's log (bench/stack/event-source-batches.ts),
   * with the batching window the bench emulated, seconds (0: none, MiniStack's own polling);
   * absent when not read.
   */
  readonly guardBatches?: DeliveredBatches & { readonly windowSeconds: number };
}

/** The design card's floor, timed on the same emulator in the same run. */
export interface Floor {
  readonly name: string;
  readonly operations: number;
  readonly seconds: number;
  readonly latenciesMs: readonly number[];
}

/** Writes a plan publishes at once at most (see `measureWrites`). */
const MAX_PUBLISHING = 32;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Runs `tasks` with at most `limit` at a time; resolves with their results in order. */
async function pool<T>(limit: number, tasks: readonly (() => Promise<T>)[]): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await (tasks[i] as () => Promise<T>)();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return results;
}

/** The environment every bench write is sealed against: 100 keys, a 100-key manifest. */
export const BENCH_ENV: Readonly<Record<string, string>> = Object.fromEntries([
  ['ARCH', 'arm64'],
  ...Array.from({ length: 99 }, (_, i) => [`TOOL_${String(i).padStart(2, '0')}_VERSION`, `${i}.${i % 7}.${i % 3}`]),
]);

/** Bytes of the payload's text: 1 KiB. */
export const BENCH_PAYLOAD_BYTES = 1024;

/** The bench's writer key: a fresh Ed25519 key per run, signing every bench write (docs/authorship.md). */
export const BENCH_WRITER = LocalWriterSigner.generate('bench-writer').signer;

/** The self-certifying id of bench lineage `label`, under {@link BENCH_WRITER} alone (`soleWriterLineageId`). */
export function benchLineageId(label: string): string {
  return soleWriterLineageId(label, BENCH_WRITER);
}

/** A write of the bench (unsigned; the bench client signs it): 1 KiB payload, a 100-key manifest with ten claims on ten keys each. */
export function benchWrite(lineageId: string, residualId: string, nowMs: number): UnsignedWriteRequest {
  const keys = Object.keys(BENCH_ENV).filter((k) => k !== 'ARCH');
  return writeRequest({
    residualId,
    lineageId,
    sessionId: `${lineageId}-session`,
    generationEpoch: 1,
    boundaryAtMs: nowMs - 1_000,
    payload: { note: 'x'.repeat(BENCH_PAYLOAD_BYTES) },
    manifest: {
      env: { ...BENCH_ENV },
      structuralKeys: ['ARCH'],
      claimDependencyMap: Object.fromEntries(
        Array.from({ length: 10 }, (_, c) => [`claim-${c}`, keys.slice(c * 10, c * 10 + 10)]),
      ),
    },
  });
}

/** The bench's client: a {@link ResealClient} whose SDK clients are counted in `calls`. */
export interface BenchClient {
  readonly client: ResealClient;
  readonly calls: CallTally;
}

/** A counted client on `stack`'s endpoint, keeping verified checkpoints in memory as an agent would. */
export function benchClient(stack: Pick<BenchStack, 'endpoint' | 'outputs'>): BenchClient {
  const calls = new CallTally();
  const config = {
    endpoint: stack.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  };
  const client = new ResealClient(clientOutputsFrom({ ...stack.outputs }), {
    sqs: countCalls(new SQSClient({ ...config, useQueueUrlAsEndpoint: false }), calls),
    eventBridge: countCalls(new EventBridgeClient(config), calls),
    dynamodb: countCalls(new DynamoDBClient(config), calls),
    kms: countCalls(new KMSClient(config), calls),
    checkpointStore: new MemoryCheckpointStore(),
    writer: BENCH_WRITER,
  });
  return { client, calls };
}

/** Snapshots of every counter, to measure what happens between two of them. */
function mark(stack: BenchStack, bench: BenchClient) {
  return {
    atMs: Date.now(),
    client: bench.calls.snapshot(),
    functions: stack.functionCalls?.snapshot() ?? null,
    byFunction: stack.functionParties ? snapshotParties(stack.functionParties) : null,
  };
}

/** How long to wait after a scenario for the emulator to write the last invocations' logs, ms. */
const LOG_SETTLE_MS = 1_500;

async function since(
  stack: BenchStack,
  bench: BenchClient,
  before: ReturnType<typeof mark>,
): Promise<Pick<Measured, 'client' | 'functions' | 'byFunction' | 'lambda'>> {
  // Functions may still finish what the client already saw (triage publishes TriageCompleted
  // after storing its report): wait before reading their counts, so the next scenario gets none.
  await sleep(LOG_SETTLE_MS);
  const after = mark(stack, bench);
  return {
    client: countsSince(after.client, before.client),
    functions: after.functions && before.functions ? countsSince(after.functions, before.functions) : null,
    byFunction: after.byFunction && before.byFunction ? partyCountsSince(after.byFunction, before.byFunction) : null,
    lambda: stack.logs ? await stack.logs.activity(before.atMs, Date.now()) : null,
  };
}

/** A plan of writes: `lineages` lineages, `perLineage` writes each, one every `intervalMs` per lineage (0: all at once). */
export interface WritePlan {
  readonly name: string;
  readonly lineages: readonly string[];
  readonly perLineage: number;
  readonly intervalMs: number;
  /** Outcome waits at a time. @default 8 */
  readonly waiters?: number;
  /** Per write. @default 600_000 */
  readonly timeoutMs?: number;
  /**
   * Wait past the seal until the write is `PROVEN` through the deployment log, as `reseal publish
   * --wait` and the MCP write tool do (`untilProven`); every write must then be proven. @default false
   */
  readonly untilProven?: boolean;
}

/**
 * Publishes the plan's writes through the client (SQS), lineage `i` starting `i × intervalMs /
 * lineages` into each interval, and waits for each proven outcome; every write must be sealed.
 *
 * @throws {Error} when a write is refused or its outcome does not come in time
 */
export async function measureWrites(stack: BenchStack, bench: BenchClient, plan: WritePlan): Promise<Measured> {
  const before = mark(stack, bench);
  const started = Date.now();
  const latencies: number[] = [];
  const waits: Promise<void>[] = [];
  let waiting = 0;
  const maxWaiters = plan.waiters ?? 8;
  const schedule = plan.lineages.flatMap((lineageId, i) =>
    Array.from({ length: plan.perLineage }, (_, k) => ({
      lineageId,
      k,
      atMs: k * plan.intervalMs + (i * plan.intervalMs) / plan.lineages.length,
    })),
  );
  schedule.sort((a, b) => a.atMs - b.atMs);
  const waitFor = async (request: ResidualWriteRequest, published: { publishedAtMs: number }) => {
    while (waiting >= maxWaiters) await sleep(20);
    waiting += 1;
    try {
      const outcome = await bench.client.waitForOutcome(request.lineageId, request.residualId, {
        request,
        sinceMs: publishWaitSince(published),
        // The client's own poll interval (500 ms): what an agent waiting for its outcome costs.
        timeoutMs: plan.timeoutMs ?? 600_000,
        ...(plan.untilProven ? { untilProven: true } : {}),
      });
      if (outcome.kind !== 'SEALED') {
        throw new Error(`bench write ${request.residualId} was not sealed: ${outcome.kind}`);
      }
      if (plan.untilProven && outcome.freshness?.state !== 'PROVEN') {
        throw new Error(`bench write ${request.residualId} was not proven: ${outcome.freshness?.state}`);
      }
      latencies.push(Date.now() - published.publishedAtMs);
    } finally {
      waiting -= 1;
    }
  };
  // Each write is published at its planned time, not after the previous publish returned: on a
  // loaded machine a publish (signing and `SendMessage`) can take longer than the plan's gap, and
  // writes published one after another fell far below the plan's rate (about 4 of 50 writes/s),
  // which changes what the queues batch. At most `MAX_PUBLISHING` are in flight.
  const publishes: Promise<void>[] = [];
  let publishing = 0;
  for (const { lineageId, k, atMs } of schedule) {
    const delay = started + atMs - Date.now();
    if (delay > 0) await sleep(delay);
    while (publishing >= MAX_PUBLISHING) await sleep(5);
    publishing += 1;
    const publish = bench.client.publishWrite(benchWrite(lineageId, `${lineageId}-w${k}`, Date.now())).finally(() => {
      publishing -= 1;
    });
    publishes.push(publish.then(() => undefined));
    waits.push(publish.then((published) => waitFor(published.request, published)));
  }
  await Promise.all(publishes);
  const publishSeconds = (Date.now() - started) / 1000;
  await Promise.all(waits);
  const seconds = (Date.now() - started) / 1000;
  return {
    name: plan.name,
    operations: schedule.length,
    seconds,
    publishSeconds,
    latenciesMs: latencies,
    ...(await since(stack, bench, before)),
  };
}

/**
 * Recalls, one after another, `count` times, each for `target`, against the environment the
 * records were sealed in: through EventBridge (`ResealClient.recall`, triage's answer proven by the
 * client), or with `via` `client` the client's own (`ResealClient.recallDirect`, no event).
 */
export async function measureRecalls(
  stack: BenchStack,
  bench: BenchClient,
  name: string,
  lineageId: string,
  target: RecallTarget,
  count: number,
  via: 'triage' | 'client' = 'triage',
): Promise<Measured> {
  const before = mark(stack, bench);
  const started = Date.now();
  const latencies: number[] = [];
  for (let i = 0; i < count; i++) {
    const at = Date.now();
    const request = { lineageId, target, currentEnv: { ...BENCH_ENV } };
    const recall =
      via === 'client'
        ? await bench.client.recallDirect(request)
        : await bench.client.recall(request, { timeoutMs: 120_000, pollIntervalMs: 100 });
    if (recall.verdict !== 'VERIFIED_INTACT') throw new Error(`bench recall of ${lineageId}: ${recall.verdict}`);
    latencies.push(Date.now() - at);
  }
  const seconds = (Date.now() - started) / 1000;
  return { name, operations: count, seconds, latenciesMs: latencies, ...(await since(stack, bench, before)) };
}

/**
 * Runs the `reseal` CLI in-process, its AWS calls through the CLI's counting proxy (the CLI makes
 * its own SDK clients from `AWS_ENDPOINT_URL`), with `env` added to the process environment.
 *
 * @returns the exit code, standard output and error, and the wall time
 */
export async function runBenchCli(
  stack: BenchStack,
  argv: readonly string[],
  env: Readonly<Record<string, string>> = {},
): Promise<{ code: number; stdout: string; stderr: string; elapsedMs: number }> {
  // The CLI's SDK clients take credentials from the process environment (the SDK's chain), not
  // from `io.env`: the emulator's test credentials are set for the run, then put back.
  const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };
  process.env.AWS_ACCESS_KEY_ID = 'test';
  process.env.AWS_SECRET_ACCESS_KEY = 'test';
  const started = Date.now();
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    env: {
      ...process.env,
      AWS_ENDPOINT_URL: stack.cli.endpoint,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test',
      // Audits walk the table and keep no manifest; nothing of a run is left in the checkout.
      RESEAL_MANIFEST_CACHE: 'none',
      ...env,
    },
    nowMs: () => Date.now(),
    cwd: process.cwd(),
    stderrIsTty: false,
  }).finally(() => {
    restoreEnv('AWS_ACCESS_KEY_ID', saved.id);
    restoreEnv('AWS_SECRET_ACCESS_KEY', saved.secret);
  });
  return { code, stdout, stderr, elapsedMs: Date.now() - started };
}

/**
 * `reseal pin` through the CLI's counting proxy, into `path` (docs/cli.md, "Pinning the stack"):
 * later CLI runs given `RESEAL_STACK_FILE=path` make no `DescribeStacks` and no `GetPublicKey`.
 * @throws {Error} when the CLI does not exit 0
 */
export async function pinBenchStack(stack: BenchStack, path: string): Promise<void> {
  const run = await runBenchCli(stack, ['pin', '--json'], { RESEAL_STACK_FILE: path });
  if (run.code !== 0) throw new Error(`reseal pin exited ${run.code}: ${run.stderr.slice(-500)}`);
}

/** How {@link measureAudit} runs `reseal verify --lineage`. */
export interface AuditMode {
  /** `--audit-macs`: one KMS `VerifyMac` per record instead of the signed tree. */
  readonly auditMacs?: boolean;
  /** A stack pin file (`reseal pin`) the CLI reads, so it makes no `DescribeStacks` or `GetPublicKey`. */
  readonly pinFile?: string;
}

/**
 * `reseal verify --lineage <lineageId>` run in-process, its AWS calls through the CLI's counting
 * proxy: by default the signed-tree verification, with `auditMacs` the MAC audit.
 *
 * @throws {Error} when the CLI does not exit 0 (an intact lineage)
 */
export async function measureAudit(
  stack: BenchStack,
  name: string,
  lineageId: string,
  records: number,
  mode: AuditMode = {},
): Promise<Measured> {
  const before = stack.cli.calls.snapshot();
  const argv = ['verify', '--lineage', lineageId, '--json', ...(mode.auditMacs ? ['--audit-macs'] : [])];
  const run = await runBenchCli(stack, argv, mode.pinFile ? { RESEAL_STACK_FILE: mode.pinFile } : {});
  if (run.code !== 0)
    throw new Error(`reseal verify --lineage ${lineageId} exited ${run.code}: ${run.stderr.slice(-500)}`);
  const client = countsSince(stack.cli.calls.snapshot(), before);
  return {
    name,
    operations: 1,
    records,
    seconds: run.elapsedMs / 1000,
    latenciesMs: [run.elapsedMs],
    client,
    functions: null,
    lambda: null,
  };
}

function restoreEnv(name: string, value: string | undefined): void {
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
}

/** Plain (uncounted) SDK clients on the emulator, for the floors. */
function plainClients(endpoint: string) {
  const config = { endpoint, region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } };
  return {
    sqs: new SQSClient({ ...config, useQueueUrlAsEndpoint: false }),
    kms: new KMSClient(config),
    events: new EventBridgeClient(config),
    dynamodb: new DynamoDBClient(config),
  };
}

/**
 * The design card's floor of a write, made directly on the same emulator: `SendMessage`,
 * `ReceiveMessage`, `DeleteMessage` on a scratch standard queue and on a scratch FIFO queue, one
 * `GenerateMac` and one `PutEvents` (an event no rule matches), back to back; `operations` of
 * them, `concurrency` at a time. The scratch queues are deleted afterwards.
 */
export async function measureWriteFloor(
  stack: Pick<BenchStack, 'endpoint' | 'outputs'>,
  operations: number,
  concurrency: number,
): Promise<Floor> {
  const { sqs, kms, events } = plainClients(stack.endpoint);
  const id = randomUUID().slice(0, 8);
  const standard = (await sqs.send(new CreateQueueCommand({ QueueName: `reseal-bench-floor-${id}` }))).QueueUrl;
  const fifo = (
    await sqs.send(
      new CreateQueueCommand({
        QueueName: `reseal-bench-floor-${id}.fifo`,
        Attributes: { FifoQueue: 'true', ContentBasedDeduplication: 'true' },
      }),
    )
  ).QueueUrl;
  if (!standard || !fifo) throw new Error('CreateQueue returned no QueueUrl');
  const body = JSON.stringify(benchWrite('floor', 'floor', Date.now()));
  const hop = async (queueUrl: string, groupId?: string) => {
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: queueUrl,
        MessageBody: body,
        ...(groupId ? { MessageGroupId: groupId, MessageDeduplicationId: randomUUID() } : {}),
      }),
    );
    for (;;) {
      const { Messages = [] } = await sqs.send(
        new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 1, WaitTimeSeconds: 1 }),
      );
      const message = Messages[0];
      if (message?.ReceiptHandle) {
        await sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle }));
        return;
      }
    }
  };
  const latencies: number[] = [];
  const started = Date.now();
  try {
    await pool(
      concurrency,
      Array.from({ length: operations }, (_, i) => async () => {
        const at = Date.now();
        await hop(standard);
        await hop(fifo, `floor-${i % 50}`);
        await kms.send(
          new GenerateMacCommand({
            KeyId: stack.outputs.MacKeyArn,
            MacAlgorithm: 'HMAC_SHA_256',
            Message: createHash('sha256').update(body).digest(),
          }),
        );
        await events.send(
          new PutEventsCommand({
            Entries: [
              {
                Source: 'reseal.bench',
                DetailType: 'BenchFloor',
                EventBusName: stack.outputs.EventBusName,
                Detail: '{}',
              },
            ],
          }),
        );
        latencies.push(Date.now() - at);
      }),
    );
  } finally {
    await sqs.send(new DeleteQueueCommand({ QueueUrl: standard })).catch(() => undefined);
    await sqs.send(new DeleteQueueCommand({ QueueUrl: fifo })).catch(() => undefined);
  }
  return { name: 'design floor: write', operations, seconds: (Date.now() - started) / 1000, latenciesMs: latencies };
}

/** The design card's floor of a recall: two `PutEvents` back to back, `operations` times. */
export async function measureRecallFloor(
  stack: Pick<BenchStack, 'endpoint' | 'outputs'>,
  operations: number,
): Promise<Floor> {
  const { events } = plainClients(stack.endpoint);
  const latencies: number[] = [];
  const started = Date.now();
  for (let i = 0; i < operations; i++) {
    const at = Date.now();
    for (const type of ['BenchFloorRequest', 'BenchFloorAnswer']) {
      await events.send(
        new PutEventsCommand({
          Entries: [
            { Source: 'reseal.bench', DetailType: type, EventBusName: stack.outputs.EventBusName, Detail: '{}' },
          ],
        }),
      );
    }
    latencies.push(Date.now() - at);
  }
  return { name: 'design floor: recall', operations, seconds: (Date.now() - started) / 1000, latenciesMs: latencies };
}

/**
 * The floor of an audit: the lineage's records read with consistent `Query` pages and nothing
 * checked (no hash, no MAC); the reads any verification of a stored lineage makes.
 */
export async function measureAuditFloor(
  stack: Pick<BenchStack, 'endpoint' | 'outputs'>,
  lineageId: string,
): Promise<Floor & { readonly calls: CallCounts }> {
  const calls = new CallTally();
  const { dynamodb } = plainClients(stack.endpoint);
  countCalls(dynamodb, calls);
  const started = Date.now();
  const pages = paginateQuery(
    { client: dynamodb },
    {
      TableName: stack.outputs.TableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': { S: LineageKeys.lineage(lineageId) } },
      ConsistentRead: true,
    },
  );
  for await (const _page of pages) {
    // every page read, none kept: the reads are what the floor measures
  }
  const elapsed = Date.now() - started;
  return {
    name: `audit floor ${lineageId}`,
    operations: 1,
    seconds: elapsed / 1000,
    latenciesMs: [elapsed],
    calls: calls.snapshot(),
  };
}

/** The head item of a lineage as stored (its seq), to pick a record to recall by seq. */
export async function headSeq(stack: Pick<BenchStack, 'endpoint' | 'outputs'>, lineageId: string): Promise<number> {
  const { dynamodb } = plainClients(stack.endpoint);
  const out = await dynamodb.send(
    new GetItemCommand({
      TableName: stack.outputs.TableName,
      Key: { pk: { S: LineageKeys.lineage(lineageId) }, sk: { S: LineageKeys.head } },
      ConsistentRead: true,
    }),
  );
  const seq = Number(out.Item?.seq?.N);
  if (!Number.isInteger(seq)) throw new Error(`lineage ${lineageId} has no head`);
  return seq;
}

/**
 * Seals `records` bench writes on `lineageId` with the real sealer service in this process, on
 * the deployed table and keys, in groups of 10 (as the FIFO queue hands them to the sealer), its
 * events dropped: a long lineage for recalls and audits in seconds rather than the emulator's
 * minutes. Its calls are not counted (the pipeline's are, by {@link measureWrites}).
 *
 * @throws {Error} when a write is not sealed
 */
export async function sealInProcess(
  stack: Pick<BenchStack, 'endpoint' | 'outputs'>,
  lineageId: string,
  records: number,
): Promise<void> {
  const { dynamodb, kms } = plainClients(stack.endpoint);
  const quiet = () => undefined;
  const sealer = new SealerService({
    store: new DynamoDBLineageStore(dynamodb, stack.outputs.TableName),
    publisher: {
      residualSealed: async () => undefined,
      residualRejected: async () => undefined,
      triageCompleted: async () => undefined,
    },
    anchor: new KMSMacAnchor(kms, stack.outputs.MacKeyArn),
    signer: new KMSNoteSigner(kms, stack.outputs.LogKeyArn, stack.outputs.LogName),
    refusalSigner: new KMSNoteSigner(kms, stack.outputs.SealerKeyArn, sealerKeyName(stack.outputs.LogName)),
    metrics: { count: quiet },
    logger: { appendKeys: quiet, info: quiet, warn: quiet, error: quiet },
    clock: Date.now,
  });
  for (let first = 0; first < records; first += 10) {
    const nowMs = Date.now();
    const group = await Promise.all(
      Array.from({ length: Math.min(10, records - first) }, async (_, i) => {
        const unsigned = benchWrite(lineageId, `${lineageId}-w${first + i}`, nowMs);
        const inception = first + i === 0 ? { policy: soleWriterPolicy(BENCH_WRITER) } : {};
        const request = await signWriteRequest({ ...unsigned, ...inception }, BENCH_WRITER, nowMs);
        const verdict = evaluateWrite(request, { nowMs, maxReceiptAgeSeconds: 900 });
        return {
          messageId: `${lineageId}-m${first + i}`,
          body: JSON.stringify({ formatVersion: 1, request, verdict, acceptedAtMs: nowMs }),
          sentAtMs: nowMs,
        };
      }),
    );
    const outcomes = await sealer.handleGroup(group);
    const unsealed = outcomes.findIndex((outcome) => outcome.kind !== 'SEALED');
    if (unsealed >= 0)
      throw new Error(`in-process seal of ${lineageId} #${first + unsealed}: ${outcomes[unsealed]?.kind}`);
  }
}
