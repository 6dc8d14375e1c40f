import type { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { beginRecord } from '../common/observability';
import type { SealerService, SealMessage } from './sealer-service';

/**
 * The sealer Lambda handler around a {@link SealerService}: `seal-requests` (FIFO, group =
 * lineage id). The batch is split by `MessageGroupId`, order kept, and each group is handed to
 * the service whole, so its writes to one lineage are sealed together under one signed
 * checkpoint (one KMS `Sign` per group). A group whose handling throws (KMS, DynamoDB or
 * EventBridge failure) is reported failed as a whole, so SQS redelivers it in order; the
 * service's outcomes are idempotent, so the retry re-answers what was already answered. Other
 * groups are unaffected (FIFO order only binds within a group).
 *
 * Powertools' `SqsFifoPartialProcessorAsync` hands records over one at a time, which would cost
 * one signature per record; the grouping here is the one thing it does not do.
 */
export function createSealerHandler(service: SealerService, logger: Logger, metrics: Metrics) {
  return middy(async (event: SQSEvent, _context: Context): Promise<SQSBatchResponse> => {
    const failures: { itemIdentifier: string }[] = [];
    for (const group of messageGroups(event.Records)) {
      beginRecord(logger, group[0]?.messageId ?? '');
      try {
        await service.handleGroup(group.map(sealMessageOf));
      } catch {
        // Logged by the service; the whole group is retried in order.
        failures.push(...group.map((record) => ({ itemIdentifier: record.messageId })));
      }
    }
    return { batchItemFailures: failures };
  })
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(logMetrics(metrics, { captureColdStartMetric: true }));
}

/** The records of a batch by `MessageGroupId`, each group in delivery order. */
export function messageGroups(records: readonly SQSRecord[]): SQSRecord[][] {
  const groups = new Map<string, SQSRecord[]>();
  for (const record of records) {
    const id = record.attributes.MessageGroupId ?? '';
    const group = groups.get(id);
    if (group) group.push(record);
    else groups.set(id, [record]);
  }
  return [...groups.values()];
}

function sealMessageOf(record: SQSRecord): SealMessage {
  return {
    messageId: record.messageId,
    body: record.body,
    sentAtMs: Number(record.attributes.SentTimestamp) || Date.now(),
    senderId: record.attributes.SenderId || null,
  };
}
