import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { beginRecord } from '../common/observability';
import type { GuardService } from './guard-service';

/**
 * The guard Lambda handler around a {@link GuardService}: `residual-writes` (standard queue) →
 * one record at a time (so log keys never mix) → partial batch response. A record fails only
 * when the service throws (infrastructure); permanent refusals resolve and are deleted.
 */
export function createGuardHandler(service: GuardService, logger: Logger, metrics: Metrics) {
  const processor = new BatchProcessor(EventType.SQS);
  const guardOne = async (record: SQSRecord): Promise<void> => {
    beginRecord(logger, record.messageId);
    await service.handle({
      messageId: record.messageId,
      body: record.body,
      sentAtMs: Number(record.attributes.SentTimestamp) || Date.now(),
      senderId: record.attributes.SenderId || null,
    });
  };
  return middy(
    async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> =>
      processPartialResponse(event, guardOne, processor, {
        context,
        processInParallel: false,
        throwOnFullBatchFailure: false,
      }),
  )
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(logMetrics(metrics, { captureColdStartMetric: true }));
}
