import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { vi } from 'vitest';
import { ResealClient } from '../../client/reseal-client';
import type { MetricName } from '../../functions/common/metric-name';
import type { PipelineMetrics } from '../../functions/common/pipeline-metrics';
import type { ServiceLogger } from '../../functions/common/service-logger';
import { SealerService } from '../../functions/sealer/sealer-service';
import { TriageService } from '../../functions/triage/triage-service';
import { evaluateWrite } from '../../shared/guard/evaluate-write';
import type { ResidualRejectedDetail } from '../../shared/pipeline/residual-rejected-detail';
import type { ResidualSealedDetail } from '../../shared/pipeline/residual-sealed-detail';
import type { ResidualSealedRun } from '../../shared/pipeline/residual-sealed-run';
import type { SealRequest } from '../../shared/pipeline/seal-request';
import type { TriageCompletedDetail } from '../../shared/pipeline/triage-completed-detail';
import type { EventPublisher } from '../../shared/ports/event-publisher';
import type { LineageStore } from '../../shared/ports/lineage-store';
import type { SealQueue } from '../../shared/ports/seal-queue';
import type { LocalHmacAnchor } from '../../shared/seal/local-hmac-anchor';
import type { SealedDependencyManifest } from '../../shared/triage/sealed-dependency-manifest';
import type { ResidualWriteRequest } from '../../shared/write/write-request';
import { FACTORY_NOW_MS, guardPolicy, validWriteRequest } from './guard-factories';
import { InMemoryLineageStore } from './in-memory-lineage-store';
import { TEST_CLIENT_KEYS, TEST_LOG_KEY, TEST_LOG_NAME, testLogSigner, testSealerSigner } from './pipeline-keys';
import { TEST_NOW_MS, testAnchor } from './seal-factories';

let sequence = 0;

/**
 * The `seal-requests` body the guard would forward for `validWriteRequest(overrides)`, with the
 * real guard's verdict (unsafe verdicts make a body the sealer refuses).
 */
export function sealRequestBody(overrides: Partial<ResidualWriteRequest> = {}): string {
  const request = validWriteRequest(overrides);
  const body: SealRequest = {
    formatVersion: 1,
    request,
    verdict: evaluateWrite(request, guardPolicy()),
    acceptedAtMs: FACTORY_NOW_MS,
  };
  return JSON.stringify(body);
}

/**
 * A maker of `seal-requests` messages for one test: each call gives the next message id
 * (`m-1`, `m-2`, …) and sent time (`FACTORY_NOW_MS + n`), the body `sealRequestBody({ residualId })`
 * and `receiveCount` (1, a first delivery, unless said).
 */
export function sealRequestMessages() {
  let n = 0;
  return (residualId: string, receiveCount = 1) => ({
    messageId: `m-${++n}`,
    body: sealRequestBody({ residualId }),
    sentAtMs: FACTORY_NOW_MS + n,
    receiveCount,
  });
}

/**
 * A realistic SQS record (after Powertools' `sqsRecordFactory`). With
 * `messageGroupId` it is a FIFO record (group id, dedup id, sequence number attributes).
 */
export function sqsRecord(body: string, messageGroupId?: string, overrides: Partial<SQSRecord> = {}): SQSRecord {
  sequence++;
  const messageId = `00000000-0000-4000-8000-${String(sequence).padStart(12, '0')}`;
  const fifo = messageGroupId !== undefined;
  return {
    messageId,
    receiptHandle: `receipt-${messageId}`,
    body,
    attributes: {
      ApproximateReceiveCount: '1',
      SentTimestamp: String(1_800_000_000_000 + sequence),
      SenderId: 'AIDAEXAMPLE',
      ApproximateFirstReceiveTimestamp: String(1_800_000_000_100 + sequence),
      ...(fifo
        ? {
            MessageGroupId: messageGroupId,
            MessageDeduplicationId: `dedup-${messageId}`,
            SequenceNumber: String(18_800_000_000_000_000_000 + sequence),
          }
        : {}),
    },
    messageAttributes: {},
    md5OfBody: 'd41d8cd98f00b204e9800998ecf8427e',
    eventSource: 'aws:sqs',
    eventSourceARN: fifo
      ? 'arn:aws:sqs:eu-west-1:000000000000:ResealStack-seal-requests.fifo'
      : 'arn:aws:sqs:eu-west-1:000000000000:residual-writes',
    awsRegion: 'eu-west-1',
    ...overrides,
  };
}

