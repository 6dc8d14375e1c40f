import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { SQSRecord } from 'aws-lambda';
import { describe, expect, it, vi } from 'vitest';
import { createSealerHandler, MAX_CONCURRENT_LINEAGES } from '../../../../functions/sealer/create-handler';
import type { HeadState } from '../../../../shared/log/head-state-mac';
import { claimedLogState, headStateOf, type StoredLogHead } from '../../../../shared/log/log-state';
import { ResidualSealedDetailSchema } from '../../../../shared/pipeline/residual-sealed-detail';
import { capturedLogger } from '../../../helpers/captured-logger';
import { FakePublisher, lambdaContext, sealRequestBody, sqsEvent, sqsRecord } from '../../../helpers/factories';
import {
  FACTORY_LINEAGE_ID,
  FACTORY_NOW_MS,
  unverifiedInheritedVariable,
  validWriteRequest,
} from '../../../helpers/guard-factories';
import { headKeyVouches } from '../../../helpers/head-key-check';
import { testSealerHandler } from '../../../helpers/service-factories';
import { testLineageId } from '../../../helpers/writer-factories';

function setup(options: { readonly signLineageCheckpoints?: boolean } = {}) {
  const { store, anchor, signer, noticeKey, service, handler } = testSealerHandler(options);
  return { store, anchor, signer, noticeKey, service, handler };
}

const LINEAGE = FACTORY_LINEAGE_ID;
const OTHER = testLineageId('lineage-other');
const LINEAGE_A = testLineageId('lineage-a');
const LINEAGE_B = testLineageId('lineage-b');

/**
 * A seal request that skipped the guard: its write carries an unverified inherited variable, and
 * its verdict claims it safe with a made-up digest; the sealer must refuse it for good.
 */
function forgedSealRequest(): SQSRecord {
  const request = validWriteRequest({
    lineageId: LINEAGE,
    residualId: 'r-forged',
    variablesUsed: [unverifiedInheritedVariable('targetResourceId', 'i-0abc123')],
  });
  const verdict = { isSafe: true, rejectedVariables: [], requestViolations: [], verdictDigest: 'a'.repeat(64) };
  return sqsRecord(JSON.stringify({ formatVersion: 1, request, verdict, acceptedAtMs: FACTORY_NOW_MS }), LINEAGE);
}

