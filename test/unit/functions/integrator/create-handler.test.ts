import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { describe, expect, it, vi } from 'vitest';
import {
  createIntegratorHandler,
  LEASE_RETRY_VISIBILITY_SECONDS,
} from '../../../../functions/integrator/create-handler';
import { INTEGRATION_TRIES, LEASE_WAIT_MS } from '../../../../functions/integrator/integrate-through-conflicts';
import type { IntegrationReport } from '../../../../functions/integrator/integrator-service';
import { DeploymentLogConflictError, IntegrationLeaseHeldError, LogStateError } from '../../../../shared/errors';
import type { SealedRunNotice } from '../../../../shared/integrator/sealed-run-notice';
import { lambdaContext, sqsEvent, sqsRecord } from '../../../helpers/factories';
import { FACTORY_LINEAGE_ID } from '../../../helpers/guard-factories';

const notice: SealedRunNotice = {
  v: 1,
  lineageId: FACTORY_LINEAGE_ID,
  head: {
    treeSize: 1,
    rootHash: 'aa'.repeat(32),
    headRecordHash: 'bb'.repeat(32),
    generationEpoch: 1,
    writerPolicyDigest: null,
  },
  residuals: [{ residualId: 'r-0', seq: 0, recordHash: 'bb'.repeat(32) }],
  sealedAtMs: 1,
};

/** The handler around a service whose first `failures` integrations throw `error`. */
function handlerFailing(failures: number, error: () => Error, retried: Array<[readonly string[], number]> = []) {
  const logger = new Logger({ serviceName: 'reseal-integrator-test', logLevel: 'SILENT' });
  const metrics = new Metrics({ namespace: 'Reseal', serviceName: 'reseal-integrator-test' });
  vi.spyOn(metrics, 'publishStoredMetrics').mockReturnValue(metrics);
  let calls = 0;
  const waitedSince: Array<number | undefined> = [];
  const service = {
    integrate: async (_notices: unknown, waitingSinceMs?: number): Promise<IntegrationReport> => {
      calls += 1;
      waitedSince.push(waitingSinceMs);
      if (calls <= failures) throw error();
      return { checkpoint: null, published: null, integrated: [], unchanged: [], evidence: [], witnessStatus: null };
    },
  };
  let sleptMs = 0;
  const handler = createIntegratorHandler(service, logger, metrics, {
    retrySoon: async (handles, seconds) => void retried.push([handles, seconds]),
    sleep: async (ms) => {
      sleptMs += ms;
    },
  });
  const record = sqsRecord(JSON.stringify(notice), undefined, { messageId: 'm-1' });
  const run = () => handler(sqsEvent([record]), lambdaContext('reseal-integrator'));
  return { run, calls: () => calls, record, waitedSince, sleptMs: () => sleptMs };
}

describe('the integrator handler (docs/deployment-log.md, "Integration", step 5)', () => {
  it('a commit lost to another integration is integrated again at once, not failed back to the queue', async () => {
    const h = handlerFailing(2, () => new DeploymentLogConflictError('moved'));
    expect(await h.run()).toEqual({ batchItemFailures: [] });
    expect(h.calls()).toBe(3);
  });

  it(`after ${INTEGRATION_TRIES} lost commits, or on any other failure at once, the batch fails and SQS retries it`, async () => {
    const lost = handlerFailing(Number.POSITIVE_INFINITY, () => new DeploymentLogConflictError('moved'));
    expect(await lost.run()).toEqual({ batchItemFailures: [{ itemIdentifier: 'm-1' }] });
    expect(lost.calls()).toBe(INTEGRATION_TRIES);
    const refused = handlerFailing(Number.POSITIVE_INFINITY, () => new LogStateError('deployment', 'rolled back'));
    expect(await refused.run()).toEqual({ batchItemFailures: [{ itemIdentifier: 'm-1' }] });
    expect(refused.calls()).toBe(1);
  });

  it('a batch failed for a lease still held comes back in seconds (docs/deployment-log.md, "One integration at a time")', async () => {
    const retried: Array<[readonly string[], number]> = [];
    const held = handlerFailing(Number.POSITIVE_INFINITY, () => new IntegrationLeaseHeldError('held'), retried);
    expect(await held.run()).toEqual({ batchItemFailures: [{ itemIdentifier: 'm-1' }] });
    expect(held.sleptMs()).toBeGreaterThanOrEqual(LEASE_WAIT_MS);
    expect(retried).toEqual([[[held.record.receiptHandle], LEASE_RETRY_VISIBILITY_SECONDS]]);
    // The service is told when SQS first received the batch (its bound on the lease wait).
    expect(new Set(held.waitedSince)).toEqual(
      new Set([Number(held.record.attributes.ApproximateFirstReceiveTimestamp)]),
    );
    // Any other failure waits out the visibility timeout, as before.
    const other: Array<[readonly string[], number]> = [];
    await handlerFailing(Number.POSITIVE_INFINITY, () => new LogStateError('deployment', 'rolled back'), other).run();
    expect(other).toEqual([]);
  });
});
