import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { vi } from 'vitest';
import { GuardService } from '../../functions/guard/guard-service';
import { createSealerHandler } from '../../functions/sealer/create-handler';
import { type SealerDeps, SealerService } from '../../functions/sealer/sealer-service';
import type { NoteSigner } from '../../shared/ports/note-signer';
import { FakeMetrics, FakePublisher, FakeSealQueue, fakeLogger } from './factories';
import { FACTORY_NOW_MS } from './guard-factories';
import { InMemoryLineageStore } from './in-memory-lineage-store';
import { MemoryNoticeKey } from './memory-notice-key';
import { TEST_LOG_NAME, testGuardSigner, testLogSigner, testSealerSigner } from './pipeline-keys';
import { testAnchor } from './seal-factories';

/**
 * A guard service on in-memory fakes, its clock at the factories' "now", receipts up to 900 s old
 * unless `options` say otherwise (a `signer` in place of the test guard key); its fakes beside it.
 */
export function testGuardService(
  options: {
    readonly maxBodyBytes?: number;
    readonly signer?: NoteSigner;
    readonly tenantQueues?: ReadonlyMap<string, string>;
  } = {},
) {
  const store = new InMemoryLineageStore();
  const publisher = new FakePublisher();
  const queue = new FakeSealQueue();
  const metrics = new FakeMetrics();
  const logger = fakeLogger();
  const service = new GuardService({
    store,
    publisher,
    queue,
    signer: testGuardSigner(),
    logName: TEST_LOG_NAME,
    metrics,
    logger,
    clock: () => FACTORY_NOW_MS,
    maxReceiptAgeSeconds: 900,
    ...options,
  });
  return { service, store, publisher, queue, metrics, logger };
}

/**
 * A sealer's dependencies on in-memory fakes and the test keys, its clock 1 s after the factories' "now".
 * `signLineageCheckpoints: true`: heads signed as before docs/deployment-log.md, "What changes for
 * the sealer", step 3, which readers keep reading; a test of the deployed default spreads these
 * with `signLineageCheckpoints: false`.
 */
export function testSealerDeps() {
  return {
    signLineageCheckpoints: true,
    store: new InMemoryLineageStore(),
    publisher: new FakePublisher(),
    metrics: new FakeMetrics(),
    anchor: testAnchor(),
    signer: testLogSigner(),
    refusalSigner: testSealerSigner(),
    logger: fakeLogger(),
    clock: () => FACTORY_NOW_MS + 1000,
  };
}

/** A sealer service on {@link testSealerDeps}, with those dependencies beside it. */
export function testSealerService() {
  const deps = testSealerDeps();
  return { ...deps, service: new SealerService(deps) };
}

/**
 * The sealer's Lambda handler as functions/sealer/handler.ts builds it (one service for every warm
 * invocation, Powertools' logger silenced and its metrics never flushed), on an in-memory store,
 * the test keys, a notice key in memory (`noticeKey`: heads MAC'd under its data key, as the
 * deployed sealer does) and the factories' "now"; `deps` replace any but the store (e.g. an
 * anchor whose KMS calls a test counts, or `noticeKey: null`).
 */
export function testSealerHandler(deps: Partial<Omit<SealerDeps, 'store'>> = {}) {
  const store = new InMemoryLineageStore();
  const anchor = testAnchor();
  const noticeKey = new MemoryNoticeKey();
  const logger = new Logger({ serviceName: 'reseal-sealer-test', logLevel: 'SILENT' });
  const metrics = new Metrics({ namespace: 'Reseal', serviceName: 'reseal-sealer-test' });
  vi.spyOn(metrics, 'publishStoredMetrics').mockReturnValue(metrics);
  const signer = testLogSigner();
  const service = new SealerService({
    store,
    publisher: new FakePublisher(),
    anchor,
    signer,
    refusalSigner: testSealerSigner(),
    metrics: new FakeMetrics(),
    logger,
    clock: () => FACTORY_NOW_MS,
    noticeKey,
    ...deps,
  });
  return { store, anchor, signer, logger, noticeKey, service, handler: createSealerHandler(service, logger, metrics) };
}
