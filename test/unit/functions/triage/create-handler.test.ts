import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { describe, expect, it, vi } from 'vitest';
import { PowertoolsPipelineMetrics } from '../../../../functions/common/powertools-pipeline-metrics';
import { createTriageHandler } from '../../../../functions/triage/create-handler';
import { TriageService } from '../../../../functions/triage/triage-service';
import { buildManifest } from '../../../../shared/triage/build-manifest';
import { eventBridgeEvent, FakePublisher, lambdaContext, lineageSealedBySealer } from '../../../helpers/factories';
import { FACTORY_LINEAGE_ID, FACTORY_NOW_MS } from '../../../helpers/guard-factories';
import { TEST_LOG_KEY } from '../../../helpers/pipeline-keys';

const LINEAGE = FACTORY_LINEAGE_ID;
const SEALED_ENV = { ARCH: 'arm64', HOSTNAME: 'runner-17', REGION: 'eu-west-1', TOOL_VERSION: '1.2.3' };
const manifest = buildManifest({
  env: SEALED_ENV,
  structuralKeys: ['ARCH'],
  claimDependencyMap: { 'claim-region': ['REGION'], 'claim-tooling': ['TOOL_VERSION'] },
});

/** One sealed record in the lineage, and the triage handler wired as handler.ts wires it. */
async function setup() {
  const { store } = await lineageSealedBySealer(1, manifest);

  const publisher = new FakePublisher();
  const logger = new Logger({ serviceName: 'reseal-triage-test', logLevel: 'SILENT' });
  const errorLog = vi.spyOn(logger, 'error');
  const metrics = new Metrics({ namespace: 'Reseal', serviceName: 'reseal-triage-test' });
  // What logMetrics flushes at the end of an invocation, instead of writing it to stdout.
  const flushed: string[] = [];
  vi.spyOn(metrics, 'publishStoredMetrics').mockImplementation(() => {
    if (metrics.hasStoredMetrics()) flushed.push(JSON.stringify(metrics.serializeMetrics()));
    metrics.clearMetrics();
    return metrics;
  });
  const service = new TriageService({
    store,
    publisher,
    logKey: async () => TEST_LOG_KEY,
    metrics: new PowertoolsPipelineMetrics(metrics),
    logger,
    clock: () => FACTORY_NOW_MS,
  });
  const handler = createTriageHandler(service, logger, metrics);
  return { store, publisher, errorLog, flushed, handler };
}

const recall = (overrides: Record<string, unknown> = {}) => ({
  requestId: 'req-1',
  lineageId: LINEAGE,
  target: { latest: true },
  currentEnv: { ...SEALED_ENV, REGION: 'us-east-1' },
  ...overrides,
});

describe('triage handler (Powertools parser, EventBridge envelope)', () => {
  it('docs/triage.md on a proven record: a RecallRequested event is parsed, triaged, stored and announced', async () => {
    const { handler, store, publisher } = await setup();
    const result = await handler(eventBridgeEvent('RecallRequested', recall()), lambdaContext());
    expect(result).toMatchObject({ kind: 'COMPLETED', detail: { outcome: 'TRIAGED', seq: 0, residualId: 'r-0' } });
    if (result.kind !== 'COMPLETED') return;
    expect(result.detail.report).toMatchObject({
      verdict: 'PARTIAL_REPROBE_REQUIRED',
      invalidatedClaims: ['claim-region'],
      retainedClaims: ['claim-tooling'],
    });
    expect(publisher.triaged).toEqual([result.detail]);
    expect(await store.getTriageReport(LINEAGE, 'req-1')).toEqual(result.detail);
  });

  it.each([
    ['a detail without lineageId', { requestId: 'req-2', target: { latest: true }, currentEnv: SEALED_ENV }],
    ['a detail that is a string', 'not a recall'],
    [
      'a detail with an unusable requestId',
      { ...recall({ target: { newest: true } }), requestId: 'bad id with spaces' },
    ],
  ])(
    'pipeline.md outcomes: %s is not retried; it is logged at error and the RecallInvalid metric is flushed',
    async (_what, detail) => {
      const { handler, store, publisher, errorLog, flushed } = await setup();
      const result = await handler(eventBridgeEvent('RecallRequested', detail), lambdaContext());
      expect(result.kind).toBe('INVALID');
      if (result.kind !== 'INVALID') return;
      expect(result.issues).not.toBe('');
      expect(errorLog).toHaveBeenCalledWith('RecallRequested detail is invalid; nothing triaged', {
        issues: result.issues,
      });
      expect(flushed.join('\n')).toContain('"RecallInvalid"');
      expect(publisher.triaged).toEqual([]);
      // None of these names both a valid requestId and a valid lineageId: no report is stored at all.
      expect([...store.triageReports.values()]).toEqual([]);
    },
  );

  it('an event that is not an EventBridge envelope fails the invocation loudly (ParseError), nothing triaged', async () => {
    const { handler, publisher } = await setup();
    const { time: _time, ...withoutTime } = eventBridgeEvent('RecallRequested', recall());
    await expect(handler(withoutTime as never, lambdaContext())).rejects.toMatchObject({ name: 'ParseError' });
    await expect(
      handler({ ...eventBridgeEvent('RecallRequested', recall()), time: 'yesterday' }, lambdaContext()),
    ).rejects.toMatchObject({ name: 'ParseError' });
    expect(publisher.triaged).toEqual([]);
  });

  it('pipeline.md outcomes: a bus failure rejects the invocation so EventBridge retries it', async () => {
    const { handler, publisher } = await setup();
    publisher.failWith = new Error('EventBridge PutEvents throttled');
    await expect(handler(eventBridgeEvent('RecallRequested', recall()), lambdaContext())).rejects.toThrow(
      'EventBridge PutEvents throttled',
    );
  });
});
