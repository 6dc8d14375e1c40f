import type { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import pLimit from 'p-limit';
import { beginRecord } from '../common/begin-record';
import type { SealMessage } from './seal-outcomes';
import type { SealerService } from './sealer-service';

/**
 * Most message groups (lineages) of one batch sealed at once (docs/pipeline.md, "Concurrency"):
 * 10, the most records an SQS FIFO event source hands one invocation, so every group of a batch
 * is sealed at once and a batch of sparse lineages takes the time of its slowest run, not of
 * two waves of runs. The burst this allows per invocation (10 runs' `GenerateMac`,
 * `TransactWriteItems` and reads at once) stays small against the account's request quotas.
 */
export const MAX_CONCURRENT_LINEAGES = 10;

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
 * within a group). The groups of one invocation share one read of the deployment head
 * ({@link SealerService.beginInvocation}): their index floors are decided on it; their runs'
 * sealed-run notices, and one `ResidualSealed` event carrying every run, are sent once all of them
 * are done ({@link SealerService.endInvocation}); the groups an event the bus refused announces
 * are reported failed like a group that threw.
 *
 * Powertools' `SqsFifoPartialProcessorAsync` hands records over one at a time, which would cost
 * one signature per record; the grouping here is the one thing it does not do.
 *
 * Each invocation ends with one `batch handled` log line (records, lineages, failed records,
 * `durationMs` from the handler's start, and `sealed`: `[lineageId, residualId]` of each record
 * sealed): what the sealer's throughput is made of, beside the event source's batch sizes
 * (docs/pipeline.md, "Concurrency"), and the success path's only line: a sealed record has no line
 * of its own, while every refusal, conflict, redelivery, lost race and failure keeps one
 * (docs/pipeline.md, "Logs and metrics").
 */
export function createSealerHandler(service: SealerService, logger: Logger, metrics: Metrics) {
  const limit = pLimit(MAX_CONCURRENT_LINEAGES);
  return middy(async (event: SQSEvent, _context: Context): Promise<SQSBatchResponse> => {
    const startedMs = performance.now();
    const groups = messageGroups(event.Records);
    // One deployment-head read for the whole batch, shared by its groups' runs.
    const invocation = service.beginInvocation();
    const sealed: [lineageId: string, residualId: string][] = [];
    const failedByGroup = await limit.map(groups, async (group) => {
      beginRecord(logger, group[0]?.messageId ?? '');
      try {
        for (const outcome of await service.handleGroup(group.map(sealMessageOf), invocation)) {
          if (outcome.kind === 'SEALED') sealed.push([outcome.head.lineageId, outcome.residualId]);
        }
        return [];
      } catch {
        // Logged by the service; the whole group is retried in order.
        return group.map((record) => ({ itemIdentifier: record.messageId }));
      }
    });
    // The runs' `ResidualSealed` event and sealed-run notices, together, once every group is done
    // (never rejects). A group announced in an event the bus refused is retried whole: its
    // records are stored, and the redelivery re-announces them.
    const { messageIds: unannounced } = await service.endInvocation(invocation);
    const batchItemFailures = groups.flatMap((group, i) =>
      (failedByGroup[i] ?? []).length > 0 || group.some((record) => unannounced.has(record.messageId))
        ? group.map((record) => ({ itemIdentifier: record.messageId }))
        : [],
    );
    logger.removeKeys(['residualId', 'lineageId', 'messageId', 'requestId']);
    logger.info('batch handled', {
      records: event.Records.length,
      lineages: groups.length,
      failed: batchItemFailures.length,
      durationMs: Math.round(performance.now() - startedMs),
      sealed,
    });
    return { batchItemFailures };
  })
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(logMetrics(metrics, { captureColdStartMetric: true }));
}

/** The records of a batch by `MessageGroupId`, each group in delivery order. */
function messageGroups(records: readonly SQSRecord[]): SQSRecord[][] {
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
    receiveCount: Number(record.attributes.ApproximateReceiveCount) || 1,
  };
}
