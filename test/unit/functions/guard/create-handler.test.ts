import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it, vi } from 'vitest';
import { SQSSealQueue, type SQSSend } from '../../../../adapters/sqs-seal-queue';
import { createGuardHandler } from '../../../../functions/guard/create-handler';
import { GuardService } from '../../../../functions/guard/guard-service';
import { RejectionReason } from '../../../../shared/pipeline/rejection-reason';
import type { SealRequest } from '../../../../shared/pipeline/seal-request';
import type { SealQueue } from '../../../../shared/ports/seal-queue';
import { capturedLogger } from '../../../helpers/captured-logger';
import {
  FakeMetrics,
  FakePublisher,
  FakeSealQueue,
  lambdaContext,
  sqsEvent,
  sqsRecord,
} from '../../../helpers/factories';
import { FACTORY_NOW_MS, validWriteRequest } from '../../../helpers/guard-factories';
import { InMemoryLineageStore } from '../../../helpers/in-memory-lineage-store';
import { TEST_LOG_NAME, testGuardSigner } from '../../../helpers/pipeline-keys';

function setup<Q extends SealQueue = FakeSealQueue>(
  queue: Q = new FakeSealQueue() as unknown as Q,
  logger = new Logger({ serviceName: 'reseal-guard-test', logLevel: 'SILENT' }),
) {
  const store = new InMemoryLineageStore();
  const publisher = new FakePublisher();
  const metrics = new Metrics({ namespace: 'Reseal', serviceName: 'reseal-guard-test' });
  vi.spyOn(metrics, 'publishStoredMetrics').mockReturnValue(metrics);
  const service = new GuardService({
    store,
    signer: testGuardSigner(),
    logName: TEST_LOG_NAME,
    publisher,
    queue,
    metrics: new FakeMetrics(),
    logger,
    clock: () => FACTORY_NOW_MS,
    maxReceiptAgeSeconds: 900,
  });
  return { store, publisher, queue, handler: createGuardHandler(service, logger, metrics) };
}

const writeBody = (residualId: string) => JSON.stringify(validWriteRequest({ residualId }));

