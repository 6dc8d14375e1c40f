import type { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { parser } from '@aws-lambda-powertools/parser/middleware';
import { EventBridgeSchema } from '@aws-lambda-powertools/parser/schemas/eventbridge';
import middy from '@middy/core';
import type { z } from 'zod';
import type { TriageResult, TriageService } from './triage-service';

type EventBridgeEvent = z.infer<typeof EventBridgeSchema>;

/**
 * The triage Lambda handler around a {@link TriageService}: the EventBridge envelope is
 * validated by the Powertools parser; the `RecallRequested` detail by the service with the
 * core's schema. Throws only on infrastructure failures (EventBridge then retries).
 */
export function createTriageHandler(service: TriageService, logger: Logger, metrics: Metrics) {
  return middy(async (event: EventBridgeEvent): Promise<TriageResult> => {
    logger.appendKeys({ eventId: event.id });
    // The envelope's source names the tenant in a stack with tenants (docs/triage.md, "Tenants").
    return service.handle(event.detail, event.source);
  })
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(logMetrics(metrics, { captureColdStartMetric: true }))
    .use(parser({ schema: EventBridgeSchema }));
}
