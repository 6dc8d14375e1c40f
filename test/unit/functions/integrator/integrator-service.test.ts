import type { TestContext } from 'vitest';
import { describe, expect, it, vi } from 'vitest';
import { rebuildIndexFromTable } from '../../../../functions/integrator/index-rebuild';
import type { IntegratorWitness } from '../../../../functions/integrator/witness-submission';
import { LogStateError, WitnessUnavailableError } from '../../../../shared/errors';
import { checkIndexPresence } from '../../../../shared/index/check-index';
import type { IndexEntry, LineageIndexValue } from '../../../../shared/index/index-entry';
import { proveIndexKey } from '../../../../shared/index/prove-index-key';
import { hashIndexNode } from '../../../../shared/index/read-index-node';
import { deploymentLeafHash } from '../../../../shared/integrator/deployment-leaf';
import { readHeldLineages } from '../../../../shared/integrator/read-held-lineages';
import { proveInclusion } from '../../../../shared/log/inclusion-proof';
import { claimedLogState, type StoredLogHead } from '../../../../shared/log/log-state';
import { nodeSourceOf } from '../../../../shared/log/node-source';
import { openCheckpoint } from '../../../../shared/log/verified-checkpoint';
import { verifyInclusion } from '../../../../shared/log/verify-inclusion';
import { checkPolicy } from '../../../../shared/witness/policy-check';
import { FakeMetrics } from '../../../helpers/factories';
import { expectGuarantee } from '../../../helpers/guarantees';
import { FACTORY_LINEAGE_ID } from '../../../helpers/guard-factories';
import { markerKey } from '../../../helpers/in-memory-lineage-store';
import { INTEGRATION_NOW_MS, inProcessIntegration } from '../../../helpers/in-process-integration';
import { inProcessWitness } from '../../../helpers/in-process-witness';
import { TEST_LOG_KEY, TEST_LOG_NAME } from '../../../helpers/pipeline-keys';
import { testLineageId } from '../../../helpers/writer-factories';

const [A, B, C] = [FACTORY_LINEAGE_ID, testLineageId('lin-b'), testLineageId('lin-c')];
const NOW_MS = INTEGRATION_NOW_MS;

/** The real sealer on in-memory stores ({@link inProcessIntegration}), and the current integrator over the same table. */
async function stack(witness: IntegratorWitness | null = null, options: { signLineageCheckpoints?: boolean } = {}) {
  const table = inProcessIntegration({ sealer: options });
  const { store, deployment, index, notices } = table;
  const metrics = new FakeMetrics();
  const integratorWith = (minSize?: number) => table.integrator({ witness, metrics, minSize });
  let integrator = integratorWith();
  /** Integrates every notice sent since the last call. */
  const integrate = () => integrator.integrate(notices.splice(0));
  const indexRoot = () => Buffer.from(deployment.head?.indexRoot ?? '', 'hex');
  const held = async (lineageId: string): Promise<LineageIndexValue | null> =>
    (await readHeldLineages(index, indexRoot(), [lineageId])).get(lineageId) ?? null;
  /** An integrator with no memory of what it signed (a cold start), with the operator's minimum size. */
  const coldIntegrator = (minSize?: number) => {
    integrator = integratorWith(minSize);
  };
  return {
    store,
    deployment,
    index,
    metrics,
    notices,
    write: table.write,
    integrate,
    indexRoot,
    held,
    /** A sealer with no memory of what it signed (a cold start). */
    coldSealer: table.coldSealer,
    coldIntegrator,
    sealerSigner: table.sealerDeps.signer,
    /** The MAC key the sealer MACs heads with and the integrator verifies them with. */
    macAnchor: table.sealerDeps.anchor,
  };
}

const row = (attack: string, expected: string) =>
  ({ section: 'tampering', target: 'lineage (whole)', attack, reader: 'integrator', expected }) as const;

