import { DeploymentChainReader } from '../../client/deployment-chain-reader';
import { freshnessPolicy } from '../../client/freshness-policy';
import { prepareReAnchor } from '../../scripts/re-anchor';
import type { NoteVerifierKey } from '../../shared/log/note-key';
import type { DeploymentLogReads } from '../../shared/ports/deployment-log-reads';
import { INTEGRATION_NOW_MS, inProcessIntegration } from './in-process-integration';
import { inProcessWitness } from './in-process-witness';
import { TEST_LOG_KEY, TEST_LOG_NAME } from './pipeline-keys';
import { testRecoveryKey, testRecoverySigner } from './re-anchor-factories';

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
 * process: the real sealer and integrators ({@link inProcessIntegration}, the sealer reading the
 * index floor) and witness ({@link inProcessWitness}, trusting the test recovery key or
 * `witnessRecoveryKeys`).
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
  // The witness's, integrators' and reader's clock: each statement moves it on a minute (the
  // operator makes it after the restore), so checkpoints cosigned before it are dated before it.
  let nowMs = INTEGRATION_NOW_MS;
  const clock = () => nowMs;
  const witness = await inProcessWitness({
    clock,
    recoveryKeys: options.witnessRecoveryKeys ?? [recoveryKey],
  });
  const { store, deployment, index, notices, write, coldSealer, newSealer, ...table } = inProcessIntegration({
    indexFloor: true,
  });
  const integrator = ({ minSize }: { readonly minSize?: number } = {}) =>
    table.integrator({
      witness: options.unwitnessed ? null : { client: witness.client, policy: witness.policy, maxAgeSeconds: 180 },
      clock,
      recoveryKeys: [recoveryKey],
      ...(minSize ? { minSize } : {}),
    });
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
      if (!options.warmSealer) coldSealer(); // the functions restart cold after a restore
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
    policy: async () => freshnessPolicy(witness.policyText),
    nowMs: clock,
  });
  /**
   * The operator's statement for the table's head and the witness's state, signed with `recovery`,
   * dated `aheadSeconds` after the stack's clock (an operator's clock running ahead).
   */
  const statement = async (recovery = testRecoverySigner(), { aheadSeconds = 0 } = {}) => {
    const lost = await witness.store.read(TEST_LOG_NAME);
    if (!lost) throw new Error('the witness holds nothing');
    nowMs += 60_000;
    const prepared = await prepareReAnchor({
      head: await deployment.readHead(),
      key: TEST_LOG_KEY,
      lost,
      reason: RECOVERY_REASON,
      nowSeconds: Math.floor(nowMs / 1000) + aheadSeconds,
      recovery,
    });
    if (!prepared) throw new Error('nothing to re-anchor');
    return prepared.note;
  };
  return {
    store,
    deployment,
    index,
    witnessStore: witness.store,
    notices,
    write,
    otherSealer: newSealer,
    integrator,
    snapshot,
    reader,
    statement,
    policyText: witness.policyText,
  };
}
