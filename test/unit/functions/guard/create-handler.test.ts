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

function setup<Q extends SealQueue = FakeSealQueue>(queue: Q = new FakeSealQueue() as unknown as Q) {
  const store = new InMemoryLineageStore();
  const publisher = new FakePublisher();
  const logger = new Logger({ serviceName: 'reseal-guard-test', logLevel: 'SILENT' });
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

  it('pipeline.md "Concurrency": accepted writes go out in one SendMessageBatch; an entry SQS refuses fails exactly its record', async () => {
    const batches: SendMessageBatchCommand[] = [];
    const client = {
      send: async (command: SendMessageBatchCommand) => {
        batches.push(command);
        const entries = command.input.Entries ?? [];
        const refused = entries.find(
          (e) => (JSON.parse(e.MessageBody ?? '') as SealRequest).request.residualId === 'r-2',
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
    const records = [
      sqsRecord(writeBody('r-0')),
      sqsRecord('not json'),
      sqsRecord(writeBody('r-1')),
      sqsRecord(writeBody('r-2')),
      sqsRecord(writeBody('r-3')),
    ];
    const response = await handler(sqsEvent(records), lambdaContext());
    expect(batches).toHaveLength(1);
    expect(
      batches[0]?.input.Entries?.map((e) => (JSON.parse(e.MessageBody ?? '') as SealRequest).request.residualId),
    ).toEqual(['r-0', 'r-1', 'r-2', 'r-3']);
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: records[3]?.messageId }]);
    expect(store.rejections).toHaveLength(1);
  });
});