describe('integrator service over the real sealer, in process (docs/deployment-log.md, "Integration")', () => {
  it('three lineages sealed by the sealer: one signed deployment checkpoint whose index proves every head and residual id', async () => {
    const s = await stack();
    for (const id of ['r-0', 'r-1']) for (const lineage of [A, B, C]) await s.write(lineage, id);
    expect(s.notices).toHaveLength(6);
    const report = await s.integrate();
    expect(report.evidence).toEqual([]);
    expect([...report.integrated].sort()).toEqual([A, B, C].sort());
    const checkpoint = openCheckpoint(report.checkpoint ?? '', TEST_LOG_KEY, TEST_LOG_NAME);
    expect(checkpoint.size).toBe(1);
    expect(report.published).toBe(report.checkpoint);
    expect(s.deployment.head?.published).toBe(report.checkpoint);
    const root = s.indexRoot();
    expect(
      verifyInclusion({
        leafIndex: 0,
        treeSize: 1,
        leafHash: deploymentLeafHash(root),
        proof: [],
        rootHash: checkpoint.rootHash,
      }),
    ).toBe(true);
    for (const lineageId of [A, B, C]) {
      // The head item's tree (MAC'd by the sealer) is what the index commits to.
      const stored = await s.store.logHead(lineageId);
      const lineageCheckpoint = claimedLogState(stored as StoredLogHead, lineageId);
      const proven = await proveIndexKey(s.index, root, { kind: 'lineage', lineageId });
      expect(proven.kind).toBe('presence');
      const entry = (proven as { entry: IndexEntry }).entry;
      expect(checkIndexPresence(root, entry, proven.proof)).toBeNull();
      expect(entry.value).toMatchObject({
        treeSize: 2,
        rootHash: Buffer.from(lineageCheckpoint.rootHash).toString('hex'),
      });
      const residual = await proveIndexKey(s.index, root, { kind: 'residual', lineageId, residualId: 'r-1' });
      expect(residual.kind === 'presence' && residual.entry.value).toMatchObject({ seq: 1 });
    }
  });

  it('a second integration is the next leaf; a notice-free lineage is untouched and nothing changed signs nothing', async () => {
    const s = await stack();
    await s.write(A, 'r-0');
    await s.write(B, 'r-0');
    await s.integrate();
    await s.write(A, 'r-1');
    const second = await s.integrate();
    expect(second.integrated).toEqual([A]);
    expect(openCheckpoint(second.checkpoint ?? '', TEST_LOG_KEY, TEST_LOG_NAME).size).toBe(2);
    const leaf = await proveInclusion(
      1,
      2,
      nodeSourceOf((refs) => s.deployment.readNodes(refs)),
    );
    expect(
      verifyInclusion({
        leafIndex: 1,
        treeSize: 2,
        leafHash: deploymentLeafHash(s.indexRoot()),
        proof: leaf,
        rootHash: openCheckpoint(second.checkpoint ?? '', TEST_LOG_KEY, TEST_LOG_NAME).rootHash,
      }),
    ).toBe(true);
    expect((await s.held(B))?.treeSize).toBe(1);
    const idle = await s.integrate();
    expect(idle).toMatchObject({ checkpoint: null, published: null, integrated: [] });
    expect(s.deployment.appends).toBe(2);
  });

  it('the table writer rolls a lineage back to an earlier snapshot and a cold sealer seals on it: LINEAGE_ROLLBACK, never integrated', async (context: TestContext) => {
    const s = await stack();
    await s.write(A, 'r-0');
    await s.write(A, 'r-1');
    await s.integrate();
    const restore = s.store.lineageSnapshot(A);
    await s.write(A, 'r-2');
    await s.write(A, 'r-3');
    await s.write(B, 'r-0');
    await s.integrate();
    restore();
    s.coldSealer();
    await s.write(A, 'r-2b');
    await s.write(B, 'r-1');
    const report = await s.integrate();
    const observed = report.evidence.map((e) => `evidence ${e.kind}`).join(', ') || 'integrated';
    expectGuarantee(
      context,
      row(
        'restore head, records and checkpoint from an earlier snapshot; a cold sealer then seals one write',
        'evidence LINEAGE_ROLLBACK',
      ),
      observed,
    );
    expect(report.integrated).toEqual([B]);
    expect((await s.held(A))?.treeSize).toBe(4);
    expect(s.deployment.evidence.map((e) => e.evidence.kind)).toEqual(['LINEAGE_ROLLBACK']);
    expect(s.metrics.get('IntegrationEvidence')).toBe(1);
  });

  it('a rollback a cold sealer then extends past the indexed size: HEAD_INCONSISTENT (two histories), never integrated', async (context: TestContext) => {
    const s = await stack();
    await s.write(A, 'r-0');
    const restore = s.store.lineageSnapshot(A);
    await s.write(A, 'r-1');
    await s.write(A, 'r-2');
    await s.integrate();
    restore();
    s.coldSealer();
    for (const id of ['x-1', 'x-2', 'x-3']) await s.write(A, id);
    const report = await s.integrate();
    expectGuarantee(
      context,
      row(
        'restore an earlier snapshot; a cold sealer seals past the indexed size (a fork)',
        'evidence HEAD_INCONSISTENT',
      ),
      report.evidence.map((e) => `evidence ${e.kind}`).join(', ') || 'integrated',
    );
    expect(report.checkpoint).toBeNull();
    expect((await s.held(A))?.treeSize).toBe(3);
  });

  it('a deleted residual-id marker lets the sealer seal the id again: RESIDUAL_CHANGED once, the first sealing stays indexed and the lineage goes on', async (context: TestContext) => {
    const s = await stack();
    await s.write(A, 'r-0');
    await s.write(A, 'r-1');
    await s.integrate();
    s.store.markers.delete(markerKey(A, 'r-1'));
    await s.write(A, 'r-1');
    const report = await s.integrate();
    expectGuarantee(
      context,
      {
        ...row('delete the residual-id marker of r-1; the same write is sent again', 'evidence RESIDUAL_CHANGED'),
        target: 'residual-id marker',
      },
      report.evidence.map((e) => `evidence ${e.kind}`).join(', ') || 'integrated',
    );
    expect(report.evidence[0]).toMatchObject({ held: { seq: 1 }, offered: { seq: 2 } });
    const residual = await proveIndexKey(s.index, s.indexRoot(), { kind: 'residual', lineageId: A, residualId: 'r-1' });
    expect(residual.kind === 'presence' && residual.entry.value).toMatchObject({ seq: 1 });
    // The head still enters (it covers the second sealing), so the lineage's later writes integrate, with no new evidence.
    expect(report.integrated).toEqual([A]);
    expect((await s.held(A))?.treeSize).toBe(3);
    await s.write(A, 'r-3');
    const next = await s.integrate();
    expect(next).toMatchObject({ integrated: [A], evidence: [] });
    expect((await s.held(A))?.treeSize).toBe(4);
    expect(s.deployment.evidence.map((e) => e.evidence.kind)).toEqual(['RESIDUAL_CHANGED']);
  });

  it('a deployment head the table writer edited is never extended (the batch fails and is retried)', async () => {
    const s = await stack();
    await s.write(A, 'r-0');
    await s.integrate();
    const head = s.deployment.head;
    if (!head) throw new Error('no head');
    s.deployment.head = { ...head, indexRoot: 'ab'.repeat(32) };
    await s.write(A, 'r-1');
    await expect(s.integrate()).rejects.toThrow(/does not authenticate/);
    expect(s.deployment.appends).toBe(1);
  });

  it.each([
    ['an object', { 0: 'ab'.repeat(32) }],
    ['a number', 7],
    ['null', null],
  ])(
    'a head whose frontier the table writer replaced by %s fails as a log-state error, never a TypeError',
    async (_, frontier) => {
      const s = await stack();
      await s.write(A, 'r-0');
      await s.integrate();
      const head = s.deployment.head;
      if (!head) throw new Error('no head');
      s.deployment.head = { ...head, frontier: frontier as unknown as string[] };
      await s.write(A, 'r-1');
      await expect(s.integrate()).rejects.toThrow(LogStateError);
      expect(s.deployment.appends).toBe(1);
    },
  );
});

