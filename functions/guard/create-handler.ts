import type { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { beginRecord } from '../common/begin-record';
import type { GuardAccepted, GuardService } from './guard-service';

/**
 * The guard Lambda handler around a {@link GuardService}: `residual-writes` (standard queue) →
 * each record screened one at a time (so log keys never mix; a refusal is recorded and announced
 * at once) → the batch's accepted writes forwarded to `seal-requests` together
 * (`SendMessageBatch`, docs/pipeline.md "Concurrency") → partial batch response. A record fails
 * only on an infrastructure failure: its screening threw, or the queue did not take its write
 * (a per-entry failure of the batch send is mapped back to that record). Permanent refusals
 * resolve and are deleted.
 *
 * Each invocation ends with one `batch handled` log line (records, `accepted`: `[lineageId,
 * residualId]` of each write forwarded, rejected and failed counts, `durationMs` from the
 * handler's start): the success path's only line, while each refusal and failure keeps its own
 * (docs/pipeline.md, "Logs and metrics").
 */
export function createGuardHandler(service: GuardService, logger: Logger, metrics: Metrics) {
  return middy(async (event: SQSEvent, _context: Context): Promise<SQSBatchResponse> => {
    const startedMs = performance.now();
    const failures: { itemIdentifier: string }[] = [];
    const accepted: GuardAccepted[] = [];
    let rejected = 0;
    for (const record of event.Records) {
      beginRecord(logger, record.messageId);
      try {
        const screening = await service.screen({
          messageId: record.messageId,
          body: record.body,
          sentAtMs: Number(record.attributes.SentTimestamp) || Date.now(),
          senderId: record.attributes.SenderId || null,
          eventSourceArn: record.eventSourceARN || null,
        });
        if ('accepted' in screening) accepted.push(screening.accepted);
        else if (screening.outcome.kind === 'REJECTED') rejected++;
      } catch {
        // Logged by the service; this record alone is retried.
        failures.push({ itemIdentifier: record.messageId });
      }
    }
    // The forward's lines name their own message, lineage and residual.
    logger.removeKeys(['residualId', 'lineageId', 'messageId']);
    const forwarded = await service.forward(accepted);
    const sent: [lineageId: string, residualId: string][] = [];
    for (const [i, result] of forwarded.entries()) {
      const { message, sealRequest } = accepted[i] as GuardAccepted;
      if (result.status === 'rejected') failures.push({ itemIdentifier: message.messageId });
      else sent.push([sealRequest.request.lineageId, sealRequest.request.residualId]);
    }
    // In the batch's order, as Powertools' processor reported them.
    const order = new Map(event.Records.map((record, i) => [record.messageId, i]));
    failures.sort((a, b) => (order.get(a.itemIdentifier) ?? 0) - (order.get(b.itemIdentifier) ?? 0));
    logger.info('batch handled', {
      records: event.Records.length,
      accepted: sent,
      rejected,
      failed: failures.length,
      durationMs: Math.round(performance.now() - startedMs),
    });
    return { batchItemFailures: failures };
  })
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(logMetrics(metrics, { captureColdStartMetric: true }));
}
