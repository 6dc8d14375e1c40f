import { GuardService } from '../../functions/guard/guard-service';
import { SealerService } from '../../functions/sealer/sealer-service';
import { FakeMetrics, FakePublisher, FakeSealQueue, fakeLogger } from './factories';
import { FACTORY_NOW_MS } from './guard-factories';
import { InMemoryLineageStore } from './in-memory-lineage-store';
import { TEST_LOG_NAME, testGuardSigner, testLogSigner } from './pipeline-keys';
import { testAnchor } from './seal-factories';

/** A guard service on in-memory fakes, its clock at the factories' "now", receipts up to 900 s old. */
export function testGuardService() {
  const store = new InMemoryLineageStore();
  const queue = new FakeSealQueue();
  const service = new GuardService({
    store,
    publisher: new FakePublisher(),
    queue,
    signer: testGuardSigner(),
    logName: TEST_LOG_NAME,
    metrics: new FakeMetrics(),
    logger: fakeLogger(),
    clock: () => FACTORY_NOW_MS,
    maxReceiptAgeSeconds: 900,
  });
  return { service, store, queue };
}

/** A sealer service on in-memory fakes and the test keys, its clock 1 s after the factories' "now". */
export function testSealerService() {
  const store = new InMemoryLineageStore();
  const service = new SealerService({
    store,
    publisher: new FakePublisher(),
    metrics: new FakeMetrics(),
    anchor: testAnchor(),
    signer: testLogSigner(),
    logger: fakeLogger(),
    clock: () => FACTORY_NOW_MS + 1000,
  });
  return { service, store };
}