describe('a deleted index node, in process (docs/deployment-log.md, "Index rebuild")', () => {
  it('leaves out only the lineage whose path crosses it (INDEX_NODE_MISSING); the rebuild restores it and the lineage integrates again', async (context: TestContext) => {
    const s = await stack();
    for (const lineage of [A, B]) await s.write(lineage, 'r-0');
    await s.integrate();
    const value = await s.held(A);
    if (!value) throw new Error('A is not indexed');
    s.index.tamper(hashIndexNode({ kind: 'leaf', entry: { kind: 'lineage', lineageId: A, value } }).hash, undefined);
    await s.write(A, 'r-1');
    await s.write(B, 'r-1');
    const report = await s.integrate();
    expectGuarantee(
      context,
      {
        section: 'tampering',
        target: 'index node',
        attack: "delete the index node on one lineage's path; two lineages are integrated",
        reader: 'integrator',
        expected: 'evidence INDEX_NODE_MISSING, the other lineage integrated',
      },
      `${report.evidence.map((e) => `evidence ${e.kind}`).join(', ') || 'no evidence'}${report.integrated.includes(B) ? ', the other lineage integrated' : ''}`,
    );
    expect(report.integrated).toEqual([B]);
    expect(report.evidence).toMatchObject([{ kind: 'INDEX_NODE_MISSING', lineageId: A }]);

    const deps = { lineages: s.store, deployment: s.deployment, index: s.index, key: TEST_LOG_KEY };
    // Without every lineage the re-derived root differs: nothing is written.
    const writes = s.index.writes;
    const partial = await rebuildIndexFromTable(deps, [B]);
    expect(partial.result?.kind).toBe('MISMATCH');
    expect(s.index.writes).toBe(writes);
    // Lineage A's table is ahead of the index (r-1 is not integrated): the rebuild finds the indexed size.
    const rebuilt = await rebuildIndexFromTable(deps, [A, B]);
    expect(rebuilt.result).toMatchObject({ kind: 'REBUILT', tilesWritten: 1 });
    expect(rebuilt.result?.kind === 'REBUILT' && Object.fromEntries(rebuilt.result.sizes)).toEqual({ [A]: 1, [B]: 2 });
    expect((await rebuildIndexFromTable(deps, [A, B])).result?.kind).toBe('INTACT');
    expect(await s.held(A)).toEqual(value);

    await s.write(A, 'r-2');
    const next = await s.integrate();
    expect(next).toMatchObject({ integrated: [A], evidence: [] });
    expect((await s.held(A))?.treeSize).toBe(3);
  });
});

