import { setTimeout as sleepFor } from 'node:timers/promises';
import type { Logger } from '@aws-lambda-powertools/logger';
import { DeploymentLogConflictError, IntegrationLeaseHeldError } from '../../shared/errors';
import type { SealedRunNotice } from '../../shared/integrator/sealed-run-notice';
import type { IntegratorService } from './integrator-service';

/**
 * Tries of one batch when the deployment head moved under it (its conditional commit lost, or the
 * head moved during a cold start's witness check; docs/deployment-log.md "Integration", step 5):
 * each try re-reads the head and integrates again at once. A batch failed back to the queue waits
 * out the visibility timeout (6 minutes) before it is integrated.
 */
export const INTEGRATION_TRIES = 5;

/**
 * How long a batch waits, in all, for another integration's lease (docs/deployment-log.md, "One
 * integration at a time"), ms: half the function's 60 s timeout, so a waiter still has time to
 * integrate. A lease held longer (its holder crashed) fails the batch back to the queue.
 */
export const LEASE_WAIT_MS = 30_000;

/** The first wait for a held lease, ms; each next wait is half as long again, at most {@link LEASE_WAIT_STEP_MAX_MS}. */
const LEASE_WAIT_STEP_MS = 100;

const LEASE_WAIT_STEP_MAX_MS = 2_000;

/**
 * `service.integrate(notices)`, tried again at once on a moved head, up to
 * {@link INTEGRATION_TRIES} times, and after a growing wait while another integration holds the
 * lease, up to {@link LEASE_WAIT_MS} in all. `sleep` is the wait (ms), injectable for tests.
 */
export async function integrateThroughConflicts(
  service: Pick<IntegratorService, 'integrate'>,
  notices: readonly SealedRunNotice[],
  logger: Pick<Logger, 'warn'>,
  sleep: (ms: number) => Promise<unknown> = sleepFor,
  waitingSinceMs?: number,
): Promise<void> {
  let conflicts = 0;
  let waitedMs = 0;
  let stepMs = LEASE_WAIT_STEP_MS;
  for (;;) {
    try {
      await service.integrate(notices, waitingSinceMs);
      return;
    } catch (error) {
      if (error instanceof IntegrationLeaseHeldError && waitedMs < LEASE_WAIT_MS) {
        await sleep(stepMs);
        waitedMs += stepMs;
        stepMs = Math.min(Math.round(stepMs * 1.5), LEASE_WAIT_STEP_MAX_MS);
        continue;
      }
      conflicts += 1;
      if (!(error instanceof DeploymentLogConflictError) || conflicts >= INTEGRATION_TRIES) throw error;
      logger.warn('the deployment head moved during the integration; integrating again', { attempt: conflicts });
    }
  }
}
