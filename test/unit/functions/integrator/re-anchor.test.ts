import type { TestContext } from 'vitest';
import { describe, expect, it, vi } from 'vitest';
import { buildChainReceipt } from '../../../../client/chain-receipts';
import { IntegratorService } from '../../../../functions/integrator/integrator-service';
import { LogStateError, ReAnchorRefusedError } from '../../../../shared/errors';
import { verifyChainReceipt } from '../../../../shared/integrator/chain-receipt';
import type { SealedRunNotice } from '../../../../shared/integrator/sealed-run-notice';
import { parsePolicy } from '../../../../shared/witness/tlog-policy';
import { FakeMetrics, fakeLogger } from '../../../helpers/factories';
import { expectGuarantee } from '../../../helpers/guarantees';
import { FACTORY_LINEAGE_ID } from '../../../helpers/guard-factories';
import { INTEGRATION_NOW_MS } from '../../../helpers/in-process-integration';
import { TEST_LOG_NAME, testLogSigner } from '../../../helpers/pipeline-keys';
import { testRecoveryKey, testRecoverySigner } from '../../../helpers/re-anchor-factories';
import { RECOVERY_REASON, recoveryStack } from '../../../helpers/recovery-stack';
import { testAnchor } from '../../../helpers/seal-factories';
import { testLineageId } from '../../../helpers/writer-factories';

// The operator's recovery after a legitimate restore (docs/deployment-log.md, "Re-anchor"), in
// process ({@link recoveryStack}): a restore of the whole table to an earlier snapshot, the
// refusal, the re-anchor, integration resuming, and a cold client shown the statement.
const [A, B] = [FACTORY_LINEAGE_ID, testLineageId('lin-b')];
const NOW_MS = INTEGRATION_NOW_MS;
const REASON = RECOVERY_REASON;

/** Writes, snapshot at 1 leaf, more writes to 3 leaves (the witness cosigned 3), restore: the state an operator recovers. */
async function restored(options?: Parameters<typeof recoveryStack>[0] & { warmSealer?: boolean }) {
  const s = await recoveryStack(options);
  const warm = s.integrator();
  await s.write(A, 'r-0');
  await s.write(A, 'r-1');
  await warm.integrate(s.notices.splice(0));
  const restore = s.snapshot();
  await s.write(A, 'r-2');
  await warm.integrate(s.notices.splice(0));
  await s.write(B, 'r-0');
  await warm.integrate(s.notices.splice(0));
  const keptOld = s.deployment.head?.published ?? '';
  expect((await s.witnessStore.read(TEST_LOG_NAME))?.size).toBe(3);
  restore({ warmSealer: options?.warmSealer ?? false });
  if (options?.warmSealer) return { ...s, warm, keptOld, batch: [] as SealedRunNotice[] };
  await s.write(A, 'r-2b');
  const batch = s.notices.splice(0);
  return { ...s, warm, keptOld, batch };
}