describe('integrator and witness, in process (docs/deployment-log.md, "Integration", step 6)', () => {
  async function witnessed(clientOf?: (real: IntegratorWitness['client']) => IntegratorWitness['client']) {
    const { client, policy } = await inProcessWitness({ clock: () => NOW_MS });
    const real = { addCheckpoint: client.addCheckpoint };
    return { policy, s: await stack({ client: clientOf?.(real) ?? real, policy, maxAgeSeconds: 180 }) };
  }

  it('publishes each checkpoint with its cosignature once the quorum is met, from the size the witness holds', async () => {
    const { policy, s } = await witnessed();
    await s.write(A, 'r-0');
    const first = await s.integrate();
    await s.write(B, 'r-0');
    const second = await s.integrate();
    for (const report of [first, second]) {
      expect(report.witnessStatus).toBe(200);
      const check = checkPolicy({
        note: report.published ?? '',
        policy,
        maxAgeSeconds: 180,
        nowSeconds: NOW_MS / 1000,
      });
      expect(check.kind).toBe('ACCEPTED');
    }
    expect(s.deployment.head?.published).toBe(second.published);
  });

  it('a witness that refuses or cannot be reached: the checkpoint is committed but nothing new is published (fail closed)', async (context: TestContext) => {
    for (const [failing, status] of [
      [async () => ({ status: 409, body: '9\n' }), 409],
      [async () => Promise.reject(new Error('connect ECONNREFUSED')), 'UNREACHABLE'],
    ] as const) {
      // The witness answers the cold start's check, then fails.
      let calls = 0;
      const { s } = await witnessed((real) => ({
        addCheckpoint: (body) => (calls++ === 0 ? real.addCheckpoint(body) : failing()),
      }));
      await s.write(A, 'r-0');
      const report = await s.integrate();
      expectGuarantee(
        context,
        {
          section: 'faults',
          target: 'witness',
          attack: status === 409 ? 'refuses (409)' : 'unreachable',
          reader: 'integrator',
          expected: 'not published',
        },
        report.published === null && (s.deployment.head?.published ?? null) === null ? 'not published' : 'published',
      );
      expect(report.witnessStatus).toBe(status);
      expect(s.deployment.appends).toBe(1);
    }
  });

  it("a head item's published note the table writer replaced is not carried forward", async () => {
    let refuse = false;
    const { s } = await witnessed((real) => ({
      addCheckpoint: (body) => (refuse ? Promise.resolve({ status: 422, body: 'no\n' }) : real.addCheckpoint(body)),
    }));
    await s.write(A, 'r-0');
    const first = await s.integrate();
    expect(s.deployment.head?.published).toBe(first.published);
    const head = s.deployment.head;
    if (!head) throw new Error('no head');
    // A checkpoint of a larger size, validly shaped but never signed by the log key.
    s.deployment.head = { ...head, published: head.checkpoint.replace(`\n1\n`, '\n9\n') };
    refuse = true;
    await s.write(B, 'r-0');
    const second = await s.integrate();
    expect(second.published).toBeNull();
    expect(s.deployment.head?.size).toBe(2);
    expect(s.deployment.head?.published).toBeNull();
  });

  /** Three integrations, then the table writer restores the deployment head of size 1 and deletes the leaves above it. */
  async function rolledBack(s: Awaited<ReturnType<typeof stack>>) {
    await s.write(A, 'r-0');
    await s.integrate();
    const old = structuredClone(s.deployment.head);
    await s.write(B, 'r-0');
    await s.integrate();
    await s.write(C, 'r-0');
    await s.integrate();
    expect(s.deployment.head?.size).toBe(3);
    s.deployment.head = old;
    for (const i of [1, 2]) s.deployment.leaves.delete(i);
    s.coldIntegrator();
    await s.write(A, 'r-1');
  }

  it('a cold integrator given an older signed deployment head asks the witness first: DEPLOYMENT_ROLLBACK, nothing signed', async (context: TestContext) => {
    const { s } = await witnessed();
    await rolledBack(s);
    const attempt = s.integrate();
    await expect(attempt).rejects.toThrow(LogStateError);
    const failed = await attempt.catch((error: Error) => error.message);
    expectGuarantee(
      context,
      {
        section: 'tampering',
        target: 'deployment head',
        attack: 'restore an older signed deployment head and delete the leaves above it; the integrator starts cold',
        reader: 'integrator',
        expected: 'evidence DEPLOYMENT_ROLLBACK',
      },
      s.deployment.evidence.map((e) => `evidence ${e.evidence.kind}`).join(', ') || `signed (${failed})`,
    );
    expect(failed).toMatch(/fewer than 3/);
    expect(s.deployment.evidence[0]?.evidence).toMatchObject({ lineageId: TEST_LOG_NAME });
    expect(s.deployment.appends).toBe(3);
    expect(s.deployment.head?.size).toBe(1);
    // The batch's retries on the same instance fail again, without a second evidence item.
    await expect(s.integrate()).rejects.toThrow(LogStateError);
    expect(s.deployment.evidence).toHaveLength(1);
  });

  it('a cold integrator whose witness cannot be reached signs nothing until it answers (fail closed)', async () => {
    let reachable = true;
    const { s } = await witnessed((real) => ({
      addCheckpoint: (body) => (reachable ? real.addCheckpoint(body) : Promise.reject(new Error('ECONNREFUSED'))),
    }));
    await s.write(A, 'r-0');
    await s.integrate();
    s.coldIntegrator();
    reachable = false;
    await s.write(A, 'r-1');
    await expect(s.integrate()).rejects.toThrow(WitnessUnavailableError);
    expect(s.deployment.appends).toBe(1);
    reachable = true;
    await s.write(B, 'r-0');
    expect((await s.integrate()).integrated).toEqual([B]);
  });
});

