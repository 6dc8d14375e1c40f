import type { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import pLimit from 'p-limit';
import { beginRecord } from '../common/observability';
import type { SealMessage } from './seal-outcomes';
import type { SealerService } from './sealer-service';

/**
 * Most message groups (lineages) of one batch sealed at once (docs/pipeline.md, "Concurrency").
 * A batch holds at most 10 records, so at most 10 groups; 5 halves a full batch of sparse
 * lineages' wall time while keeping a burst of concurrent `GenerateMac`, `Sign` and
 * `TransactWriteItems` calls per invocation small against the account's KMS request quotas.
 */
export const MAX_CONCURRENT_LINEAGES = 5;

/**
 * The sealer Lambda handler around a {@link SealerService}: `seal-requests` (FIFO, group =
 * lineage id). The batch is split by `MessageGroupId`, order kept, and each group is handed to
 * the service whole, so its writes to one lineage are sealed together under one signed
 * checkpoint (one KMS `Sign` per group). Groups are different lineages, which share no state the
 * order of their appends could change, so up to {@link MAX_CONCURRENT_LINEAGES} of them are
 * sealed concurrently; one group's messages stay strictly in order. A group whose handling throws
 * (KMS, DynamoDB or EventBridge failure) is reported failed as a whole, its messages in delivery
 * order, so SQS redelivers it in order; the service's outcomes are idempotent, so the retry
 * re-answers what was already answered. Other groups are unaffected (FIFO order only binds
 * within a group).
 *
 * Powertools' `SqsFifoPartialProcessorAsync` hands records over one at a time, which would cost
 * one signature per record; the grouping here is the one thing it does not do.
 */
export function createSealerHandler(service: SealerService, logger: Logger, metrics: Metrics) {
  const limit = pLimit(MAX_CONCURRENT_LINEAGES);
  return middy(async (event: SQSEvent, _context: Context): Promise<SQSBatchResponse> => {
    const failedByGroup = await limit.map(messageGroups(event.Records), async (group) => {
      beginRecord(logger, group[0]?.messageId ?? '');
      try {
        await service.handleGroup(group.map(sealMessageOf));
        return [];
      } catch {
        // Logged by the service; the whole group is retried in order.
        return group.map((record) => ({ itemIdentifier: record.messageId }));
      }
    });
    return { batchItemFailures: failedByGroup.flat() };
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