describe('re-anchor after a legitimate restore, in process (docs/deployment-log.md, "Re-anchor")', () => {
  it('the restored log is refused (DEPLOYMENT_ROLLBACK); the operator re-anchors; integration resumes; a cold client is shown the statement', async (context: TestContext) => {
    const s = await restored();
    const cold = s.integrator();
    await expect(cold.integrate(s.batch)).rejects.toBeInstanceOf(LogStateError);
    expect(s.deployment.evidence.map((e) => e.evidence.kind)).toEqual(['DEPLOYMENT_ROLLBACK']);

    const report = await cold.reAnchor(await s.statement());
    expect(report).toMatchObject({ size: 2, witnessStatus: 200 });
    expect(report.reAnchor).toMatchObject({ restoredSize: 1, lostSize: 3, lostLeaves: 2, reason: REASON });
    expect((await s.witnessStore.read(TEST_LOG_NAME))?.size).toBe(2);

    // The redelivered batch integrates (the instance that re-anchored), then a cold one and a warm
    // one from before the restore both go on in the new history.
    const resumed = await cold.integrate(s.batch);
    expect(resumed).toMatchObject({ integrated: [A], evidence: [], witnessStatus: 200 });
    await s.write(B, 'r-0b');
    expect((await s.integrator().integrate(s.notices.splice(0))).witnessStatus).toBe(200);
    await s.write(B, 'r-1b');
    expect((await s.warm.integrate(s.notices.splice(0))).witnessStatus).toBe(200);
    expect(s.deployment.head?.size).toBe(5);

    const chain = await s.reader.read({ lineageId: A, residualId: 'r-2b' });
    expect(chain.kind).toBe('PROVEN');
    const notice = chain.kind === 'PROVEN' ? chain.reAnchor : null;
    expectGuarantee(
      context,
      {
        section: 'tampering',
        target: 'deployment log',
        attack:
          'none: the table restored from backup (the witness had cosigned 3, the table holds 1); the operator re-anchors',
        reader: 'DeploymentChainReader (cold)',
        expected: 'PROVEN, re-anchored at 1, lost 2 leaves up to 3, with the reason',
      },
      notice
        ? `${chain.kind}, re-anchored at ${notice.restoredSize}, lost ${notice.lostLeaves} leaves up to ${notice.lostSize}, with the reason`
        : `${chain.kind}, no re-anchor shown`,
    );
    expect(notice?.reason).toBe(REASON);
  });

  it('a warm integrator from before the restore keeps a frontier of the lost history: not used (the index holds another root at its size), proven from the table, then warm again', async () => {
    const s = await restored();
    const cold = s.integrator();
    await expect(cold.integrate(s.batch)).rejects.toBeInstanceOf(LogStateError);
    await cold.reAnchor(await s.statement());
    expect(await cold.integrate(s.batch)).toMatchObject({ integrated: [A], evidence: [] });
    const readNodes = vi.spyOn(s.store, 'readNodes');
    await s.write(A, 'r-3b');
    expect(await s.warm.integrate(s.notices.splice(0))).toMatchObject({ integrated: [A], evidence: [] });
    expect(readNodes).toHaveBeenCalled();
    readNodes.mockClear();
    await s.write(A, 'r-4b');
    expect(await s.warm.integrate(s.notices.splice(0))).toMatchObject({ integrated: [A], evidence: [] });
    expect(readNodes).not.toHaveBeenCalled();
  });

  it('a client keeping a checkpoint of the old history is told the re-anchor explains it; a prefix of the old history is consistent', async () => {
    const s = await restored();
    const cold = s.integrator();
    await expect(cold.integrate(s.batch)).rejects.toBeInstanceOf(LogStateError);
    const restoredHead = s.deployment.head?.published ?? '';
    await cold.reAnchor(await s.statement());
    expect(await s.reader.compareKept(s.keptOld)).toMatchObject({
      kind: 'EXPLAINED_BY_RE_ANCHOR',
      reAnchor: { lostSize: 3 },
    });
    expect(await s.reader.compareKept(restoredHead)).toMatchObject({ kind: 'CONSISTENT' });
  });

  it('a statement dated after the witnesses cosigned the checkpoint carrying it (within the integrator\'s 5 s) is refused by the kept comparison ("What clients see")', async () => {
    const s = await restored();
    const cold = s.integrator();
    await expect(cold.integrate(s.batch)).rejects.toBeInstanceOf(LogStateError);
    // 3 s ahead of the integrator's and the witness's clock: the integrator takes it, the client does not.
    expect((await cold.reAnchor(await s.statement(undefined, { aheadSeconds: 3 }))).witnessStatus).toBe(200);
    const found = await s.reader.compareKept(s.keptOld);
    expect(found).toMatchObject({ kind: 'REFUSED', refusal: 'RE_ANCHOR_INVALID' });
    expect('reason' in found ? found.reason : '').toMatch(
      /the re-anchor statement is dated \d+, 3 s after the policy's witnesses had cosigned the deployment checkpoint that carries it/,
    );
  });

  it('a client keeping a checkpoint of the re-anchored history inside the lost range, the table then put back to an older head of it: NOT_NEWEST, never explained by the statement ("What clients see")', async (context: TestContext) => {
    const s = await recoveryStack();
    const warm = s.integrator();
    await s.write(A, 'r-0');
    await warm.integrate(s.notices.splice(0));
    const backup = s.snapshot();
    for (const residual of ['r-1', 'r-2', 'r-3', 'r-4']) {
      await s.write(A, residual);
      await warm.integrate(s.notices.splice(0));
    }
    const keptOld = s.deployment.head?.published ?? '';
    backup();
    await s.write(A, 'r-1b');
    const batch = s.notices.splice(0);
    const cold = s.integrator();
    await expect(cold.integrate(batch)).rejects.toBeInstanceOf(LogStateError);
    expect((await cold.reAnchor(await s.statement())).reAnchor).toMatchObject({ restoredSize: 1, lostSize: 5 });
    const reAnchored = s.snapshot();
    await cold.integrate(batch);
    await s.write(B, 'r-0');
    await cold.integrate(s.notices.splice(0));
    const keptNew = s.deployment.head?.published ?? '';
    expect(s.deployment.head?.size).toBe(4);
    // The table writer puts back the re-anchored head of 2 leaves: 4 lies inside the statement's lost range (1, 5].
    reAnchored({ warmSealer: true });
    const found = await s.reader.compareKept(keptNew);
    expectGuarantee(
      context,
      {
        section: 'tampering',
        target: 'deployment log',
        attack:
          "put back an older head of a re-anchored log under a checkpoint the client kept of that history, inside the statement's lost range",
        reader: 'DeploymentChainReader.compareKept',
        expected: 'NOT_NEWEST',
      },
      found.kind,
    );
    // A checkpoint of the history the restore lost is still explained: its cosignature predates the statement.
    expect((await s.reader.compareKept(keptOld)).kind).toBe('EXPLAINED_BY_RE_ANCHOR');
  });

  it('a client keeping a checkpoint from before two re-anchors is explained by the chain of statements; a link deleted or forged is a FORK ("A chain of re-anchors")', async (context: TestContext) => {
    const s = await recoveryStack();
    const warm = s.integrator();
    await s.write(A, 'r-0');
    await warm.integrate(s.notices.splice(0));
    const backup0 = s.snapshot();
    await s.write(A, 'r-1');
    await warm.integrate(s.notices.splice(0));
    await s.write(A, 'r-2');
    await warm.integrate(s.notices.splice(0));
    const keptH0 = s.deployment.head?.published ?? '';
    // Restore 1: the table back at 1 leaf, the witness at 3; re-anchor A (restored 1, lost 3).
    backup0();
    await s.write(A, 'r-1b');
    const firstBatch = s.notices.splice(0);
    const first = s.integrator();
    await expect(first.integrate(firstBatch)).rejects.toBeInstanceOf(LogStateError);
    const statementA = (await first.reAnchor(await s.statement())).reAnchor;
    await first.integrate(firstBatch);
    expect(s.deployment.head?.size).toBe(3);
    const backup1 = s.snapshot();
    await s.write(A, 'r-2b');
    await first.integrate(s.notices.splice(0));
    const keptH1 = s.deployment.head?.published ?? '';
    // Restore 2: the table back at 3 leaves of the re-anchored history, the witness at 4; re-anchor B.
    backup1();
    await s.write(A, 'r-2c');
    const secondBatch = s.notices.splice(0);
    const second = s.integrator();
    await expect(second.integrate(secondBatch)).rejects.toBeInstanceOf(LogStateError);
    const statementB = (await second.reAnchor(await s.statement())).reAnchor;
    expect(statementB).toMatchObject({ restoredSize: 3, lostSize: 4 });
    await second.integrate(secondBatch);
    await s.write(B, 'r-0');
    await s.integrator().integrate(s.notices.splice(0));
    expect(s.deployment.head?.size).toBe(6);
    expect(s.deployment.head?.reAnchorChain).toEqual([statementA.note]);

    const kept = await s.reader.compareKept(keptH0);
    expectGuarantee(
      context,
      {
        section: 'tampering',
        target: 'deployment log',
        attack:
          'none: a client kept a checkpoint of the history before two successive re-anchors (restore, re-anchor, restore, re-anchor)',
        reader: 'DeploymentChainReader.compareKept',
        expected: 'EXPLAINED_BY_RE_ANCHOR through 2 statements',
      },
      kept.kind === 'EXPLAINED_BY_RE_ANCHOR' ? `${kept.kind} through ${kept.chain.length} statements` : kept.kind,
    );
    expect(kept).toMatchObject({ reAnchor: { statementHash: statementA.statementHash, lostSize: 3 } });
    // A checkpoint of the middle history, lost by the second restore: explained by the current statement alone.
    expect(await s.reader.compareKept(keptH1)).toMatchObject({
      kind: 'EXPLAINED_BY_RE_ANCHOR',
      reAnchor: { statementHash: statementB.statementHash },
      chain: [{ statementHash: statementB.statementHash }],
    });
    // The table writer deletes the earlier statement, or puts a note the log did not sign in its place: a FORK.
    const head = s.deployment.head;
    if (!head) throw new Error('no head');
    const operatorOnly = statementA.note.split('\n').slice(0, -2).join('\n').concat('\n');
    for (const [attack, reAnchorChain] of [
      ['delete the earlier re-anchor statement from the head item of a twice re-anchored log', null],
      ['replace the earlier re-anchor statement with one the log key did not sign', [operatorOnly]],
    ] as const) {
      s.deployment.head = { ...head, reAnchorChain };
      const found = await s.reader.compareKept(keptH0);
      expectGuarantee(
        context,
        {
          section: 'tampering',
          target: 'deployment log',
          attack,
          reader: 'DeploymentChainReader.compareKept',
          expected: 'FORK',
        },
        found.kind,
      );
    }
    s.deployment.head = head;
    // The next integration carries the chain forward.
    await s.write(B, 'r-1');
    await s.integrator().integrate(s.notices.splice(0));
    expect(s.deployment.head?.reAnchorChain).toEqual([statementA.note]);
    expect((await s.reader.compareKept(keptH0)).kind).toBe('EXPLAINED_BY_RE_ANCHOR');
  });

  it('a format-2 receipt of the re-anchored history carries the statement and verifies; without it, or with another, it is refused', async (context: TestContext) => {
    const s = await restored();
    const cold = s.integrator();
    await expect(cold.integrate(s.batch)).rejects.toBeInstanceOf(LogStateError);
    await cold.reAnchor(await s.statement());
    await cold.integrate(s.batch);
    const policy = parsePolicy(s.policyText);
    const nowSeconds = Math.floor(NOW_MS / 1000);
    const receipt = await buildChainReceipt({ store: s.store, reader: s.reader, nowMs: () => NOW_MS }, A, 2);
    expect(receipt.deployment.reAnchor).toBe(s.deployment.head?.reAnchor);
    const verified = verifyChainReceipt(receipt, { policy, nowSeconds, maxAgeSeconds: 180 });
    expectGuarantee(
      context,
      {
        section: 'tampering',
        target: 'receipt',
        attack: 'none: a format-2 receipt of a record integrated after the operator re-anchored the deployment log',
        reader: 'verifyChainReceipt (offline)',
        expected: 'VERIFIED_INTACT, re-anchored at 1, with the reason',
      },
      verified.deployment?.reAnchor
        ? `${verified.verdict}, re-anchored at ${verified.deployment.reAnchor.restoredSize}${verified.deployment.reAnchor.reason === REASON ? ', with the reason' : ''}`
        : `${verified.verdict} (${verified.refusal}), no re-anchor shown`,
    );
    const { reAnchor: _shown, ...hidden } = receipt.deployment;
    expect(
      verifyChainReceipt({ ...receipt, deployment: hidden }, { policy, nowSeconds, maxAgeSeconds: 180 }),
    ).toMatchObject({
      verdict: 'UNVERIFIED_TAMPER_RISK',
      refusal: 'LEAF_NOT_LAST',
    });
    // The statement edited under its signatures (another reason): not the log's.
    const edited = (receipt.deployment.reAnchor ?? '').replace('operator error', 'operator errand');
    const forged = { ...receipt, deployment: { ...receipt.deployment, reAnchor: edited } };
    expect(verifyChainReceipt(forged, { policy, nowSeconds, maxAgeSeconds: 180 })).toMatchObject({
      verdict: 'UNVERIFIED_TAMPER_RISK',
      refusal: 'RE_ANCHOR_INVALID',
    });
  });

  it('the table writer hides the statement: the chain is refused and the integrator stops, never a silent PROVEN', async (context: TestContext) => {
    const s = await restored();
    const cold = s.integrator();
    await expect(cold.integrate(s.batch)).rejects.toBeInstanceOf(LogStateError);
    await cold.reAnchor(await s.statement());
    await cold.integrate(s.batch);
    if (s.deployment.head) s.deployment.head = { ...s.deployment.head, reAnchor: null };
    const chain = await s.reader.read({ lineageId: A });
    expectGuarantee(
      context,
      {
        section: 'tampering',
        target: 'deployment log',
        attack: 'delete the re-anchor statement from the head item of a re-anchored log',
        reader: 'DeploymentChainReader (cold)',
        expected: 'REFUSED LEAF_NOT_LAST',
      },
      chain.kind === 'REFUSED' ? `REFUSED ${chain.refusal}` : chain.kind,
    );
    // The integrator (and the sealer, whose index floor reads the same head) stops: the head no longer authenticates.
    await expect(s.integrator().integrate(s.batch)).rejects.toBeInstanceOf(LogStateError);
  });

  it('a statement not signed by a configured recovery key is refused by the integrator, and one the witness does not know by the witness: nothing stored', async (context: TestContext) => {
    const s = await restored();
    const stranger = testRecoverySigner(new Uint8Array(32).fill(0x77));
    const cold = s.integrator();
    const head = structuredClone(s.deployment.head);
    const refused = await cold.reAnchor(await s.statement(stranger)).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ReAnchorRefusedError);
    expectGuarantee(
      context,
      {
        section: 'tampering',
        target: 'deployment log',
        attack: 're-anchor statement signed by a key that is not a configured recovery key',
        reader: 'integrator',
        expected: 'refused, nothing signed or stored',
      },
      refused instanceof ReAnchorRefusedError && JSON.stringify(s.deployment.head) === JSON.stringify(head)
        ? 'refused, nothing signed or stored'
        : 'accepted',
    );

    const w = await restored({ witnessRecoveryKeys: [await testRecoveryKey(new Uint8Array(32).fill(0x78))] });
    const byWitness = await w
      .integrator()
      .reAnchor(await w.statement())
      .catch((e: unknown) => e);
    expect(byWitness).toBeInstanceOf(ReAnchorRefusedError);
    expect((byWitness as Error).message).toMatch(/witness answered 403/);
    expect(w.deployment.head?.size).toBe(1);
    expect((await w.witnessStore.read(TEST_LOG_NAME))?.size).toBe(3);
  });

  it('a statement dated further ahead of the integrator\'s clock than the tolerated skew is refused before anything is signed or stored ("The statement")', async () => {
    const s = await restored();
    const head = structuredClone(s.deployment.head);
    const ahead = await s.statement(undefined, { aheadSeconds: 6 });
    const refused = await s
      .integrator()
      .reAnchor(ahead)
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ReAnchorRefusedError);
    expect((refused as Error).message).toMatch(/lies 6 s after now/);
    expect(s.deployment.head).toEqual(head);
    expect((await s.witnessStore.read(TEST_LOG_NAME))?.size).toBe(3);
    // Within the skew, the operator's statement is taken.
    const report = await s.integrator().reAnchor(await s.statement(undefined, { aheadSeconds: 5 }));
    expect(report).toMatchObject({ size: 2, witnessStatus: 200 });
  });

  it('a statement made for another head, or replayed after the re-anchor, is refused', async () => {
    const s = await restored();
    const cold = s.integrator();
    const note = await s.statement();
    await cold.reAnchor(note);
    await expect(s.integrator().reAnchor(note)).rejects.toBeInstanceOf(ReAnchorRefusedError);
    expect(s.deployment.head?.size).toBe(2);
  });

  it('a sealer warm from before the restore reads the index of the new history once the log is re-anchored', async () => {
    const s = await recoveryStack();
    const C = testLineageId('lin-c');
    const other = s.otherSealer(); // seals C, so the warm sealer holds no tip of C, only the index it read
    const integrator = s.integrator();
    await s.write(C, 'r-0', other);
    await s.write(A, 'r-0');
    await integrator.integrate(s.notices.splice(0));
    const restore = s.snapshot();
    await s.write(C, 'r-1', other);
    await integrator.integrate(s.notices.splice(0));
    await s.write(C, 'r-2', other);
    await integrator.integrate(s.notices.splice(0));
    await s.write(A, 'r-1'); // the warm sealer reads the deployment head of 3 leaves
    await integrator.integrate(s.notices.splice(0));
    restore({ warmSealer: true });
    const cold = s.integrator();
    await cold.reAnchor(await s.statement());
    // Without the history change, the warm sealer keeps the old history's larger index (C at 3
    // records, head of 3 leaves > the re-anchored 2) and refuses C's restored head of 1 as behind it.
    await s.write(C, 'r-1b');
    expect((await cold.integrate(s.notices.splice(0))).integrated).toEqual([C]);
  });

  it('without recovery keys no re-anchor is possible', async () => {
    const s = await restored();
    const none = new IntegratorService({
      lineages: s.store,
      deployment: s.deployment,
      index: s.index,
      signer: testLogSigner(),
      anchor: testAnchor(),
      witness: null,
      metrics: new FakeMetrics(),
      logger: fakeLogger(),
      clock: () => NOW_MS,
    });
    await expect(none.reAnchor(await s.statement())).rejects.toThrow(/no recovery key/);
  });
});