describe('a cold integrator without a witness (docs/deployment-log.md, "Cold start")', () => {
  it("refuses a deployment head below the operator's minimum size: DEPLOYMENT_ROLLBACK, nothing signed", async (context: TestContext) => {
    const s = await stack();
    await s.write(A, 'r-0');
    await s.integrate();
    const old = structuredClone(s.deployment.head);
    await s.write(B, 'r-0');
    await s.integrate();
    s.deployment.head = old;
    s.deployment.leaves.delete(1);
    s.coldIntegrator(2);
    await s.write(C, 'r-0');
    await expect(s.integrate()).rejects.toThrow(/fewer than 2/);
    expectGuarantee(
      context,
      {
        section: 'tampering',
        target: 'deployment head',
        attack:
          'restore an older signed deployment head and delete the leaves above it; the integrator starts cold, no witness, DEPLOYMENT_MIN_SIZE set',
        reader: 'integrator',
        expected: 'evidence DEPLOYMENT_ROLLBACK',
      },
      s.deployment.evidence.map((e) => `evidence ${e.evidence.kind}`).join(', ') || 'signed',
    );
    expect(s.deployment.appends).toBe(2);
  });

  it('extends a head at or above the minimum, and refuses a minimum that is not a whole number', async () => {
    const s = await stack();
    await s.write(A, 'r-0');
    await s.integrate();
    s.coldIntegrator(1);
    await s.write(B, 'r-0');
    expect((await s.integrate()).integrated).toEqual([B]);
    expect(() => s.coldIntegrator(-1)).toThrow(/whole number/);
    expect(() => s.coldIntegrator(1.5)).toThrow(/whole number/);
  });
});

