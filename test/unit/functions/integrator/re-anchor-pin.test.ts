import { describe, expect, it } from 'vitest';
import { prepareReAnchor } from '../../../../scripts/re-anchor';
import { parseCheckpointBody } from '../../../../shared/log/checkpoint';
import { parseSignedNote } from '../../../../shared/log/signed-note';
import { FACTORY_LINEAGE_ID } from '../../../helpers/guard-factories';
import { INTEGRATION_NOW_MS } from '../../../helpers/in-process-integration';
import { TEST_LOG_KEY } from '../../../helpers/pipeline-keys';
import { testRecoverySigner } from '../../../helpers/re-anchor-factories';
import { recoveryStack } from '../../../helpers/recovery-stack';
import { testLineageId } from '../../../helpers/writer-factories';

// docs/deployment-log.md, "Re-anchor": the operator's DEPLOYMENT_MIN_SIZE applies in the
// re-anchored history too. A re-anchor must not lift it, else a table writer who puts back an
// early head of the new history (and deletes the leaves above it) gets it extended and signed by a
// cold integrator: a fork of the log, with nothing but the pin to stop it on an unwitnessed stack.
const [A, B] = [FACTORY_LINEAGE_ID, testLineageId('lin-b')];

/** Writes, optionally a restore and a re-anchor, four leaves, the operator's pin, then a rollback. */
async function coldIntegrationAfterRollback(reAnchored: boolean): Promise<string> {
  const { deployment, notices, write, integrator } = await recoveryStack({ unwitnessed: true });
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
      nowSeconds: Math.floor(INTEGRATION_NOW_MS / 1000),
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
  return integrator({ minSize: pin })
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