/** An SQS event of `records`. */
export function sqsEvent(records: SQSRecord[]): SQSEvent {
  return { Records: records };
}

/** An EventBridge event as Lambda receives it (source `reseal`). */
export function eventBridgeEvent(detailType: string, detail: unknown) {
  sequence++;
  return {
    version: '0',
    id: `6a7e8feb-b491-4cf7-a9f1-${String(sequence).padStart(12, '0')}`,
    'detail-type': detailType,
    source: 'reseal',
    account: '000000000000',
    time: '2027-01-15T08:00:00Z',
    region: 'eu-west-1',
    resources: [],
    detail,
  };
}

/** A Lambda context good enough for Powertools' logger and batch processor. */
export function lambdaContext(functionName = 'reseal-test'): Context {
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:eu-west-1:000000000000:function:${functionName}`,
    memoryLimitInMB: '256',
    awsRequestId: 'c6af9ac6-7b61-11e6-9a41-93e812345678',
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: '2027/01/15/[$LATEST]abcdef',
    getRemainingTimeInMillis: () => 30_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/** One residual of a recorded `ResidualSealed` run, with its run's head and tree head (`FakePublisher.sealedResiduals`). */
export interface SealedResidualView {
  readonly residualId: string;
  readonly sealedAtMs: number;
  readonly lineageId: string;
  readonly seq: number;
  readonly recordHash: string;
  readonly run: ResidualSealedRun;
}

/** An {@link EventPublisher} that keeps what it was asked to publish; `failWith` makes calls reject. */
export class FakePublisher implements EventPublisher {
  /** Each `ResidualSealed` detail put, in order (one per sealer invocation unless split). */
  readonly sealed: ResidualSealedDetail[] = [];
  readonly rejected: ResidualRejectedDetail[] = [];
  readonly triaged: TriageCompletedDetail[] = [];
  failWith: Error | null = null;
  async residualSealed(detail: ResidualSealedDetail): Promise<void> {
    this.#maybeFail();
    this.sealed.push(structuredClone(detail));
  }
  async residualRejected(detail: ResidualRejectedDetail): Promise<void> {
    this.#maybeFail();
    this.rejected.push(structuredClone(detail));
  }
  async triageCompleted(detail: TriageCompletedDetail): Promise<void> {
    this.#maybeFail();
    this.triaged.push(structuredClone(detail));
  }
  /** Every run of every `ResidualSealed` detail put, in order. */
  get sealedRuns(): ResidualSealedRun[] {
    return this.sealed.flatMap((detail) => detail.runs);
  }
  /** Every residual announced, in order (a redelivery's again), each with its run. */
  get sealedResiduals(): SealedResidualView[] {
    return this.sealedRuns.flatMap((run) => run.residuals.map((r) => ({ ...r, lineageId: run.lineageId, run })));
  }
  #maybeFail(): void {
    if (this.failWith) throw this.failWith;
  }
}

/** A {@link SealQueue} that keeps what was enqueued, by lineage (message group). */
export class FakeSealQueue implements SealQueue {
  readonly sent: SealRequest[] = [];
  async enqueue(request: SealRequest): Promise<void> {
    this.sent.push(structuredClone(request));
  }
  /** Each request through {@link enqueue}, in order, so a test that makes `enqueue` fail fails that entry only. */
  async enqueueBatch(requests: readonly SealRequest[]): Promise<PromiseSettledResult<void>[]> {
    const results: PromiseSettledResult<void>[] = [];
    for (const request of requests) {
      try {
        results.push({ status: 'fulfilled', value: await this.enqueue(request) });
      } catch (reason) {
        results.push({ status: 'rejected', reason });
      }
    }
    return results;
  }
}

/** {@link PipelineMetrics} that counts by name (and by `name:dim=value` for each dimension). */
export class FakeMetrics implements PipelineMetrics {
  readonly counts = new Map<string, number>();
  count(name: MetricName, dimensions?: Readonly<Record<string, string>>): void {
    this.counts.set(name, (this.counts.get(name) ?? 0) + 1);
    for (const [key, value] of Object.entries(dimensions ?? {})) {
      const id = `${name}:${key}=${value}`;
      this.counts.set(id, (this.counts.get(id) ?? 0) + 1);
    }
  }
  get(name: string): number {
    return this.counts.get(name) ?? 0;
  }
}

/** A {@link ServiceLogger} whose methods are spies; `keys` holds the appended keys. */
export function fakeLogger(): ServiceLogger & { keys: Record<string, unknown> } {
  const keys: Record<string, unknown> = {};
  return {
    keys,
    appendKeys: vi.fn((attributes: Record<string, unknown>) => {
      Object.assign(keys, attributes);
    }),
    info: vi.fn(),
    warn: vi.fn(),
    error: vi.fn(),
  };
}

/** Stack outputs of a pretend deployment, for client and CLI tests that inject their stores. */
export const TEST_CLIENT_OUTPUTS = {
  tableName: 'reseal-table',
  residualWritesQueueUrl: 'http://127.0.0.1:4566/000000000000/residual-writes',
  eventBusName: 'reseal-bus',
  macKeyArn: 'test-key-1',
  logKeyArn: 'test-log-key',
  guardKeyArn: 'test-guard-key',
  sealerKeyArn: 'test-sealer-key',
  logName: TEST_LOG_NAME,
} as const;

/**
 * A lineage of `count` records sealed through the real {@link SealerService} into an in-memory
 * store (residual ids `r-0` … , `validWriteRequest` defaults with `manifest`), for tests of
 * what reads the lineage (triage, clients).
 */
export async function lineageSealedBySealer(
  count: number,
  manifest: SealedDependencyManifest,
): Promise<{ store: InMemoryLineageStore; anchor: LocalHmacAnchor }> {
  const store = new InMemoryLineageStore();
  const anchor = testAnchor();
  const sealer = new SealerService({
    store,
    publisher: new FakePublisher(),
    anchor,
    signer: testLogSigner(),
    refusalSigner: testSealerSigner(),
    metrics: new FakeMetrics(),
    logger: fakeLogger(),
    clock: () => FACTORY_NOW_MS,
    // Heads signed as before docs/deployment-log.md, "What changes for the sealer", step 3.
    signLineageCheckpoints: true,
  });
  for (let i = 0; i < count; i++) {
    await sealer.handle({
      messageId: `m-${i}`,
      body: sealRequestBody({ residualId: `r-${i}`, manifest }),
      sentAtMs: FACTORY_NOW_MS + i,
    });
  }
  return { store, anchor };
}

/**
 * An EventBridge client (as a client's `eventBridge` dep) that runs the real triage function in
 * process, over `store` and at `clock` (ms), for each `RecallRequested` entry it is sent, so a
 * recall goes through triage and back with no bus.
 */
export function inProcessTriageBus(store: LineageStore, clock: () => number): EventBridgeClient {
  const triage = new TriageService({
    store,
    publisher: new FakePublisher(),
    logKey: async () => TEST_LOG_KEY,
    metrics: new FakeMetrics(),
    logger: fakeLogger(),
    clock,
  });
  const eventBridge = {
    send: async (command: { input: { Entries: { Detail: string }[] } }) => {
      for (const entry of command.input.Entries) await triage.handle(JSON.parse(entry.Detail));
      return { FailedEntryCount: 0, Entries: [{ EventId: 'event-1' }] };
    },
  };
  return eventBridge as never;
}

/**
 * A client over `store` whose EventBridge runs the real triage function in process for each
 * `RecallRequested` (so `recall` goes through triage and back), with the pinned test keys, a fixed
 * clock and instant sleeps. `deps` adds or overrides client collaborators (e.g. a checkpoint store).
 */
export function inProcessRecallClient(
  store: InMemoryLineageStore,
  deps: ConstructorParameters<typeof ResealClient>[1] = {},
): ResealClient {
  return new ResealClient(TEST_CLIENT_OUTPUTS, {
    ...TEST_CLIENT_KEYS,
    store,
    anchor: testAnchor(),
    eventBridge: inProcessTriageBus(store, () => TEST_NOW_MS),
    nowMs: () => TEST_NOW_MS,
    sleep: async () => {},
    ...deps,
  });
}

/**
 * A triage answer that refuses a recall with `refusalCode` and no proof, as triage stores it or a
 * table writer plants it (docs/pipeline.md, "Table layout").
 */
export function refusedTriageAnswer(
  fields: Pick<TriageCompletedDetail, 'requestId' | 'lineageId' | 'refusalCode'> &
    Partial<Pick<TriageCompletedDetail, 'refusalReason' | 'completedAtMs'>>,
): TriageCompletedDetail {
  return {
    formatVersion: 1,
    seq: null,
    residualId: null,
    outcome: 'REFUSED',
    verification: null,
    report: null,
    proof: null,
    refusalReason: 'no such record in this lineage',
    completedAtMs: TEST_NOW_MS,
    ...fields,
  };
}