describe('integrator over a sealer that signs no lineage checkpoint (docs/deployment-log.md, "What changes for the sealer")', () => {
  it('heads authenticated by their head-state MAC integrate; the sealer makes no Sign; the integrator one per integration', async () => {
    const s = await stack(null, { signLineageCheckpoints: false });
    const sign = vi.spyOn(s.sealerSigner, 'sign');
    for (const lineageId of [A, B]) {
      await s.write(lineageId, 'r-0');
      await s.write(lineageId, 'r-1');
    }
    const report = await s.integrate();
    expect([...report.integrated].sort()).toEqual([A, B].sort());
    expect(report.evidence).toEqual([]);
    expect(sign).not.toHaveBeenCalled();
    for (const lineageId of [A, B]) {
      const stored = (await s.store.logHead(lineageId)) as StoredLogHead;
      expect(stored.checkpoint).toBeNull();
      expect((await s.held(lineageId))?.treeSize).toBe(2);
    }
  });

  it('a head whose frontier the table writer edited (its MAC no longer covers it) is HEAD_UNAUTHENTICATED, never integrated', async () => {
    const s = await stack(null, { signLineageCheckpoints: false });
    await s.write(A, 'r-0');
    await s.write(A, 'r-1');
    s.store.setLogHead(A, (log) => ({ ...log, frontier: ['ab'.repeat(32)] }));
    const report = await s.integrate();
    expect(report.integrated).toEqual([]);
    expect(report.evidence.map((e) => e.kind)).toEqual(['HEAD_UNAUTHENTICATED']);
  });

  it('a rollback within the integration interval, then a cold sealer: caught by the integrator, the rolled-back writes never indexed', async () => {
    const s = await stack(null, { signLineageCheckpoints: false });
    await s.write(A, 'r-0');
    await s.integrate();
    const restore = s.store.lineageSnapshot(A);
    await s.write(A, 'r-1');
    await s.write(A, 'r-2');
    restore();
    s.coldSealer();
    await s.write(A, 'r-1b');
    const report = await s.integrate();
    expect(report.integrated).toEqual([]);
    expect(report.evidence.map((e) => e.kind)).toContain('NOTICE_MISMATCH');
    expect((await s.held(A))?.treeSize).toBe(1);
  });

  it('a rollback within the interval, the same seqs sealed again and integrated, then the first seal\'s notice late: NOTICE_MISMATCH recorded (docs/deployment-log.md, "Integration", step 3)', async (context: TestContext) => {
    const s = await stack(null, { signLineageCheckpoints: false });
    await s.write(A, 'r-0');
    await s.integrate();
    const restore = s.store.lineageSnapshot(A);
    await s.write(A, 'r-1');
    await s.write(A, 'r-2');
    const late = s.notices.splice(0); // SQS delivers these after the next batch (late, or redelivered)
    restore();
    s.coldSealer();
    for (const id of ['r-1b', 'r-2b', 'r-3b']) await s.write(A, id);
    const onTime = await s.integrate();
    expect(onTime.evidence).toEqual([]);
    expect((await s.held(A))?.treeSize).toBe(4);
    s.notices.push(...late);
    const report = await s.integrate();
    expectGuarantee(
      context,
      row(
        "restore a snapshot within the integration interval; a cold sealer seals the same seqs again, integrated before the first seal's notice arrives",
        'evidence NOTICE_MISMATCH',
      ),
      report.evidence.map((e) => `evidence ${e.kind}`).join(', ') || 'integrated',
    );
    expect(report.checkpoint).toBeNull();
    expect(s.deployment.evidence.map((e) => e.evidence.kind)).toEqual(['NOTICE_MISMATCH']);
    expect((await s.held(A))?.treeSize).toBe(4);
  });

  it('a notice delivered again after its run is integrated changes nothing and raises no evidence; a hidden tree node makes it NOTICE_MISMATCH', async () => {
    const s = await stack(null, { signLineageCheckpoints: false });
    await s.write(A, 'r-0');
    await s.write(A, 'r-1');
    const first = [...s.notices];
    await s.integrate();
    await s.write(A, 'r-2');
    s.notices.push(...first);
    const report = await s.integrate();
    expect(report.evidence).toEqual([]);
    expect(report.integrated).toEqual([A]);
    s.notices.push(...first);
    const again = await s.integrate();
    expect(again.evidence).toEqual([]);
    expect(again.unchanged).toEqual([A]);
    expect(again.checkpoint).toBeNull();
    // Every stored node of A's tree hidden: the late notice's seqs are not proven, so not taken as integrated.
    s.store.nodes.set(A, new Map());
    s.notices.push(...first);
    const hidden = await s.integrate();
    expect(hidden.evidence.map((e) => e.kind)).toEqual(['NOTICE_MISMATCH']);
  });
});

