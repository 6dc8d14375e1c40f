import { setTimeout as sleepFor } from 'node:timers/promises';
import type { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { parseStrictJson } from '../../shared/canonical/strict-json';
import { IntegrationLeaseHeldError, InvalidInputError } from '../../shared/errors';
import { parseSealedRunNotice, type SealedRunNotice } from '../../shared/integrator/sealed-run-notice';
import { logInfrastructureFailure } from '../common/log-infrastructure-failure';
import { integrateThroughConflicts } from './integrate-through-conflicts';
import type { IntegratorService } from './integrator-service';

/**
 * When a batch fails back to the queue because the lease stayed held, it is made visible again
 * after this many seconds (not the 6-minute visibility timeout), so the next try (which may
 * override the lease, `LEASE_OVERRIDE_AFTER_MS`) comes in seconds.
 */
export const LEASE_RETRY_VISIBILITY_SECONDS = 5;

/** The earliest `ApproximateFirstReceiveTimestamp` of the batch (SQS's clock, ms), or `undefined`. */
function firstReceivedMs(event: SQSEvent): number | undefined {
  const times = event.Records.map((r) => Number(r.attributes?.ApproximateFirstReceiveTimestamp)).filter(
    (t) => Number.isSafeInteger(t) && t > 0,
  );
  return times.length > 0 ? Math.min(...times) : undefined;
}

/**
 * The integrator Lambda handler around an {@link IntegratorService}: the integration queue
 * (standard SQS, batching window = the integration interval, docs/deployment-log.md). One batch is
 * one integration: every notice is parsed (a malformed one is logged and dropped: it names nothing
 * the integrator could prove), then integrated at once under one signed checkpoint. A failure
 * (infrastructure, a deployment head that does not authenticate, or moved in each of
 * `INTEGRATION_TRIES` tries) fails the whole batch,
 * so SQS redelivers it; an integration is idempotent (what the index holds already is unchanged).
 * A batch failed for a lease still held is made visible again after
 * {@link LEASE_RETRY_VISIBILITY_SECONDS} through `options.retrySoon` (the batch's receipt handles,
 * seconds), and the service is told when SQS first received it, so a held lease delays it boundedly.
 * `options.sleep` is the wait between lease tries (ms), injectable for tests.
 */
export function createIntegratorHandler(
  service: Pick<IntegratorService, 'integrate'>,
  logger: Logger,
  metrics: Metrics,
  options: {
    retrySoon?: (receiptHandles: readonly string[], seconds: number) => Promise<void>;
    sleep?: (ms: number) => Promise<unknown>;
  } = {},
) {
  const { retrySoon, sleep = sleepFor } = options;
  return middy(async (event: SQSEvent, _context: Context): Promise<SQSBatchResponse> => {
    const notices: SealedRunNotice[] = [];
    for (const record of event.Records) {
      try {
        notices.push(parseSealedRunNotice(parseStrictJson(record.body, 'sealed-run notice')));
      } catch (error) {
        if (!(error instanceof InvalidInputError)) throw error;
        logger.error('malformed sealed-run notice dropped', { messageId: record.messageId, error: error.message });
      }
    }
    if (notices.length === 0) return { batchItemFailures: [] };
    const failed = { batchItemFailures: event.Records.map((r) => ({ itemIdentifier: r.messageId })) };
    try {
      await logInfrastructureFailure(logger, 'the integration failed; the batch will be retried', () =>
        integrateThroughConflicts(service, notices, logger, sleep, firstReceivedMs(event)),
      );
      return { batchItemFailures: [] };
    } catch (error) {
      if (error instanceof IntegrationLeaseHeldError && retrySoon) {
        try {
          await retrySoon(
            event.Records.map((r) => r.receiptHandle),
            LEASE_RETRY_VISIBILITY_SECONDS,
          );
        } catch (visibilityError) {
          logger.warn('the batch could not be made visible again early; it waits out the visibility timeout', {
            error: visibilityError,
          });
        }
      }
      return failed;
    }
  })
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(logMetrics(metrics, { captureColdStartMetric: true }));
}