describe('sealer handler (message groups sealed whole)', () => {
  it('FIFO: a failure in a message group fails the whole group (nothing of it appended, so none sealed out of order)', async () => {
    const { handler, store, anchor } = setup();
    const records = ['r-0', 'r-1', 'r-2', 'r-3'].map((id) => sqsRecord(sealRequestBody({ residualId: id }), LINEAGE));
    let calls = 0;
    const original = anchor.generateMac.bind(anchor);
    vi.spyOn(anchor, 'generateMac').mockImplementation(async (message) => {
      calls++;
      // The first call is the record batch's MAC, taken before any record is stored.
      if (calls === 1) throw new Error('KMS throttled');
      return original(message);
    });
    const response = await handler(sqsEvent(records), lambdaContext());
    expect(response.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(records.map((r) => r.messageId));
    expect(await store.readChain(LINEAGE, 0, 10)).toEqual([]);
  });

  it('docs/verifiable-log.md "Appending": by default one GenerateMac per invocation (its records), heads MAC\'d under the notice data key, and no Sign; a failing group does not fail the others', async () => {
    const { handler, store, signer, anchor, noticeKey } = setup();
    const sign = vi.spyOn(signer, 'sign');
    const generateMac = vi.spyOn(anchor, 'generateMac');
    const good = ['r-0', 'r-1', 'r-2'].map((id) => sqsRecord(sealRequestBody({ residualId: id }), LINEAGE));
    const other = ['r-0', 'r-1'].map((id) => sqsRecord(sealRequestBody({ residualId: id, lineageId: OTHER }), OTHER));
    const response = await handler(sqsEvent([good[0], other[0], good[1], other[1], good[2]] as never), lambdaContext());
    expect(response.batchItemFailures).toEqual([]);
    expect(sign).not.toHaveBeenCalled();
    // One record-batch MAC for both groups' five records; the heads are MAC'd in process.
    expect(generateMac).toHaveBeenCalledTimes(1);
    expect(await store.readChain(LINEAGE, 0, 10)).toHaveLength(3);
    expect(await store.readChain(OTHER, 0, 10)).toHaveLength(2);
    // The head item of each lineage carries the MAC of its whole run's head state, and no signed checkpoint.
    const head = store.headSnapshot(LINEAGE) as StoredLogHead;
    expect(head.checkpoint).toBeNull();
    const state = headStateOf(claimedLogState(head, LINEAGE)) as HeadState;
    expect(state.treeSize).toBe(3);
    expect(head.headMac).toBeNull();
    expect(await headKeyVouches(head, LINEAGE, noticeKey)).toBe(true);
    const otherHead = store.headSnapshot(OTHER) as StoredLogHead;
    expect(await headKeyVouches(otherHead, OTHER, noticeKey)).toBe(true);
    expect(otherHead.headKeyMac?.keyBlob).toBe(head.headKeyMac?.keyBlob);
    // A group whose append fails is reported whole; the other group is sealed.
    store.beforeAppend = (batch) => {
      if (batch.lineageId === OTHER) throw new Error('DynamoDB unavailable');
    };
    const next = [
      sqsRecord(sealRequestBody({ residualId: 'r-3' }), LINEAGE),
      sqsRecord(sealRequestBody({ residualId: 'r-2', lineageId: OTHER }), OTHER),
    ];
    const second = await handler(sqsEvent(next), lambdaContext());
    expect(second.batchItemFailures.map((f) => f.itemIdentifier)).toEqual([next[1]?.messageId]);
    expect(await store.readChain(LINEAGE, 0, 10)).toHaveLength(4);
  });

  it('docs/deployment-log.md "What changes for the sealer": with signLineageCheckpoints: true (as before step 3), one Sign per group beside the MAC', async () => {
    const { handler, store, signer, noticeKey } = setup({ signLineageCheckpoints: true });
    const sign = vi.spyOn(signer, 'sign');
    const good = ['r-0', 'r-1'].map((id) => sqsRecord(sealRequestBody({ residualId: id }), LINEAGE));
    const other = ['r-0'].map((id) => sqsRecord(sealRequestBody({ residualId: id, lineageId: OTHER }), OTHER));
    expect((await handler(sqsEvent([good[0], other[0], good[1]] as never), lambdaContext())).batchItemFailures).toEqual(
      [],
    );
    expect(sign).toHaveBeenCalledTimes(2);
    const head = store.headSnapshot(LINEAGE) as StoredLogHead;
    expect(head.checkpoint).toContain('\n2\n');
    expect(await headKeyVouches(head, LINEAGE, noticeKey)).toBe(true);
  });

  it('a batch that succeeds reports no failures, and permanent refusals count as processed', async () => {
    const { handler, store } = setup();
    const records = [
      sqsRecord(sealRequestBody({ residualId: 'r-0' }), LINEAGE),
      sqsRecord('not json', LINEAGE),
      sqsRecord(sealRequestBody({ residualId: 'r-1' }), LINEAGE),
    ];
    const response = await handler(sqsEvent(records), lambdaContext());
    expect(response.batchItemFailures).toEqual([]);
    expect(await store.readChain(LINEAGE, 0, 10)).toHaveLength(2);
    expect(store.rejections).toHaveLength(1);
  });

  it('a forged seal request (guard skipped) is a permanent refusal: not reported as failed, so never retried, never sealed', async () => {
    const { handler, store } = setup();
    const forged = forgedSealRequest();
    const response = await handler(sqsEvent([forged]), lambdaContext());
    expect(response.batchItemFailures).toEqual([]);
    expect(await store.readChain(LINEAGE, 0, 10)).toEqual([]);
    expect(store.rejections).toEqual([expect.objectContaining({ reason: 'VERDICT_MISMATCH', residualId: 'r-forged' })]);
  });

  it('pipeline.md "Concurrency": different lineages of one batch are sealed concurrently, at most MAX_CONCURRENT_LINEAGES at once, each in order', async () => {
    const { handler, store } = setup();
    // Counts head reads in flight: each one yields to the event loop a few times before it answers,
    // so a lineage sealed only after the previous one finished never overlaps it (no timing involved).
    let inFlight = 0;
    let mostInFlight = 0;
    const logHead = store.logHead.bind(store);
    vi.spyOn(store, 'logHead').mockImplementation(async (lineageId) => {
      inFlight++;
      mostInFlight = Math.max(mostInFlight, inFlight);
      for (let tick = 0; tick < 5; tick++) await new Promise((resolve) => setImmediate(resolve));
      inFlight--;
      return logHead(lineageId);
    });
    // 10: every group of a full FIFO batch (the event source's most records) at once.
    expect(MAX_CONCURRENT_LINEAGES).toBe(10);
    const lineages = Array.from({ length: MAX_CONCURRENT_LINEAGES + 2 }, (_, i) => testLineageId(`lineage-${i}`));
    const records = lineages.flatMap((lineageId) =>
      ['r-0', 'r-1'].map((residualId) => sqsRecord(sealRequestBody({ residualId, lineageId }), lineageId)),
    );
    const response = await handler(sqsEvent(records), lambdaContext());
    expect(response.batchItemFailures).toEqual([]);
    expect(mostInFlight).toBe(MAX_CONCURRENT_LINEAGES);
    for (const lineageId of lineages) {
      const chain = (await store.readChain(lineageId, 0, 10)) as { header: { residualId: string } }[];
      expect(chain.map((record) => record.header.residualId)).toEqual(['r-0', 'r-1']);
    }
  });

  it('pipeline.md "Concurrency": each invocation ends with one `batch handled` line: records, lineages, failed records, duration', async () => {
    const { store, service } = setup();
    const logger = new Logger({ serviceName: 'reseal-sealer-test', logLevel: 'SILENT' });
    const info = vi.spyOn(logger, 'info');
    const logged = createSealerHandler(service, logger, new Metrics({ namespace: 'Reseal', serviceName: 't' }));
    store.beforeAppend = (batch) => {
      if (batch.lineageId === LINEAGE_B) throw new Error('DynamoDB unavailable');
    };
    const records = [
      sqsRecord(sealRequestBody({ residualId: 'r-0', lineageId: LINEAGE_A }), LINEAGE_A),
      sqsRecord(sealRequestBody({ residualId: 'r-0', lineageId: LINEAGE_B }), LINEAGE_B),
      sqsRecord(sealRequestBody({ residualId: 'r-1', lineageId: LINEAGE_B }), LINEAGE_B),
    ];
    await logged(sqsEvent(records), lambdaContext());
    const lines = info.mock.calls.filter(([message]) => message === 'batch handled');
    expect(lines).toHaveLength(1);
    expect(lines[0]?.[1]).toEqual({
      records: 3,
      lineages: 2,
      failed: 2,
      durationMs: expect.any(Number),
      sealed: [[LINEAGE_A, 'r-0']],
    });
  });

  it('pipeline.md "Logs and metrics": the success path logs one `batch handled` line per invocation naming every sealed write; a refused message keeps its own line', async () => {
    const log = capturedLogger('reseal-sealer-test');
    const { service } = testSealerHandler({ logger: log.logger });
    const handler = createSealerHandler(service, log.logger, new Metrics({ namespace: 'Reseal', serviceName: 't' }));
    const lineages = [LINEAGE_A, LINEAGE_B, OTHER];
    const writes = Array.from({ length: 9 }, (_, i) => [lineages[i % 3] as string, `r-${i}`] as const);
    const forged = forgedSealRequest();
    const records = writes.map(([lineageId, residualId]) =>
      sqsRecord(sealRequestBody({ lineageId, residualId }), lineageId),
    );
    records.splice(4, 0, forged);
    expect((await handler(sqsEvent(records), lambdaContext())).batchItemFailures).toEqual([]);
    const lines = log.lines();
    // Ten messages, two lines: the refusal's own and the invocation's summary; no line per sealed record.
    expect(lines.map((line) => [line.level, line.message])).toEqual([
      ['ERROR', 'seal request refused'],
      ['INFO', 'batch handled'],
    ]);
    expect(lines[0]).toMatchObject({ messageId: forged.messageId, residualId: 'r-forged', reason: 'VERDICT_MISMATCH' });
    const summary = lines[1] as unknown as { sealed: [string, string][] };
    expect(summary).toMatchObject({ records: 10, lineages: 4, failed: 0, durationMs: expect.any(Number) });
    // Groups end in any order; each lineage's writes in order.
    expect([...summary.sealed].sort()).toEqual(writes.map(([l, r]) => [l, r]).sort());
    for (const lineageId of lineages) {
      expect(summary.sealed.filter(([l]) => l === lineageId).map(([, r]) => r)).toEqual(
        writes.filter(([l]) => l === lineageId).map(([, r]) => r),
      );
    }
    expect(summary).not.toHaveProperty('messageId');
  });

  it('pipeline.md "Logs and metrics": ten sparse writes (one per lineage) log under 120 bytes a write, not a line of some 600 bytes each', async () => {
    const log = capturedLogger('reseal-sealer-test');
    const { service } = testSealerHandler({ logger: log.logger });
    const handler = createSealerHandler(service, log.logger, new Metrics({ namespace: 'Reseal', serviceName: 't' }));
    const lineages = Array.from({ length: 10 }, (_, i) => testLineageId(`log-bytes-${i}`));
    const records = lineages.map((l) => sqsRecord(sealRequestBody({ lineageId: l, residualId: 'r-0' }), l));
    expect((await handler(sqsEvent(records), lambdaContext())).batchItemFailures).toEqual([]);
    expect(log.lines()).toHaveLength(1);
    expect(log.bytes() / records.length).toBeLessThan(120);
  });

  it('pipeline.md outcomes: with lineages sealed concurrently, a failing group is still reported whole and in delivery order', async () => {
    const { handler, store } = setup();
    store.beforeAppend = (batch) => {
      if (batch.lineageId === LINEAGE_B) throw new Error('DynamoDB unavailable');
    };
    const records = [
      sqsRecord(sealRequestBody({ residualId: 'r-0', lineageId: LINEAGE_B }), LINEAGE_B),
      sqsRecord(sealRequestBody({ residualId: 'r-0', lineageId: LINEAGE_A }), LINEAGE_A),
      sqsRecord(sealRequestBody({ residualId: 'r-1', lineageId: LINEAGE_B }), LINEAGE_B),
      sqsRecord(sealRequestBody({ residualId: 'r-2', lineageId: LINEAGE_B }), LINEAGE_B),
    ];
    const response = await handler(sqsEvent(records), lambdaContext());
    expect(response.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(
      [records[0], records[2], records[3]].map((r) => r?.messageId),
    );
    expect(await store.readChain(LINEAGE_A, 0, 10)).toHaveLength(1);
    expect(await store.readChain(LINEAGE_B, 0, 10)).toEqual([]);
  });
});

describe('sealer handler: one ResidualSealed event per invocation (docs/pipeline.md, "Message shapes")', () => {
  it('an invocation of three lineages (and a redelivery) puts one event carrying every run, each with its head', async () => {
    const publisher = new FakePublisher();
    const { handler, store } = testSealerHandler({ publisher });
    const before = sqsRecord(sealRequestBody({ lineageId: LINEAGE_A, residualId: 'r-0' }), LINEAGE_A);
    expect((await handler(sqsEvent([before]), lambdaContext())).batchItemFailures).toEqual([]);
    expect(publisher.sealed).toHaveLength(1);
    const writes = [
      [LINEAGE_A, 'r-1'],
      [LINEAGE_B, 'r-0'],
      [OTHER, 'r-0'],
      [LINEAGE_B, 'r-1'],
      [LINEAGE_A, 'r-2'],
    ] as const;
    const records = writes.map(([lineageId, residualId]) =>
      sqsRecord(sealRequestBody({ lineageId, residualId }), lineageId),
    );
    // The first invocation's write delivered again, in the same group as two new ones.
    records.push(sqsRecord(sealRequestBody({ lineageId: LINEAGE_A, residualId: 'r-0' }), LINEAGE_A));
    expect((await handler(sqsEvent(records), lambdaContext())).batchItemFailures).toEqual([]);
    expect(publisher.sealed).toHaveLength(2);
    const detail = ResidualSealedDetailSchema.parse(publisher.sealed[1]);
    const byLineage = (lineageId: string) => detail.runs.filter((run) => run.lineageId === lineageId);
    // LINEAGE_A: its new run (seq 1, 2) and the redelivery of seq 0 (read on the older tree head).
    expect(byLineage(LINEAGE_A).map((run) => run.residuals.map((r) => [r.residualId, r.seq]))).toEqual(
      expect.arrayContaining([
        [['r-0', 0]],
        [
          ['r-1', 1],
          ['r-2', 2],
        ],
      ]),
    );
    expect(byLineage(LINEAGE_B).map((run) => run.residuals.map((r) => r.residualId))).toEqual([['r-0', 'r-1']]);
    expect(byLineage(OTHER).map((run) => run.residuals.map((r) => r.residualId))).toEqual([['r-0']]);
    // Each run's head is its newest record's lineage head, the head item's for a lineage's new run.
    for (const lineageId of [LINEAGE_A, LINEAGE_B, OTHER]) {
      const newest = byLineage(lineageId).reduce((a, b) => (b.seq > a.seq ? b : a));
      expect(newest).toMatchObject({ ...(await store.head(lineageId)), sealedTreeHead: { treeSize: newest.seq + 1 } });
    }
  });

  it('an event the bus refuses is logged at error and fails the groups it announces, whole; the redelivery re-announces', async () => {
    const log = capturedLogger('reseal-sealer-test');
    const publisher = new FakePublisher();
    const { service, store } = testSealerHandler({ publisher, logger: log.logger });
    const handler = createSealerHandler(service, log.logger, new Metrics({ namespace: 'Reseal', serviceName: 't' }));
    const a = ['r-0', 'r-1'].map((id) =>
      sqsRecord(sealRequestBody({ lineageId: LINEAGE_A, residualId: id }), LINEAGE_A),
    );
    const b = sqsRecord(sealRequestBody({ lineageId: LINEAGE_B, residualId: 'r-0' }), LINEAGE_B);
    publisher.failWith = new Error('EventBridge PutEvents: ServiceUnavailable');
    const response = await handler(sqsEvent([a[0], b, a[1]] as SQSRecord[]), lambdaContext());
    expect(response.batchItemFailures.map((f) => f.itemIdentifier)).toEqual([
      ...a.map((r) => r.messageId),
      b.messageId,
    ]);
    // The records are stored regardless: events are notifications, the table is the outcome.
    expect(await store.readChain(LINEAGE_A, 0, 10)).toHaveLength(2);
    expect(await store.readChain(LINEAGE_B, 0, 10)).toHaveLength(1);
    expect(log.lines().filter((line) => line.level === 'ERROR')).toEqual([
      expect.objectContaining({
        message: 'the ResidualSealed event was not put; its message groups will be retried',
        error: { name: 'Error', message: 'EventBridge PutEvents: ServiceUnavailable' },
        residuals: 3,
      }),
    ]);
    publisher.failWith = null;
    expect((await handler(sqsEvent([a[0], b, a[1]] as SQSRecord[]), lambdaContext())).batchItemFailures).toEqual([]);
    expect(publisher.sealedResiduals.map((r) => [r.lineageId, r.residualId]).sort()).toEqual(
      [
        [LINEAGE_A, 'r-0'],
        [LINEAGE_A, 'r-1'],
        [LINEAGE_B, 'r-0'],
      ].sort(),
    );
    expect(await store.readChain(LINEAGE_A, 0, 10)).toHaveLength(2);
  });
});
