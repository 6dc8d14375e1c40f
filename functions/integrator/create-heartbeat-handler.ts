import type { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { logInfrastructureFailure } from '../common/log-infrastructure-failure';
import type { DeploymentHeartbeat, HeartbeatReport } from './heartbeat';

/**
 * The heartbeat's Lambda handler around a {@link DeploymentHeartbeat}: one beat per scheduled
 * invocation. A failure (a head that does not authenticate, an infrastructure error) is logged and
 * rethrown; the schedule fires again at its next period, so nothing is retried in between.
 */
export function createHeartbeatHandler(heartbeat: DeploymentHeartbeat, logger: Logger, metrics: Metrics) {
  return middy(
    async (_event: unknown, _context: Context): Promise<HeartbeatReport> =>
      logInfrastructureFailure(logger, 'the heartbeat failed; the schedule fires again', () => heartbeat.beat()),
  )
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(logMetrics(metrics, { captureColdStartMetric: true }));
}