describe('a head a notice of the batch names needs no VerifyMac (docs/deployment-log.md, "Integration", step 2)', () => {
  /** A stack whose sealer MACs heads and signs no lineage checkpoint, and the integrator's `VerifyMac` calls from now on. */
  async function macStack() {
    const s = await stack(null, { signLineageCheckpoints: false });
    return { ...s, verifyMacCalls: () => vi.mocked(s.macAnchor.verifyMac).mock.calls.length };
  }
  const spyOnVerifyMac = (s: Awaited<ReturnType<typeof macStack>>) => vi.spyOn(s.macAnchor, 'verifyMac');

  it('heads exactly as their notices name them: integrated with no VerifyMac', async () => {
    const s = await macStack();
    for (const lineageId of [A, B]) {
      await s.write(lineageId, 'r-0');
      await s.write(lineageId, 'r-1');
    }
    spyOnVerifyMac(s);
    const report = await s.integrate();
    expect(report.evidence).toEqual([]);
    expect([...report.integrated].sort()).toEqual([A, B].sort());
    expect(s.verifyMacCalls()).toBe(0);
    expect((await s.held(A))?.treeSize).toBe(2);
  });

  it("a head moved past its lineage's notices (the later notice lost): taken by its head-key MAC, no VerifyMac, integrated; a named head beside it needs none", async () => {
    const s = await macStack();
    await s.write(A, 'r-0');
    await s.write(B, 'r-0');
    await s.write(A, 'r-1');
    // A's second notice is lost (or comes in a later batch): A's head is size 2, its notice names size 1.
    const batch = s.notices.splice(0).filter((n) => !(n.lineageId === A && n.head.treeSize === 2));
    s.notices.push(...batch);
    spyOnVerifyMac(s);
    const moved = await s.integrate();
    expect(moved.evidence).toEqual([]);
    expect([...moved.integrated].sort()).toEqual([A, B].sort());
    expect((await s.held(A))?.treeSize).toBe(2);
    expect(s.verifyMacCalls()).toBe(0);
  });

  it("a head item a table writer edited to state a notice's head record but with a frontier that does not hash to its root: HEAD_UNAUTHENTICATED through the head-key MAC (no VerifyMac), never integrated", async () => {
    const s = await macStack();
    await s.write(A, 'r-0');
    await s.write(A, 'r-1');
    const notice = s.notices.at(-1);
    s.store.setLogHead(A, (log) => ({ ...log, frontier: ['ab'.repeat(32)] }));
    const stored = (await s.store.logHead(A)) as StoredLogHead;
    // The head item still states the notice's seq, record hash and epoch; only its root differs.
    expect(stored.head).toMatchObject({
      seq: 1,
      recordHash: notice?.head.headRecordHash,
      generationEpoch: notice?.head.generationEpoch,
    });
    expect(Buffer.from(claimedLogState(stored, A).rootHash).toString('hex')).not.toBe(notice?.head.rootHash);
    spyOnVerifyMac(s);
    const report = await s.integrate();
    expect(report.integrated).toEqual([]);
    expect(report.evidence.map((e) => e.kind)).toEqual(['HEAD_UNAUTHENTICATED']);
    expect(s.verifyMacCalls()).toBe(0);
    expect(report.checkpoint).toBeNull();
  });

  it('a head item whose frontier does not fit its size is refused before any notice or MAC is looked at', async () => {
    const s = await macStack();
    await s.write(A, 'r-0');
    await s.write(A, 'r-1');
    s.store.setLogHead(A, (log) => ({ ...log, frontier: [] }));
    spyOnVerifyMac(s);
    const report = await s.integrate();
    expect(report.evidence.map((e) => e.kind)).toEqual(['HEAD_UNAUTHENTICATED']);
    expect(s.verifyMacCalls()).toBe(0);
  });

  it('a head rewound to an older genuine state that an older notice of the same batch names: NOTICE_MISMATCH, as through the MAC', async () => {
    const s = await macStack();
    await s.write(A, 'r-0');
    const restore = s.store.lineageSnapshot(A);
    await s.write(A, 'r-1');
    await s.write(B, 'r-0');
    restore();
    spyOnVerifyMac(s);
    const report = await s.integrate();
    expect(report.integrated).toEqual([B]);
    expect(report.evidence.map((e) => `${e.kind} ${e.lineageId}`)).toEqual([`NOTICE_MISMATCH ${A}`]);
    // The rewound head is the state the first notice names: taken without a MAC, refused by the second.
    expect(s.verifyMacCalls()).toBe(0);
    expect(await s.held(A)).toBeNull();
  });
});
