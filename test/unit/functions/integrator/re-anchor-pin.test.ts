import { describe, expect, it } from 'vitest';
import { IntegratorService } from '../../../../functions/integrator/integrator-service';
import { SealerService } from '../../../../functions/sealer/sealer-service';
import { prepareReAnchor } from '../../../../scripts/re-anchor';
import { MemoryIndexNodeStore } from '../../../../shared/index/memory-index-node-store';
import type { SealedRunNotice } from '../../../../shared/integrator/sealed-run-notice';
import { parseCheckpointBody } from '../../../../shared/log/checkpoint';
import { parseSignedNote } from '../../../../shared/log/signed-note';
import { FakeMetrics, fakeLogger, sealRequestBody } from '../../../helpers/factories';
import { FACTORY_LINEAGE_ID, FACTORY_NOW_MS } from '../../../helpers/guard-factories';
import { InMemoryDeploymentLogStore } from '../../../helpers/in-memory-deployment-log-store';
import type { InMemoryLineageStore } from '../../../helpers/in-memory-lineage-store';
import { TEST_LOG_KEY, testLogSigner } from '../../../helpers/pipeline-keys';
import { testRecoveryKey, testRecoverySigner } from '../../../helpers/re-anchor-factories';
import { testAnchor } from '../../../helpers/seal-factories';
import { testSealerDeps } from '../../../helpers/service-factories';
import { testLineageId } from '../../../helpers/writer-factories';

// docs/deployment-log.md, "Re-anchor": the operator's DEPLOYMENT_MIN_SIZE applies in the
// re-anchored history too. A re-anchor must not lift it, else a table writer who puts back an
// early head of the new history (and deletes the leaves above it) gets it extended and signed by a
// cold integrator: a fork of the log, with nothing but the pin to stop it on an unwitnessed stack.
const [A, B] = [FACTORY_LINEAGE_ID, testLineageId('lin-b')];
const NOW_MS = FACTORY_NOW_MS + 2000;

/** Writes, optionally a restore and a re-anchor, four leaves, the operator's pin, then a rollback. */
async function coldIntegrationAfterRollback(reAnchored: boolean): Promise<string> {
  const recoveryKey = await testRecoveryKey();
  const notices: SealedRunNotice[] = [];
  const deployment = new InMemoryDeploymentLogStore();
  const index = new MemoryIndexNodeStore();
  const deps = {
    ...testSealerDeps(),
    notifier: { notify: async (n: SealedRunNotice) => void notices.push(n) },
    index: { deployment, nodes: index, witness: null },
  };
  const sealer = new SealerService(deps);
  const integrator = (minSize?: number) =>
    new IntegratorService({
      lineages: deps.store as InMemoryLineageStore,
      deployment,
      index,
      signer: testLogSigner(),
      anchor: testAnchor(),
      witness: null,
      metrics: new FakeMetrics(),
      logger: fakeLogger(),
      clock: () => NOW_MS,
      recoveryKeys: [recoveryKey],
      ...(minSize ? { minSize } : {}),
    });
  let n = 0;
  const write = async (lineageId: string, residualId: string) => {
    const outcome = await sealer.handle({
      messageId: `m-${++n}`,
      body: sealRequestBody({ lineageId, residualId }),
      sentAtMs: FACTORY_NOW_MS + n,
    });
    expect(outcome.kind).toBe('SEALED');
  };
  const snapshot = () => structuredClone({ head: deployment.head, leaves: deployment.leaves });
  const putBack = (saved: ReturnType<typeof snapshot>) => {
    deployment.head = structuredClone(saved.head);
    deployment.leaves.clear();
    for (const [k, v] of saved.leaves) deployment.leaves.set(k, structuredClone(v));
  };
  const warm = integrator();
  await write(A, 'r-0');
  await warm.integrate(notices.splice(0));
  if (reAnchored) {
    const restored = snapshot();
    for (const [lineage, residual] of [
      [A, 'r-1'],
      [B, 'r-0'],
      [B, 'r-1'],
    ] as const) {
      await write(lineage, residual);
      await warm.integrate(notices.splice(0));
    }
    const head = deployment.head;
    if (!head) throw new Error('no deployment head');
    const lost = parseCheckpointBody(parseSignedNote(head.checkpoint).text);
    putBack(restored); // the legitimate restore, to one leaf
    const prepared = await prepareReAnchor({
      head: await deployment.readHead(),
      key: TEST_LOG_KEY,
      lost: { size: lost.size, rootHash: lost.rootHash },
      reason: 'restored from a backup',
      nowSeconds: Math.floor(NOW_MS / 1000),
      recovery: testRecoverySigner(),
    });
    if (!prepared) throw new Error('nothing to re-anchor');
    await integrator().reAnchor(prepared.note);
  } else {
    await write(A, 'r-1');
    await warm.integrate(notices.splice(0));
  }
  const rollbackTarget = snapshot(); // a head of 2 leaves
  await write(A, 'r-2');
  await integrator().integrate(notices.splice(0));
  await write(A, 'r-3');
  await integrator().integrate(notices.splice(0));
  const pin = deployment.head?.size ?? 0; // the operator pins the newest size (4)
  putBack(rollbackTarget); // the table writer
  await write(B, 'r-x');
  return integrator(pin)
    .integrate(notices.splice(0))
    .then(
      () => `integrated, head now ${deployment.head?.size}`,
      (error: Error) => `refused: ${error.message}`,
    );
}

describe("the operator's DEPLOYMENT_MIN_SIZE after a re-anchor", () => {
  it('refuses a put-back head below the pin in a log never re-anchored (control)', async () => {
    expect(await coldIntegrationAfterRollback(false)).toMatch(/^refused: .*may not extend fewer than 4/);
  });

  it('still refuses it in the re-anchored history: the re-anchor does not lift the pin', async () => {
    expect(await coldIntegrationAfterRollback(true)).toMatch(/^refused: .*may not extend fewer than 4/);
  });
});
