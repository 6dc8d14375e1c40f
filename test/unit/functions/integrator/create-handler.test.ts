import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { describe, expect, it, vi } from 'vitest';
import { createIntegratorHandler, INTEGRATION_TRIES } from '../../../../functions/integrator/create-handler';
import type { IntegrationReport } from '../../../../functions/integrator/integrator-service';
import { DeploymentLogConflictError, LogStateError } from '../../../../shared/errors';
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
function handlerFailing(failures: number, error: () => Error) {
  const logger = new Logger({ serviceName: 'reseal-integrator-test', logLevel: 'SILENT' });
  const metrics = new Metrics({ namespace: 'Reseal', serviceName: 'reseal-integrator-test' });
  vi.spyOn(metrics, 'publishStoredMetrics').mockReturnValue(metrics);
  let calls = 0;
  const service = {
    integrate: async (): Promise<IntegrationReport> => {
      calls += 1;
      if (calls <= failures) throw error();
      return { checkpoint: null, published: null, integrated: [], unchanged: [], evidence: [], witnessStatus: null };
    },
  };
  const handler = createIntegratorHandler(service, logger, metrics);
  const run = () =>
    handler(
      sqsEvent([sqsRecord(JSON.stringify(notice), undefined, { messageId: 'm-1' })]),
      lambdaContext('reseal-integrator'),
    );
  return { run, calls: () => calls };
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
});
