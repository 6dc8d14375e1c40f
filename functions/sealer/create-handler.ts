import { processPartialResponse, SqsFifoPartialProcessorAsync } from '@aws-lambda-powertools/batch';
import type { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { beginRecord } from '../common/observability';
import type { SealerService } from './sealer-service';

/**
 * The sealer Lambda handler around a {@link SealerService}: `seal-requests` (FIFO, group =
 * lineage id) through `SqsFifoPartialProcessorAsync`, which awaits each record and, at the first
 * failure, reports it and every later record of the batch as failed, so no record of a lineage is
 * sealed ahead of an earlier one that must be retried.
 */
export function createSealerHandler(service: SealerService, logger: Logger, metrics: Metrics) {
  const processor = new SqsFifoPartialProcessorAsync();
  const sealOne = async (record: SQSRecord): Promise<void> => {
    beginRecord(logger, record.messageId);
    await service.handle({
      messageId: record.messageId,
      body: record.body,
      sentAtMs: Number(record.attributes.SentTimestamp) || Date.now(),
    });
  };
  return middy(
    async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> =>
      processPartialResponse(event, sealOne, processor, { context, throwOnFullBatchFailure: false }),
  )
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(logMetrics(metrics, { captureColdStartMetric: true }));
}
