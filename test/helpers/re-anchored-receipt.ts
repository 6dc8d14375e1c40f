import { buildChainReceipt } from '../../client/chain-receipts';
import { DeploymentChainReader } from '../../client/deployment-chain-reader';
import { freshnessPolicy } from '../../client/freshness-policy';
import { IntegratorService } from '../../functions/integrator/integrator-service';
import { SealerService } from '../../functions/sealer/sealer-service';
import { WitnessService } from '../../functions/witness/witness-service';
import { prepareReAnchor } from '../../scripts/re-anchor';
import { MemoryIndexNodeStore } from '../../shared/index/memory-index-node-store';
import type { ChainReceipt } from '../../shared/integrator/chain-receipt';
import type { SealedRunNotice } from '../../shared/integrator/sealed-run-notice';
import { formatVerifierKey } from '../../shared/log/note-key';
import { formatCosignerKey } from '../../shared/witness/cosigner-key';
import { parsePolicy } from '../../shared/witness/tlog-policy';
import { parseTrustedLogs } from '../../shared/witness/trusted-logs';
import { FakeMetrics, fakeLogger, sealRequestBody } from './factories';
import { FACTORY_LINEAGE_ID, FACTORY_NOW_MS } from './guard-factories';
import { InMemoryDeploymentLogStore } from './in-memory-deployment-log-store';
import type { InMemoryLineageStore } from './in-memory-lineage-store';
import { InMemoryWitnessStore } from './in-memory-witness-store';
import { TEST_LOG_KEY, TEST_LOG_NAME, testLogSigner } from './pipeline-keys';
import { testRecoveryKey, testRecoverySigner } from './re-anchor-factories';
import { testSealerDeps } from './service-factories';
import { testCosignerKey, testWitnessSigner } from './witness-factories';

/**
 * A format-2 receipt of a record integrated after a legitimate restore and the operator's
 * re-anchor (docs/deployment-log.md, "Re-anchor"; docs/verifiable-log.md, "Receipts"), built by
 * the real sealer, integrator and witness in memory with the test keys: two writes integrated, a
 * snapshot, a third integrated (the witness cosigns 2 leaves), the table restored to the snapshot,
 * a write sealed, the re-anchor, its integration; the receipt is of that last record (seq 2), under
 * the witnessed test policy, at `nowSeconds`.
 */
export async function reAnchoredReceipt(): Promise<{
  readonly receipt: ChainReceipt;
  readonly policyText: string;
  readonly nowSeconds: number;
}> {
  const nowMs = FACTORY_NOW_MS + 2000;
  const recoveryKey = await testRecoveryKey();
  const witnessStore = new InMemoryWitnessStore();
  const witnessService = new WitnessService({
    store: witnessStore,
    signer: testWitnessSigner(),
    trusted: parseTrustedLogs(formatVerifierKey(TEST_LOG_KEY)),
    logger: fakeLogger(),
    clock: () => nowMs,
    recoveryKeys: [recoveryKey],
  });
  const policyText = `log ${formatVerifierKey(TEST_LOG_KEY)}\nwitness w1 ${formatCosignerKey(await testCosignerKey())}\nquorum w1\n`;
  const notices: SealedRunNotice[] = [];
  const deployment = new InMemoryDeploymentLogStore();
  const index = new MemoryIndexNodeStore();
  const deps = {
    ...testSealerDeps(),
    notifier: { notify: async (n: SealedRunNotice) => void notices.push(n) },
    index: { deployment, nodes: index, witness: null },
  };
  const store = deps.store as InMemoryLineageStore;
  const integrator = new IntegratorService({
    lineages: store,
    deployment,
    index,
    signer: testLogSigner(),
    anchor: deps.anchor,
    witness: {
      client: {
        addCheckpoint: async (body) => witnessService.addCheckpoint(body),
        reAnchor: async (body) => witnessService.reAnchor(body),
      },
      policy: parsePolicy(policyText),
      maxAgeSeconds: 180,
    },
    metrics: new FakeMetrics(),
    logger: fakeLogger(),
    clock: () => nowMs,
    recoveryKeys: [recoveryKey],
  });
  let n = 0;
  const write = async (sealer: SealerService, residualId: string) =>
    sealer.handle({
      messageId: `m-${++n}`,
      body: sealRequestBody({ lineageId: FACTORY_LINEAGE_ID, residualId }),
      sentAtMs: FACTORY_NOW_MS + n,
    });
  const warm = new SealerService(deps);
  await write(warm, 'r-0');
  await write(warm, 'r-1');
  await integrator.integrate(notices.splice(0));
  const backup = structuredClone({
    records: store.records,
    heads: store.heads,
    logHeads: store.logHeads,
    nodes: store.nodes,
    markers: store.markers,
    head: deployment.head,
    leaves: deployment.leaves,
  });
  await write(warm, 'r-2');
  await integrator.integrate(notices.splice(0));
  for (const name of ['records', 'heads', 'logHeads', 'nodes', 'markers'] as const) {
    const map = store[name] as Map<string, unknown>;
    map.clear();
    for (const [k, v] of backup[name] as Map<string, unknown>) map.set(k, structuredClone(v));
  }
  deployment.head = structuredClone(backup.head);
  deployment.leaves.clear();
  for (const [k, v] of backup.leaves) deployment.leaves.set(k, structuredClone(v));
  await write(new SealerService(deps), 'r-2b');
  const batch = notices.splice(0);
  const lost = await witnessStore.read(TEST_LOG_NAME);
  const prepared = await prepareReAnchor({
    head: await deployment.readHead(),
    key: TEST_LOG_KEY,
    lost: lost ?? { size: 0, rootHash: new Uint8Array(32) },
    reason: 'table restored from a point-in-time backup after an operator error',
    nowSeconds: Math.floor(nowMs / 1000),
    recovery: testRecoverySigner(),
  });
  if (!prepared) throw new Error('nothing to re-anchor');
  await integrator.reAnchor(prepared.note);
  await integrator.integrate(batch);
  const reader = new DeploymentChainReader({
    log: {
      readHead: () => deployment.readHead(),
      readNodes: (refs) => deployment.readNodes(refs),
      readLeafIndexRoot: async (i) => deployment.leaves.get(i)?.indexRoot ?? null,
    },
    index,
    policy: async () => freshnessPolicy(policyText),
    nowMs: () => nowMs,
  });
  const receipt = await buildChainReceipt({ store, reader, nowMs: () => nowMs }, FACTORY_LINEAGE_ID, 2);
  return { receipt, policyText, nowSeconds: Math.floor(nowMs / 1000) };
}
