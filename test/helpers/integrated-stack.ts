import { freshnessPolicy } from '../../client/freshness-policy';
import { ResealClient, type ResealClientDeps } from '../../client/reseal-client';
import { IntegratorService } from '../../functions/integrator/integrator-service';
import { SealerService } from '../../functions/sealer/sealer-service';
import { MemoryIndexNodeStore } from '../../shared/index/memory-index-node-store';
import type { SealedRunNotice } from '../../shared/integrator/sealed-run-notice';
import { parseCheckpointBody } from '../../shared/log/checkpoint';
import { formatVerifierKey } from '../../shared/log/note-key';
import { parseSignedNote } from '../../shared/log/signed-note';
import { cosign, formatSignatureLine } from '../../shared/witness/cosignature';
import { formatCosignerKey } from '../../shared/witness/cosigner-key';
import type { ResidualWriteRequest } from '../../shared/write/write-request';
import { FakeMetrics, fakeLogger, sealRequestBody, TEST_CLIENT_OUTPUTS } from './factories';
import { FACTORY_NOW_MS, validWriteRequest } from './guard-factories';
import { InMemoryDeploymentLogStore } from './in-memory-deployment-log-store';
import type { InMemoryLineageStore } from './in-memory-lineage-store';
import { TEST_CLIENT_KEYS, TEST_LOG_KEY, testLogSigner } from './pipeline-keys';
import { testSealerDeps } from './service-factories';
import { testCosignerKey, testWitnessSigner } from './witness-factories';

/** The unwitnessed policy of the test stack: its log key, `quorum none`. */
export const unwitnessedTestPolicy = () => freshnessPolicy(`log ${formatVerifierKey(TEST_LOG_KEY)}\nquorum none\n`);

/** The witnessed policy of the test stack: its log key and the test witness, `quorum w1`. */
export async function witnessedTestPolicy(maxAgeSeconds?: number) {
  const text = `log ${formatVerifierKey(TEST_LOG_KEY)}\nwitness w1 ${formatCosignerKey(await testCosignerKey())}\nquorum w1\n`;
  return freshnessPolicy(text, maxAgeSeconds);
}

/** `note` with a `cosignature/v1` line of the test witness at `timestamp` (POSIX seconds) added. */
export async function cosignedByTestWitness(note: string, timestamp: number): Promise<string> {
  const { text } = parseSignedNote(note);
  parseCheckpointBody(text);
  const signature = await cosign(text, timestamp, testWitnessSigner());
  return `${note}${formatSignatureLine(signature)}`;
}

/**
 * The real sealer and integrator in memory on one table (docs/deployment-log.md): writes are
 * sealed with `send`, the sealer's notices collected, and integrated with `integrate`; `client`
 * reads the lineage table, the deployment log and the index with the pinned test keys, a fake
 * clock its sleeps advance, and `onSleep` run at each sleep (to integrate while a client waits).
 */
export function integratedStack() {
  const notices: SealedRunNotice[] = [];
  const deps = testSealerDeps();
  const store = deps.store as InMemoryLineageStore;
  const deployment = new InMemoryDeploymentLogStore();
  const index = new MemoryIndexNodeStore();
  const sealer = new SealerService({
    ...deps,
    notifier: { notify: async (n: SealedRunNotice) => void notices.push(n) },
    index: { deployment, nodes: index, witness: null },
  });
  // A sealer that reads no deployment index (as before the index floor): it trusts the marker
  // alone, so a write whose marker was deleted is sealed a second time (docs/sealing.md, "The index floor").
  const unfloored = new SealerService({
    ...deps,
    notifier: { notify: async (n: SealedRunNotice) => void notices.push(n) },
    index: null,
  });
  const integrator = new IntegratorService({
    lineages: store,
    deployment,
    index,
    signer: testLogSigner(),
    anchor: deps.anchor,
    witness: null,
    metrics: new FakeMetrics(),
    logger: fakeLogger(),
    clock: () => FACTORY_NOW_MS + 2000,
  });
  let n = 0;
  const clock = { now: FACTORY_NOW_MS + 5000 };
  return {
    store,
    deployment,
    index,
    clock,
    /** Seals the write of `fields` (`validWriteRequest` defaults, signed by the test writer). */
    send: async (fields: Partial<ResidualWriteRequest>) =>
      sealer.handle({ messageId: `m-${++n}`, body: sealRequestBody(fields), sentAtMs: FACTORY_NOW_MS + n }),
    /** Seals like `send`, by a sealer without the index floor (one that can seal a residual id twice). */
    sendUnfloored: async (fields: Partial<ResidualWriteRequest>) =>
      unfloored.handle({ messageId: `m-${++n}`, body: sealRequestBody(fields), sentAtMs: FACTORY_NOW_MS + n }),
    request: (fields: Partial<ResidualWriteRequest>) => validWriteRequest(fields),
    integrate: () => integrator.integrate(notices.splice(0)),
    client: (options: { deps?: ResealClientDeps; onSleep?: () => Promise<void> } = {}) =>
      new ResealClient(TEST_CLIENT_OUTPUTS, {
        ...TEST_CLIENT_KEYS,
        store,
        anchor: deps.anchor,
        deploymentLog: deployment,
        indexNodes: index,
        nowMs: () => clock.now,
        sleep: async (ms) => {
          clock.now += ms;
          await options.onSleep?.();
        },
        ...options.deps,
      }),
  };
}
