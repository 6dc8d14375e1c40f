import { DeploymentChainReader } from '../../client/deployment-chain-reader';
import { freshnessPolicy } from '../../client/freshness-policy';
import { IntegratorService, type IntegratorWitness } from '../../functions/integrator/integrator-service';
import { SealerService } from '../../functions/sealer/sealer-service';
import { WitnessService } from '../../functions/witness/witness-service';
import { prepareReAnchor } from '../../scripts/re-anchor';
import { MemoryIndexNodeStore } from '../../shared/index/memory-index-node-store';
import type { SealedRunNotice } from '../../shared/integrator/sealed-run-notice';
import { formatVerifierKey, type NoteVerifierKey } from '../../shared/log/note-key';
import type { DeploymentLogReads } from '../../shared/ports/deployment-log-reads';
import { formatCosignerKey } from '../../shared/witness/cosigner-key';
import { parsePolicy } from '../../shared/witness/tlog-policy';
import { parseTrustedLogs } from '../../shared/witness/trusted-logs';
import { FakeMetrics, fakeLogger, sealRequestBody } from './factories';
import { FACTORY_NOW_MS } from './guard-factories';
import { InMemoryDeploymentLogStore } from './in-memory-deployment-log-store';
import type { InMemoryLineageStore } from './in-memory-lineage-store';
import { InMemoryWitnessStore } from './in-memory-witness-store';
import { TEST_LOG_KEY, TEST_LOG_NAME, testLogSigner } from './pipeline-keys';
import { testRecoveryKey, testRecoverySigner } from './re-anchor-factories';
import { testAnchor } from './seal-factories';
import { testSealerDeps } from './service-factories';
import { testCosignerKey, testWitnessSigner } from './witness-factories';

/** The clock of every service of a {@link recoveryStack}, ms since the Unix epoch. */
export const RECOVERY_NOW_MS = FACTORY_NOW_MS + 2000;

/** The reason the operator's re-anchor statements of a {@link recoveryStack} give. */
export const RECOVERY_REASON = 'table restored from a point-in-time backup after an operator error';

/** How a {@link recoveryStack} differs from the default. */
export interface RecoveryStackOptions {
  /** The recovery keys the witness knows; default the test recovery key. */
  readonly witnessRecoveryKeys?: readonly NoteVerifierKey[];
  /** Integrators run without the witness (an unwitnessed stack). */
  readonly unwitnessed?: boolean;
}

/**
 * The operator's recovery after a legitimate restore (docs/deployment-log.md, "Re-anchor"), in
 * process: the real sealer, integrator and witness services over in-memory stores with the test
 * keys, the witness trusting the test log and the test recovery key (or `witnessRecoveryKeys`).
 * - `write(lineageId, residualId, by?)` seals one write (expects `SEALED`) with the current sealer
 *   (or `by`); its notice lands in `notices`;
 * - `integrator({ minSize }?)` is a new (cold) integrator with the test recovery key (and the
 *   operator's `DEPLOYMENT_MIN_SIZE` pin), witnessed unless `unwitnessed`;
 * - `snapshot()` copies the whole table (lineages and deployment log) and returns the restore,
 *   which puts it back and (unless `warmSealer`) restarts the sealer cold, as functions do after one;
 * - `statement(recovery?)` is the re-anchor note for the table's head and the witness's state;
 * - `reader` is a cold client's `DeploymentChainReader` under the witnessed policy `policyText`.
 */
