import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { describe, expect, it, vi } from 'vitest';
import { createGuardHandler } from '../../../../functions/guard/create-handler';
import { GuardService } from '../../../../functions/guard/guard-service';
import { RejectionReason } from '../../../../shared/pipeline/messages';
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

function setup() {
  const store = new InMemoryLineageStore();
  const publisher = new FakePublisher();
  const queue = new FakeSealQueue();
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
});
