import type { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { parseStrictJson } from '../../shared/canonical/strict-json';
import { DeploymentLogConflictError, InvalidInputError } from '../../shared/errors';
import { parseSealedRunNotice, type SealedRunNotice } from '../../shared/integrator/sealed-run-notice';
import { logInfrastructureFailure } from '../common/observability';
import type { IntegratorService } from './integrator-service';

/**
 * Tries of one batch when another integration moved the deployment head first (its conditional
 * commit lost, docs/deployment-log.md "Integration", step 5): each try re-reads the head and
 * integrates again at once. SQS runs several integrator invocations at a time, and a batch failed
 * back to the queue waits out the visibility timeout (6 minutes) before it is integrated.
 */
export const INTEGRATION_TRIES = 5;

/** `service.integrate(notices)`, tried again at once on a lost commit, up to {@link INTEGRATION_TRIES} times. */
async function integrateThroughConflicts(
  service: Pick<IntegratorService, 'integrate'>,
  notices: readonly SealedRunNotice[],
  logger: Logger,
): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      await service.integrate(notices);
      return;
    } catch (error) {
      if (!(error instanceof DeploymentLogConflictError) || attempt >= INTEGRATION_TRIES) throw error;
      logger.warn('another integration moved the deployment head; integrating again', { attempt });
    }
  }
}

/**
 * The integrator Lambda handler around an {@link IntegratorService}: the integration queue
 * (standard SQS, batching window = the integration interval, docs/deployment-log.md). One batch is
 * one integration: every notice is parsed (a malformed one is logged and dropped: it names nothing
 * the integrator could prove), then integrated at once under one signed checkpoint. A failure
 * (infrastructure, a deployment head that does not authenticate, or moved in each of
 * {@link INTEGRATION_TRIES} tries) fails the whole batch,
 * so SQS redelivers it; an integration is idempotent (what the index holds already is unchanged).
 */
export function createIntegratorHandler(
  service: Pick<IntegratorService, 'integrate'>,
  logger: Logger,
  metrics: Metrics,
) {
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
    try {
      await logInfrastructureFailure(logger, 'the integration failed; the batch will be retried', () =>
        integrateThroughConflicts(service, notices, logger),
      );
      return { batchItemFailures: [] };
    } catch {
      return { batchItemFailures: event.Records.map((r) => ({ itemIdentifier: r.messageId })) };
    }
  })
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(logMetrics(metrics, { captureColdStartMetric: true }));
}