export async function recoveryStack(options: RecoveryStackOptions = {}) {
  const recoveryKey = await testRecoveryKey();
  const witnessStore = new InMemoryWitnessStore();
  const witnessService = new WitnessService({
    store: witnessStore,
    signer: testWitnessSigner(),
    trusted: parseTrustedLogs(formatVerifierKey(TEST_LOG_KEY)),
    logger: fakeLogger(),
    clock: () => RECOVERY_NOW_MS,
    recoveryKeys: options.witnessRecoveryKeys ?? [recoveryKey],
  });
  const policyText = `log ${formatVerifierKey(TEST_LOG_KEY)}\nwitness w1 ${formatCosignerKey(await testCosignerKey())}\nquorum w1\n`;
  const witness: IntegratorWitness = {
    client: {
      addCheckpoint: async (body) => witnessService.addCheckpoint(body),
      reAnchor: async (body) => witnessService.reAnchor(body),
    },
    policy: parsePolicy(policyText),
    maxAgeSeconds: 180,
  };
  const notices: SealedRunNotice[] = [];
  const deployment = new InMemoryDeploymentLogStore();
  const index = new MemoryIndexNodeStore();
  // The sealer reads the index floor under the deployment head (docs/sealing.md, "The index floor").
  const deps = {
    ...testSealerDeps(),
    notifier: { notify: async (n: SealedRunNotice) => void notices.push(n) },
    index: { deployment, nodes: index, witness: null },
  };
  let sealer = new SealerService(deps);
  const store = deps.store as InMemoryLineageStore;
  const integrator = ({ minSize }: { readonly minSize?: number } = {}) =>
    new IntegratorService({
      lineages: store,
      deployment,
      index,
      signer: testLogSigner(),
      anchor: testAnchor(),
      witness: options.unwitnessed ? null : witness,
      metrics: new FakeMetrics(),
      logger: fakeLogger(),
      clock: () => RECOVERY_NOW_MS,
      recoveryKeys: [recoveryKey],
      ...(minSize ? { minSize } : {}),
    });
  let n = 0;
  const write = async (lineageId: string, residualId: string, by?: SealerService) => {
    const outcome = await (by ?? sealer).handle({
      messageId: `m-${++n}`,
      body: sealRequestBody({ lineageId, residualId }),
      sentAtMs: FACTORY_NOW_MS + n,
    });
    if (outcome.kind !== 'SEALED') throw new Error(`${lineageId}/${residualId} not sealed: ${JSON.stringify(outcome)}`);
  };
  /** The whole table as it stands (lineages and the deployment log), to put back: a restore from backup. */
  const snapshot = () => {
    const copy = structuredClone({
      records: store.records,
      heads: store.heads,
      logHeads: store.logHeads,
      nodes: store.nodes,
      markers: store.markers,
      head: deployment.head,
      leaves: deployment.leaves,
    });
    return (options: { warmSealer?: boolean } = {}) => {
      for (const name of ['records', 'heads', 'logHeads', 'nodes', 'markers'] as const) {
        const map = store[name] as Map<string, unknown>;
        map.clear();
        for (const [k, v] of copy[name] as Map<string, unknown>) map.set(k, structuredClone(v));
      }
      deployment.head = structuredClone(copy.head);
      deployment.leaves.clear();
      for (const [k, v] of copy.leaves) deployment.leaves.set(k, structuredClone(v));
      if (!options.warmSealer) sealer = new SealerService(deps); // the functions restart cold after a restore
    };
  };
  const reads: DeploymentLogReads = {
    readHead: () => deployment.readHead(),
    readNodes: (refs) => deployment.readNodes(refs),
    readLeafIndexRoot: async (i) => deployment.leaves.get(i)?.indexRoot ?? null,
  };
  const reader = new DeploymentChainReader({
    log: reads,
    index,
    policy: async () => freshnessPolicy(policyText),
    nowMs: () => RECOVERY_NOW_MS,
  });
  /** The operator's statement for the table's head and the witness's state, signed with `recovery`. */
  const statement = async (recovery = testRecoverySigner()) => {
    const lost = await witnessStore.read(TEST_LOG_NAME);
    if (!lost) throw new Error('the witness holds nothing');
    const prepared = await prepareReAnchor({
      head: await deployment.readHead(),
      key: TEST_LOG_KEY,
      lost,
      reason: RECOVERY_REASON,
      nowSeconds: Math.floor(RECOVERY_NOW_MS / 1000),
      recovery,
    });
    if (!prepared) throw new Error('nothing to re-anchor');
    return prepared.note;
  };
  const otherSealer = () => new SealerService(deps);
  return {
    store,
    deployment,
    index,
    witnessStore,
    notices,
    write,
    otherSealer,
    integrator,
    snapshot,
    reader,
    statement,
    policyText,
  };
}