describe('guard handler (BatchProcessor, partial batch response)', () => {
  it('pipeline.md outcomes: an infrastructure failure on one record reports exactly that record; the others are forwarded', async () => {
    const { handler, queue } = setup();
    const records = ['r-0', 'r-1', 'r-2'].map((id) => sqsRecord(writeBody(id)));
    const enqueue = queue.enqueue.bind(queue);
    vi.spyOn(queue, 'enqueue').mockImplementation(async (request) => {
      if (request.request.residualId === 'r-1') throw new Error('SQS SendMessage throttled');
      return enqueue(request);
    });
    const response = await handler(sqsEvent(records), lambdaContext());
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: records[1]?.messageId }]);
    expect(queue.sent.map((s) => s.request.residualId)).toEqual(['r-0', 'r-2']);
  });

  it('pipeline.md outcomes: a permanently bad message (malformed JSON) resolves: recorded and announced, not reported failed', async () => {
    const { handler, queue, store, publisher } = setup();
    const records = [sqsRecord(writeBody('r-0')), sqsRecord('{"residualId": '), sqsRecord(writeBody('r-1'))];
    const response = await handler(sqsEvent(records), lambdaContext());
    expect(response.batchItemFailures).toEqual([]);
    expect(queue.sent.map((s) => s.request.residualId)).toEqual(['r-0', 'r-1']);
    expect(store.rejections).toHaveLength(1);
    expect(store.rejections[0]).toMatchObject({
      reason: RejectionReason.MALFORMED_JSON,
      messageId: records[1]?.messageId,
    });
    expect(publisher.rejected).toHaveLength(1);
  });

  it('pipeline.md outcomes: a failure while recording a rejection is an infrastructure failure: that record is reported for retry', async () => {
    const { handler, store, queue } = setup();
    vi.spyOn(store, 'recordRejection').mockRejectedValue(new Error('DynamoDB unavailable'));
    const records = [sqsRecord('not json'), sqsRecord(writeBody('r-0'))];
    const response = await handler(sqsEvent(records), lambdaContext());
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: records[0]?.messageId }]);
    expect(queue.sent.map((s) => s.request.residualId)).toEqual(['r-0']);
  });

  it('a batch where every record fails is reported record by record instead of throwing', async () => {
    const { handler, queue } = setup();
    vi.spyOn(queue, 'enqueue').mockRejectedValue(new Error('SQS unavailable'));
    const records = ['r-0', 'r-1'].map((id) => sqsRecord(writeBody(id)));
    const response = await handler(sqsEvent(records), lambdaContext());
    expect(response.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(records.map((r) => r.messageId));
  });

  for (const { name, refusedId, bodies, sent, failedIndex } of [
    {
      name: 'pipeline.md "Concurrency": accepted writes go out in one SendMessageBatch; an entry SQS refuses fails exactly its record',
      refusedId: 'r-2',
      bodies: [writeBody('r-0'), 'not json', writeBody('r-1'), writeBody('r-2'), writeBody('r-3')],
      sent: ['r-0', 'r-1', 'r-2', 'r-3'],
      failedIndex: 3,
    },
    {
      name: 'infrastructure.md "The guard\'s batching window": a full batch of 10 (one malformed) goes out in one SendMessageBatch of the 9 accepted; a refused entry fails its record alone',
      refusedId: 'r-7',
      bodies: Array.from({ length: 10 }, (_, i) => (i === 4 ? 'not json' : writeBody(`r-${i}`))),
      sent: ['r-0', 'r-1', 'r-2', 'r-3', 'r-5', 'r-6', 'r-7', 'r-8', 'r-9'],
      failedIndex: 7,
    },
  ]) {
    it(name, async () => {
      const batches: SendMessageBatchCommand[] = [];
      const client = {
        send: async (command: SendMessageBatchCommand) => {
          batches.push(command);
          const entries = command.input.Entries ?? [];
          const refused = entries.find(
            (e) => (JSON.parse(e.MessageBody ?? '') as SealRequest).request.residualId === refusedId,
          );
          return {
            Successful: entries
              .filter((e) => e !== refused)
              .map((e) => ({ Id: e.Id, MessageId: 'm', MD5OfMessageBody: '' })),
            Failed: refused ? [{ Id: refused.Id, Code: 'InternalError', SenderFault: false }] : [],
          };
        },
      } as unknown as SQSSend;
      const { handler, store } = setup(new SQSSealQueue(client, 'https://queue'));
      const records = bodies.map((body) => sqsRecord(body));
      const response = await handler(sqsEvent(records), lambdaContext());
      expect(batches).toHaveLength(1);
      expect(
        batches[0]?.input.Entries?.map((e) => (JSON.parse(e.MessageBody ?? '') as SealRequest).request.residualId),
      ).toEqual(sent);
      expect(response.batchItemFailures).toEqual([{ itemIdentifier: records[failedIndex]?.messageId }]);
      expect(store.rejections).toHaveLength(1);
    });
  }

  it('pipeline.md "Logs and metrics": the success path logs one `batch handled` line per invocation naming every write; a refused message keeps its own line', async () => {
    const log = capturedLogger('reseal-guard-test');
    const { handler } = setup(new FakeSealQueue(), log.logger);
    const accepted = Array.from({ length: 9 }, (_, i) => `r-${i}`);
    const refused = sqsRecord('{"residualId": ');
    const records = [...accepted.slice(0, 4).map((id) => sqsRecord(writeBody(id))), refused];
    records.push(...accepted.slice(4).map((id) => sqsRecord(writeBody(id))));
    expect((await handler(sqsEvent(records), lambdaContext())).batchItemFailures).toEqual([]);
    const lines = log.lines();
    // Ten messages, two lines: the refusal's own and the invocation's summary.
    expect(lines.map((line) => [line.level, line.message])).toEqual([
      ['WARN', 'write rejected'],
      ['INFO', 'batch handled'],
    ]);
    expect(lines[0]).toMatchObject({ messageId: refused.messageId, reason: RejectionReason.MALFORMED_JSON });
    const lineageId = validWriteRequest().lineageId;
    expect(lines[1]).toMatchObject({
      records: 10,
      accepted: accepted.map((residualId) => [lineageId, residualId]),
      rejected: 1,
      failed: 0,
      durationMs: expect.any(Number),
    });
    // The summary names no message of its own, and no payload is logged.
    expect(lines[1]).not.toHaveProperty('messageId');
    expect(JSON.stringify(lines)).not.toContain(JSON.stringify(validWriteRequest().payload));
  });
});
