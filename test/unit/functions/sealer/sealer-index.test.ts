import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { describe, expect, it, vi } from 'vitest';
import { IntegratorService } from '../../../../functions/integrator/integrator-service';
import { createSealerHandler } from '../../../../functions/sealer/create-handler';
import { MAX_UNINTEGRATED_SEARCH } from '../../../../functions/sealer/seal-run';
import { SealerIndex, type SealerIndexDeps } from '../../../../functions/sealer/sealer-index';
import { type SealerDeps, SealerService } from '../../../../functions/sealer/sealer-service';
import type { LineagePolicy } from '../../../../shared/authorship/lineage-policy';
import { IntegrationBacklogError } from '../../../../shared/errors';
import { evaluateWrite } from '../../../../shared/guard/evaluate-write';
import { MemoryIndexNodeStore } from '../../../../shared/index/memory-index-node-store';
import { proveIndexKey } from '../../../../shared/index/prove-index-key';
import type { SealedRunNotice } from '../../../../shared/integrator/sealed-run-notice';
import { formatVerifierKey } from '../../../../shared/log/note-key';
import type { IndexNodeStore, IndexTile } from '../../../../shared/ports/index-node-store';
import type { NoteSigner } from '../../../../shared/ports/note-signer';
import { formatCosignerKey } from '../../../../shared/witness/cosigner-key';
import { parsePolicy } from '../../../../shared/witness/tlog-policy';
import type { ResidualWriteRequest } from '../../../../shared/write/write-request';
import {
  FakeMetrics,
  fakeLogger,
  lambdaContext,
  sealRequestBody,
  sqsEvent,
  sqsRecord,
} from '../../../helpers/factories';
import { FACTORY_NOW_MS, guardPolicy, validWriteRequest } from '../../../helpers/guard-factories';
import { InMemoryDeploymentLogStore } from '../../../helpers/in-memory-deployment-log-store';
import { type InMemoryLineageStore, markerKey } from '../../../helpers/in-memory-lineage-store';
import { TEST_LOG_KEY, testLogSigner } from '../../../helpers/pipeline-keys';
import { testAnchor } from '../../../helpers/seal-factories';
import { testSealerDeps } from '../../../helpers/service-factories';
import { testCosignerKey } from '../../../helpers/witness-factories';
import { signWriteSync, TEST_POLICY, TEST_WRITER, testLineageId, testWriter } from '../../../helpers/writer-factories';

const NOW_MS = FACTORY_NOW_MS + 2000;
const SECOND_WRITER = testWriter('test-writer-2', 0x40);

/** An {@link IndexNodeStore} that counts its `getTiles` calls (one `BatchGetItem` each in DynamoDB). */
class CountingNodes implements IndexNodeStore {
  calls = 0;
  /** Every tile root asked for, hex, in order. */
  readonly asked: string[] = [];
  constructor(readonly inner: MemoryIndexNodeStore) {}
  get tileLevels(): number {
    return this.inner.tileLevels;
  }
  getTiles(roots: readonly Uint8Array[]): Promise<(Uint8Array | undefined)[]> {
    this.calls += 1;
    for (const root of roots) this.asked.push(Buffer.from(root).toString('hex'));
    return this.inner.getTiles(roots);
  }
  putTiles(tiles: readonly IndexTile[]): Promise<void> {
    return this.inner.putTiles(tiles);
  }
}

/** A signer that counts its `Sign` calls. */
function countingSigner(): NoteSigner & { signs: number } {
  const inner = testLogSigner();
  const signer = {
    keyName: inner.keyName,
    signs: 0,
    publicKey: () => inner.publicKey(),
    sign: (message: Uint8Array) => {
      signer.signs += 1;
      return inner.sign(message);
    },
  };
  return signer;
}

/**
 * The real sealer and integrator on in-memory stores: the sealer checks each run against the
 * index the integrator writes (or does not, with `index: false`), its notices collected.
 */
function stack(options: { index?: boolean; witness?: SealerIndexDeps['witness']; deps?: Partial<SealerDeps> } = {}) {
  const notices: SealedRunNotice[] = [];
  const signer = countingSigner();
  const metrics = new FakeMetrics();
  const deployment = new InMemoryDeploymentLogStore();
  const memory = new MemoryIndexNodeStore();
  const nodes = new CountingNodes(memory);
  const deps: SealerDeps = {
    ...testSealerDeps(),
    signer,
    metrics,
    notifier: {
      notify: async (sent: readonly SealedRunNotice[]) => {
        notices.push(...sent);
        return [];
      },
    },
    index: options.index === false ? null : { deployment, nodes, witness: options.witness ?? null },
    ...options.deps,
  };
  const store = deps.store as InMemoryLineageStore;
  let sealer = new SealerService(deps);
  const integrator = new IntegratorService({
    lineages: store,
    deployment,
    index: memory,
    signer: testLogSigner(),
    anchor: testAnchor(),
    witness: null,
    metrics: new FakeMetrics(),
    logger: fakeLogger(),
    clock: () => NOW_MS,
  });
  let n = 0;
  const send = (fields: Partial<ResidualWriteRequest>, by = TEST_WRITER) => {
    const signed =
      by === TEST_WRITER ? {} : { writer: signWriteSync(validWriteRequest(fields), by, FACTORY_NOW_MS).writer };
    return sealer.handle({
      messageId: `m-${++n}`,
      body: sealRequestBody({ ...fields, ...signed }),
      sentAtMs: FACTORY_NOW_MS + n,
    });
  };
  /** One message group of writes (one run per 40 of them). */
  const sendRun = (writes: readonly Partial<ResidualWriteRequest>[]) =>
    sealer.handleGroup(
      writes.map((fields) => ({
        messageId: `m-${++n}`,
        body: sealRequestBody(fields),
        sentAtMs: FACTORY_NOW_MS + n,
      })),
    );
  return {
    store,
    deployment,
    memory,
    nodes,
    signer,
    metrics,
    send,
    sendRun,
    /** Messages as given (their bodies built by the test). */
    handleGroup: (messages: Parameters<SealerService['handleGroup']>[0]) => sealer.handleGroup(messages),
    /** The Lambda handler around the current sealer (one invocation per event). */
    handler: () => {
      const logger = new Logger({ serviceName: 'reseal-sealer-test', logLevel: 'SILENT' });
      const lambdaMetrics = new Metrics({ namespace: 'Reseal', serviceName: 'reseal-sealer-test' });
      vi.spyOn(lambdaMetrics, 'publishStoredMetrics').mockReturnValue(lambdaMetrics);
      return createSealerHandler(sealer, logger, lambdaMetrics);
    },
    integrate: () => integrator.integrate(notices.splice(0)),
    /** A sealer with no memory (a cold start), optionally under the operator's `DEPLOYMENT_MIN_SIZE`. */
    cold: (minSize?: number) => {
      sealer = new SealerService(
        minSize === undefined || !deps.index ? deps : { ...deps, index: { ...deps.index, minSize } },
      );
    },
  };
}

describe('the sealer checks each run against the deployment index (docs/sealing.md, "The index floor")', () => {
  it('a whole-lineage rollback after integration: a cold sealer refuses LINEAGE_BEHIND_INDEX, unsigned, and seals nothing', async () => {
    const s = stack();
    const lineageId = testLineageId('lin-floor-rb');
    for (const id of ['r-0', 'r-1']) expect((await s.send({ lineageId, residualId: id })).kind).toBe('SEALED');
    const restore = s.store.lineageSnapshot(lineageId);
    for (const id of ['r-2', 'r-3']) expect((await s.send({ lineageId, residualId: id })).kind).toBe('SEALED');
    expect((await s.integrate()).integrated).toEqual([lineageId]);
    restore();
    s.cold();
    const signsBefore = s.signer.signs;
    const outcome = await s.send({ lineageId, residualId: 'r-2b' });
    expect(outcome).toEqual({ kind: 'REJECTED', reason: 'LINEAGE_BEHIND_INDEX' });
    expect(s.signer.signs).toBe(signsBefore);
    const rejection = s.store.rejections.at(-1);
    expect(rejection).toMatchObject({ reason: 'LINEAGE_BEHIND_INDEX', residualId: 'r-2b', statement: null });
    expect(rejection?.issues[0]?.message).toMatch(/size 2 .*size 4/);
    expect(s.store.records.get(lineageId)?.size).toBe(2);
    expect(s.metrics.get('SealBehindIndex:kind=LINEAGE_ROLLBACK')).toBe(1);
  });

  it('a deleted deployment head below the operator floor: a cold sealer refuses INDEX_UNVERIFIABLE; with no floor it forks', async () => {
    for (const minSize of [1, 0]) {
      const s = stack();
      const lineageId = testLineageId(`lin-floor-nohead-${minSize}`);
      for (const id of ['r-0', 'r-1']) expect((await s.send({ lineageId, residualId: id })).kind).toBe('SEALED');
      const restore = s.store.lineageSnapshot(lineageId);
      for (const id of ['r-2', 'r-3']) expect((await s.send({ lineageId, residualId: id })).kind).toBe('SEALED');
      expect((await s.integrate()).integrated).toEqual([lineageId]);
      restore();
      // The operator pinned the size it saw (1 leaf); the table writer deletes the deployment head.
      s.deployment.head = null;
      s.cold(minSize);
      const outcome = await s.send({ lineageId, residualId: 'r-2b' });
      if (minSize === 1) {
        expect(outcome).toEqual({ kind: 'REJECTED', reason: 'INDEX_UNVERIFIABLE' });
        expect(s.store.rejections.at(-1)?.issues[0]?.message).toMatch(/below the operator's floor of 1/);
        expect(s.store.records.get(lineageId)?.size).toBe(2);
      } else {
        // The documented gap: with no floor a deleted head reads as "nothing integrated".
        expect(outcome.kind).toBe('SEALED');
      }
    }
  });

  it('without the index check, the same rollback is sealed on the older state (what the check prevents)', async () => {
    const s = stack({ index: false });
    const lineageId = testLineageId('lin-floor-none');
    for (const id of ['r-0', 'r-1']) await s.send({ lineageId, residualId: id });
    const restore = s.store.lineageSnapshot(lineageId);
    for (const id of ['r-2', 'r-3']) await s.send({ lineageId, residualId: id });
    await s.integrate();
    restore();
    s.cold();
    expect((await s.send({ lineageId, residualId: 'r-2b' })).kind).toBe('SEALED');
  });

  it('a lineage never integrated is extended as before, and a lineage at or past its indexed head too', async () => {
    const s = stack();
    const lineageId = testLineageId('lin-floor-ok');
    expect((await s.send({ lineageId, residualId: 'r-0' })).kind).toBe('SEALED');
    await s.integrate();
    s.cold();
    expect((await s.send({ lineageId, residualId: 'r-1' })).kind).toBe('SEALED');
    expect((await s.send({ lineageId, residualId: 'r-2' })).kind).toBe('SEALED');
    expect(s.metrics.get('SealBehindIndex')).toBe(0);
  });

  it('pipeline.md "Independent calls of one run": the index floor is read while the head read is in flight, and still decides the run', async () => {
    const s = stack();
    const lineageId = testLineageId('lin-floor-overlap');
    expect((await s.send({ lineageId, residualId: 'r-0' })).kind).toBe('SEALED');
    await s.integrate();
    // The head read yields to the event loop a few times and notes whether the deployment head was
    // asked for meanwhile: read one after the other, it never is (no timing involved).
    let headReads = 0;
    let overlapped = false;
    const readHead = s.deployment.readHead.bind(s.deployment);
    s.deployment.readHead = async () => {
      headReads++;
      return readHead();
    };
    const logHead = s.store.logHead.bind(s.store);
    s.store.logHead = async (id) => {
      const before = headReads;
      for (let tick = 0; tick < 20 && headReads === before; tick++) await new Promise((r) => setImmediate(r));
      overlapped ||= headReads > before;
      return logHead(id);
    };
    expect((await s.send({ lineageId, residualId: 'r-1' })).kind).toBe('SEALED');
    expect(overlapped).toBe(true);
    // The floor read together with the head still refuses a rolled-back lineage.
    const restore = s.store.lineageSnapshot(lineageId);
    expect((await s.send({ lineageId, residualId: 'r-2' })).kind).toBe('SEALED');
    await s.integrate();
    restore();
    s.cold();
    expect(await s.send({ lineageId, residualId: 'r-3' })).toMatchObject({
      kind: 'REJECTED',
      reason: 'LINEAGE_BEHIND_INDEX',
    });
  });

  it('a rollback past a revocation: the revoked key is refused, never admitted on the older policy', async () => {
    const s = stack();
    const both: LineagePolicy = {
      ...TEST_POLICY,
      writers: [...TEST_POLICY.writers, { keyId: SECOND_WRITER.keyId, publicKey: SECOND_WRITER.publicKey }],
    };
    const lineageId = testLineageId('lin-floor-rev', both);
    expect((await s.send({ lineageId, residualId: 'r-0', policy: both })).kind).toBe('SEALED');
    expect((await s.send({ lineageId, residualId: 'r-1', policy: both }, SECOND_WRITER)).kind).toBe('SEALED');
    const restore = s.store.lineageSnapshot(lineageId);
    // The owner revokes the second key; its next write is refused.
    expect((await s.send({ lineageId, residualId: 'r-2', policy: TEST_POLICY })).kind).toBe('SEALED');
    expect(await s.send({ lineageId, residualId: 'r-3', policy: both }, SECOND_WRITER)).toEqual({
      kind: 'REJECTED',
      reason: 'WRITER_NOT_ADMITTED',
    });
    await s.integrate();
    restore();
    s.cold();
    expect(await s.send({ lineageId, residualId: 'r-3b', policy: both }, SECOND_WRITER)).toEqual({
      kind: 'REJECTED',
      reason: 'LINEAGE_BEHIND_INDEX',
    });
    expect(s.store.records.get(lineageId)?.size).toBe(2);
  });

  it('a deleted marker and a resend of an integrated residual id: the duplicate answer, never a second record', async () => {
    const s = stack();
    const lineageId = testLineageId('lin-floor-marker');
    for (const id of ['r-0', 'r-1']) expect((await s.send({ lineageId, residualId: id })).kind).toBe('SEALED');
    await s.integrate();
    s.store.markers.delete(markerKey(lineageId, 'r-0'));
    s.cold();
    expect(await s.send({ lineageId, residualId: 'r-0' })).toMatchObject({ kind: 'DUPLICATE', head: { seq: 0 } });
    expect(await s.send({ lineageId, residualId: 'r-0', payload: { other: 'content' } })).toEqual({
      kind: 'REJECTED',
      reason: 'RESIDUAL_ID_REUSED',
    });
    expect(s.store.records.get(lineageId)?.size).toBe(2);
    // The record deleted too: still never sealed again.
    const logHead = structuredClone(s.store.logHeads.get(lineageId));
    s.store.records.get(lineageId)?.delete(0);
    expect(await s.send({ lineageId, residualId: 'r-0' })).toEqual({ kind: 'REJECTED', reason: 'RESIDUAL_ID_REUSED' });
    expect(s.store.rejections.at(-1)?.issues[0]?.message).toContain('deployment index');
    expect(s.store.logHeads.get(lineageId)).toEqual(logHead);
  });

  it('a deleted marker and a replay of a residual id sealed past the indexed head: that record answers, never a second record', async () => {
    const s = stack();
    const lineageId = testLineageId('lin-floor-past');
    expect((await s.send({ lineageId, residualId: 'r-0' })).kind).toBe('SEALED');
    await s.integrate();
    for (const id of ['r-1', 'r-2']) expect((await s.send({ lineageId, residualId: id })).kind).toBe('SEALED');
    s.store.markers.delete(markerKey(lineageId, 'r-1'));
    s.cold();
    expect(await s.send({ lineageId, residualId: 'r-1' })).toMatchObject({ kind: 'DUPLICATE', head: { seq: 1 } });
    expect(await s.send({ lineageId, residualId: 'r-1', payload: { other: 'content' } })).toEqual({
      kind: 'REJECTED',
      reason: 'RESIDUAL_ID_REUSED',
    });
    expect(s.store.records.get(lineageId)?.size).toBe(3);
    // Never integrated at all: the whole lineage is past the index, and searched the same way.
    const fresh = testLineageId('lin-floor-past-new');
    expect((await s.send({ lineageId: fresh, residualId: 'r-0' })).kind).toBe('SEALED');
    s.store.markers.delete(markerKey(fresh, 'r-0'));
    expect(await s.send({ lineageId: fresh, residualId: 'r-0' })).toMatchObject({
      kind: 'DUPLICATE',
      head: { seq: 0 },
    });
    expect(s.store.records.get(fresh)?.size).toBe(1);
  });

  it('a record past the indexed head edited to hide a residual id: LINEAGE_INCONSISTENT, nothing sealed', async () => {
    const s = stack();
    const lineageId = testLineageId('lin-floor-past-edit');
    for (const id of ['r-0', 'r-1']) expect((await s.send({ lineageId, residualId: id })).kind).toBe('SEALED');
    s.store.markers.delete(markerKey(lineageId, 'r-1'));
    const chain = s.store.records.get(lineageId) as Map<number, string>;
    const record = JSON.parse(chain.get(1) as string);
    record.header.residualId = 'r-hidden';
    chain.set(1, JSON.stringify(record));
    expect(await s.send({ lineageId, residualId: 'r-1' })).toEqual({
      kind: 'CONFLICT',
      reason: 'LINEAGE_INCONSISTENT',
    });
    expect(s.store.records.get(lineageId)?.size).toBe(2);
  });

  // docs/sealing.md, "The index floor", residual ids: the search is bounded by the writes' signing
  // time, not by how many records the integrator has not caught up with.
  it('300 records past the indexed head: the next write seals, and a replay of one of them with its marker deleted is answered, never sealed again', async () => {
    const s = stack();
    const lineageId = testLineageId('lin-floor-backlog');
    const run = Array.from({ length: 40 }, (_, i) => i);
    for (let batch = 0; batch * 40 < 300; batch++) {
      const outcomes = await s.sendRun(run.map((i) => ({ lineageId, residualId: `r-${batch * 40 + i}` })));
      expect(outcomes.every((o) => o.kind === 'SEALED')).toBe(true);
    }
    await s.integrate();
    for (let batch = 0; batch * 40 < 300; batch++) {
      await s.sendRun(run.map((i) => ({ lineageId, residualId: `p-${batch * 40 + i}` })));
    }
    const sealed = s.store.records.get(lineageId)?.size ?? 0;
    expect(sealed).toBe(640);
    expect((await s.send({ lineageId, residualId: 'r-next' })).kind).toBe('SEALED');
    // The oldest record past the index, 300 records back: its marker deleted, the write replayed.
    s.store.markers.delete(markerKey(lineageId, 'p-0'));
    s.cold();
    expect(await s.send({ lineageId, residualId: 'p-0' })).toMatchObject({ kind: 'DUPLICATE', head: { seq: 320 } });
    expect(s.store.records.get(lineageId)?.size).toBe(sealed + 1);
    expect(s.metrics.get('SealBehindIndex:kind=INTEGRATION_BACKLOG')).toBe(0);
  });

  it('more records sealed since the writes were signed than the search reads (MAX_UNINTEGRATED_SEARCH, here 50): refused retryably, counted, nothing sealed', async () => {
    expect(MAX_UNINTEGRATED_SEARCH).toBeGreaterThanOrEqual(1000);
    const s = stack({ deps: { maxUnintegratedSearch: 50 } });
    const lineageId = testLineageId('lin-floor-burst');
    for (let batch = 0; batch < 2; batch++) {
      await s.sendRun(Array.from({ length: 40 }, (_, i) => ({ lineageId, residualId: `r-${batch * 40 + i}` })));
    }
    const sealed = s.store.records.get(lineageId)?.size ?? 0;
    expect(sealed).toBe(80);
    await expect(s.send({ lineageId, residualId: 'r-next' })).rejects.toThrow(IntegrationBacklogError);
    expect(s.metrics.get('SealBehindIndex:kind=INTEGRATION_BACKLOG')).toBe(1);
    expect(s.store.records.get(lineageId)?.size).toBe(sealed);
    // Once integrated, the same write is sealed.
    await s.integrate();
    expect((await s.send({ lineageId, residualId: 'r-next' })).kind).toBe('SEALED');
  });

  it('records past the indexed head sealed long before the writes were signed are not read: the newest page, down to the first older record', async () => {
    const later = FACTORY_NOW_MS + 2 * 3_600_000;
    let nowMs = NOW_MS;
    const s = stack({ deps: { clock: () => nowMs } });
    const lineageId = testLineageId('lin-floor-window');
    for (let batch = 0; batch < 6; batch++) {
      await s.sendRun(Array.from({ length: 40 }, (_, i) => ({ lineageId, residualId: `r-${batch * 40 + i}` })));
    }
    // Two hours later: writes signed and accepted then, the 240 records still past the indexed head.
    nowMs = later + 1000;
    let n = 0;
    const at = (residualId: string) => {
      const request = validWriteRequest({ lineageId, residualId }, { nowMs: later });
      const verdict = evaluateWrite(request, guardPolicy({ nowMs: later }));
      return {
        messageId: `late-${++n}`,
        body: JSON.stringify({ formatVersion: 1, request, verdict, acceptedAtMs: later }),
        sentAtMs: later + n,
      };
    };
    const readChain = s.store.readChain.bind(s.store);
    const reads: number[] = [];
    s.store.readChain = async (id, from, to) => {
      reads.push(to - from + 1);
      return readChain(id, from, to);
    };
    expect((await s.handleGroup([at('n-0')]))[0]?.kind).toBe('SEALED');
    // The roll-forward's read past the head (41 keys, none there), then one page of the newest
    // records (100), not the 240 past the index.
    expect(reads).toEqual([41, 100]);
    // Sealed within the window since: a replay with its marker deleted is found, never sealed again.
    s.store.markers.delete(markerKey(lineageId, 'n-0'));
    s.cold();
    const replay = (await s.handleGroup([at('n-0')]))[0];
    expect(replay).toMatchObject({ kind: 'DUPLICATE', head: { seq: 240 } });
    expect(s.store.records.get(lineageId)?.size).toBe(241);
  });

  it('docs/sealing.md "The roll-forward": records with no head item in a lineage the index holds are a deleted head, never rolled forward from genesis: LINEAGE_INCONSISTENT', async () => {
    const s = stack();
    const lineageId = testLineageId('lin-floor-headless');
    for (const residualId of ['r-0', 'r-1']) await s.send({ lineageId, residualId });
    await s.integrate();
    s.store.deleteHead(lineageId);
    s.cold();
    expect(await s.send({ lineageId, residualId: 'r-next' })).toEqual({
      kind: 'CONFLICT',
      reason: 'LINEAGE_INCONSISTENT',
    });
    expect(s.store.conflicts.at(-1)?.detail).toContain('no head item, and the deployment index holds the lineage');
    expect(await s.store.head(lineageId)).toBeNull();
    expect(s.store.records.get(lineageId)?.size).toBe(2);
  });

  it('an index node deleted or edited: INDEX_UNVERIFIABLE, unsigned, nothing sealed', async () => {
    const s = stack();
    const lineageId = testLineageId('lin-floor-node');
    await s.send({ lineageId, residualId: 'r-0' });
    await s.integrate();
    const root = Buffer.from(s.deployment.head?.indexRoot ?? '', 'hex');
    s.memory.tamper(root, undefined);
    const signsBefore = s.signer.signs;
    expect(await s.send({ lineageId, residualId: 'r-1' })).toEqual({ kind: 'REJECTED', reason: 'INDEX_UNVERIFIABLE' });
    expect(s.signer.signs).toBe(signsBefore);
    expect(s.store.rejections.at(-1)).toMatchObject({ reason: 'INDEX_UNVERIFIABLE', statement: null });
    expect(s.store.records.get(lineageId)?.size).toBe(1);
  });

  it('a deployment head that does not authenticate: INDEX_UNVERIFIABLE', async () => {
    const s = stack();
    const lineageId = testLineageId('lin-floor-head');
    await s.send({ lineageId, residualId: 'r-0' });
    await s.integrate();
    const head = s.deployment.head;
    if (!head) throw new Error('no deployment head');
    s.deployment.head = { ...head, indexRoot: '00'.repeat(32) };
    expect(await s.send({ lineageId, residualId: 'r-1' })).toEqual({ kind: 'REJECTED', reason: 'INDEX_UNVERIFIABLE' });
  });

  it('a warm sealer keeps the newest index it read: a deployment head put back to an older one lowers no floor', async () => {
    const s = stack();
    const [a, b] = [testLineageId('lin-floor-warm-a'), testLineageId('lin-floor-warm-b')];
    await s.send({ lineageId: a, residualId: 'r-0' });
    await s.integrate();
    const olderHead = structuredClone(s.deployment.head);
    const restore = s.store.lineageSnapshot(a);
    await s.send({ lineageId: a, residualId: 'r-1' });
    await s.send({ lineageId: a, residualId: 'r-2' });
    await s.integrate();
    // A sealer that never signed lineage a reads the newer deployment head on a run of lineage b.
    s.cold();
    expect((await s.send({ lineageId: b, residualId: 'r-0' })).kind).toBe('SEALED');
    s.deployment.head = olderHead;
    restore();
    expect(await s.send({ lineageId: a, residualId: 'r-1b' })).toEqual({
      kind: 'REJECTED',
      reason: 'LINEAGE_BEHIND_INDEX',
    });
    expect(s.metrics.get('IndexFloorUnfresh:refusal=ROLLED_BACK')).toBe(1);
  });

  it('with a witness policy, a published checkpoint that does not meet it is logged and counted, and the floor still holds', async () => {
    const policy = parsePolicy(
      `log ${formatVerifierKey(TEST_LOG_KEY)}\nwitness w1 ${formatCosignerKey(await testCosignerKey())}\nquorum w1\n`,
    );
    const s = stack({ witness: { policy, maxAgeSeconds: 180 } });
    const lineageId = testLineageId('lin-floor-witness');
    for (const id of ['r-0', 'r-1']) await s.send({ lineageId, residualId: id });
    const restore = s.store.lineageSnapshot(lineageId);
    await s.send({ lineageId, residualId: 'r-2' });
    await s.integrate();
    restore();
    s.cold();
    // The integrator here has no witness: its published note carries no cosignature.
    expect(await s.send({ lineageId, residualId: 'r-2b' })).toEqual({
      kind: 'REJECTED',
      reason: 'LINEAGE_BEHIND_INDEX',
    });
    expect(s.metrics.get('IndexFloorUnfresh:refusal=QUORUM_NOT_MET')).toBe(1);
  });

  it('cost: one index read per run, every key walked together, one getTiles call per level of tiles', async () => {
    const s = stack();
    const lineages = Array.from({ length: 40 }, (_, i) => testLineageId(`lin-floor-cost-${i}`));
    for (const lineageId of lineages) await s.send({ lineageId, residualId: 'r-0' });
    await s.integrate();
    const root = Buffer.from(s.deployment.head?.indexRoot ?? '', 'hex');
    const [lineageId] = lineages as [string];
    s.nodes.calls = 0;
    const before = s.memory.reads;
    expect((await s.send({ lineageId, residualId: 'r-1' })).kind).toBe('SEALED');
    const runReads = s.memory.reads - before;
    // The nodes each path reads alone, walked one at a time.
    const readsOf = async (key: Parameters<typeof proveIndexKey>[2]) => {
      const start = s.memory.reads;
      await proveIndexKey(s.memory, root, key);
      return s.memory.reads - start;
    };
    const paths = [
      await readsOf({ kind: 'lineage', lineageId }),
      await readsOf({ kind: 'residual', lineageId, residualId: 'r-1' }),
    ];
    // One getTiles call (one BatchGetItem) per tile of the deeper path, not one per tile read.
    expect(s.nodes.calls).toBe(Math.max(...paths));
    // Each tile read once: the root and any shared upper tile are read for both paths together.
    expect(runReads).toBeLessThan((paths[0] as number) + (paths[1] as number));
  });
});

describe('a run reads the records past its head beside its index floor (docs/pipeline.md, "Concurrency")', () => {
  it('the tile reads wait for the read of the records past the head, and the run seals: one round trip less than one after the other', async () => {
    const s = stack();
    const lineageId = testLineageId('lin-floor-beside');
    await s.send({ lineageId, residualId: 'r-0' });
    await s.integrate();
    let chainAsked: () => void = () => undefined;
    const asked = new Promise<void>((resolve) => (chainAsked = resolve));
    const readChain = s.store.readChain.bind(s.store);
    s.store.readChain = (id, fromSeq, toSeq) => {
      chainAsked();
      return readChain(id, fromSeq, toSeq);
    };
    const getTiles = s.nodes.getTiles.bind(s.nodes);
    s.nodes.getTiles = async (roots) => {
      // Read after the floor, the records would never be asked for while a tile read waits.
      await Promise.race([
        asked,
        new Promise((_, reject) =>
          setTimeout(() => reject(new Error('tiles read before the records past the head')), 2_000),
        ),
      ]);
      return getTiles(roots);
    };
    expect(await s.send({ lineageId, residualId: 'r-1' })).toMatchObject({ kind: 'SEALED', head: { seq: 1 } });
  });
});

describe('a warm sealer whose concurrent runs read the deployment head out of order (docs/sealing.md, "The index floor")', () => {
  it('an older head read before a newer one that came back first is no rollback: the newer index is used, nothing counted', async () => {
    const s = stack();
    const [a, b] = [testLineageId('lin-order-a'), testLineageId('lin-order-b')];
    await s.send({ lineageId: a, residualId: 'r-0' });
    await s.integrate();
    const older = structuredClone(s.deployment.head);
    await s.send({ lineageId: b, residualId: 'r-0' });
    await s.integrate();
    const newer = structuredClone(s.deployment.head);
    // The first run's read is issued first and answered last, with the head before the integration.
    let answerFirst: (head: typeof older) => void = () => undefined;
    const reads = [new Promise<typeof older>((resolve) => (answerFirst = resolve)), Promise.resolve(newer)];
    const metrics = new FakeMetrics();
    const index = new SealerIndex(
      { deployment: { readHead: () => reads.shift() ?? Promise.resolve(newer) }, nodes: s.memory, witness: null },
      { logger: fakeLogger(), metrics, clock: () => NOW_MS },
    );
    const first = index.floor(b, ['r-0'], TEST_LOG_KEY);
    const second = await index.floor(a, ['r-0'], TEST_LOG_KEY);
    answerFirst(older);
    expect(second).toMatchObject({ kind: 'FLOOR', deploymentSize: 2 });
    expect(await first).toMatchObject({ kind: 'FLOOR', deploymentSize: 2, lineage: { treeSize: 1 } });
    expect(metrics.get('IndexFloorUnfresh:refusal=ROLLED_BACK')).toBe(0);
    // A head read after the newer one was seen, and older than it, is still a rollback.
    reads.push(Promise.resolve(older));
    expect(await index.floor(a, ['r-1'], TEST_LOG_KEY)).toMatchObject({ kind: 'FLOOR', deploymentSize: 2 });
    expect(metrics.get('IndexFloorUnfresh:refusal=ROLLED_BACK')).toBe(1);
  });
});

describe('docs/pipeline.md "Concurrency": the runs of one sealer invocation share one deployment-head read', () => {
  it('a batch of 10 lineages: one readHead, each index tile read once, one getTiles per level; a rolled-back lineage among them is still refused', async () => {
    const s = stack();
    const lineages = Array.from({ length: 10 }, (_, i) => testLineageId(`lin-shared-head-${i}`));
    for (const lineageId of lineages) expect((await s.send({ lineageId, residualId: 'r-0' })).kind).toBe('SEALED');
    const rolled = lineages[3] as string;
    const restore = s.store.lineageSnapshot(rolled);
    expect((await s.send({ lineageId: rolled, residualId: 'r-1' })).kind).toBe('SEALED');
    await s.integrate();
    restore();
    s.cold();
    // The deployment head is answered only once every run has asked for its lineage head (the
    // event loop turned a bounded number of times, no timing): the runs wait on the read together.
    let headReads = 0;
    let logHeads = 0;
    const readHead = s.deployment.readHead.bind(s.deployment);
    s.deployment.readHead = async () => {
      headReads++;
      for (let tick = 0; tick < 100 && logHeads < lineages.length; tick++) await new Promise((r) => setImmediate(r));
      return readHead();
    };
    const logHead = s.store.logHead.bind(s.store);
    s.store.logHead = async (id) => {
      logHeads++;
      return logHead(id);
    };
    s.nodes.calls = 0;
    s.nodes.asked.length = 0;
    const records = lineages.map((lineageId) =>
      sqsRecord(sealRequestBody({ lineageId, residualId: 'r-2' }), lineageId),
    );
    const response = await s.handler()(sqsEvent(records), lambdaContext());
    expect(response.batchItemFailures).toEqual([]);
    expect(headReads).toBe(1);
    for (const lineageId of lineages) {
      const sealed = s.store.records.get(lineageId)?.size;
      expect(sealed).toBe(lineageId === rolled ? 1 : 2);
    }
    expect(s.store.rejections.at(-1)).toMatchObject({ reason: 'LINEAGE_BEHIND_INDEX', residualId: 'r-2' });
    expect(s.metrics.get('SealBehindIndex:kind=LINEAGE_ROLLBACK')).toBe(1);
    // Each tile once for the whole batch, the 20 keys' paths walked together level by level.
    expect(new Set(s.nodes.asked).size).toBe(s.nodes.asked.length);
    const root = Buffer.from(s.deployment.head?.indexRoot ?? '', 'hex');
    let depth = 0;
    for (const lineageId of lineages) {
      for (const key of [
        { kind: 'lineage', lineageId },
        { kind: 'residual', lineageId, residualId: 'r-2' },
      ] as const) {
        const start = s.memory.reads;
        await proveIndexKey(s.memory, root, key);
        depth = Math.max(depth, s.memory.reads - start);
      }
    }
    expect(s.nodes.calls).toBe(depth);
  });

  it('groups handled without a shared invocation read the deployment head once each (what the handler saves)', async () => {
    const s = stack();
    const lineages = [testLineageId('lin-own-head-a'), testLineageId('lin-own-head-b')];
    for (const lineageId of lineages) await s.send({ lineageId, residualId: 'r-0' });
    await s.integrate();
    let headReads = 0;
    const readHead = s.deployment.readHead.bind(s.deployment);
    s.deployment.readHead = async () => {
      headReads++;
      return readHead();
    };
    for (const lineageId of lineages) expect((await s.send({ lineageId, residualId: 'r-1' })).kind).toBe('SEALED');
    expect(headReads).toBe(2);
  });
});

describe('an exact duplicate is answered before admission (docs/authorship.md, "Two refusals, in order")', () => {
  /** The owner's two keys, and a lineage started under both by the first. */
  const both: LineagePolicy = {
    ...TEST_POLICY,
    writers: [...TEST_POLICY.writers, { keyId: SECOND_WRITER.keyId, publicKey: SECOND_WRITER.publicKey }],
  };
  /** The body of a seal request signed by `by` at `signedAtMs` (deterministic: Ed25519). */
  const body = (fields: Partial<ResidualWriteRequest>, by = SECOND_WRITER, signedAtMs = FACTORY_NOW_MS) =>
    sealRequestBody({ ...fields, writer: signWriteSync(validWriteRequest(fields), by, signedAtMs).writer });
  let n = 0;
  /** A delivery of `text`: SQS's redelivery keeps the message id and sent time, the guard's retried forward does not. */
  const delivery = (text: string, receiveCount = 1, messageId = `rot-${++n}`) => ({
    messageId,
    body: text,
    sentAtMs: FACTORY_NOW_MS + 100,
    receiveCount,
  });
  /** A lineage under `both`, and the second key's rotation to the first key alone (it drops itself). */
  const rotated = async (s: ReturnType<typeof stack>, label: string) => {
    const lineageId = testLineageId(label, both);
    expect((await s.send({ lineageId, residualId: 'r-0', policy: both })).kind).toBe('SEALED');
    return { lineageId, rotation: body({ lineageId, residualId: 'r-1', policy: TEST_POLICY }) };
  };

  it('a key rotation that dropped its own key, delivered twice in one run and again later (marker, past the index without its marker, integrated): the same record answers, no refusal item', async () => {
    const s = stack();
    const { lineageId, rotation } = await rotated(s, 'lin-rot-dup');
    const [first, again] = await s.handleGroup([delivery(rotation), delivery(rotation, 1, 'rot-forward')]);
    expect(first).toMatchObject({ kind: 'SEALED', head: { seq: 1 } });
    const answer = expect.objectContaining({ kind: 'DUPLICATE', head: (first as { head: unknown }).head });
    expect(again).toEqual(answer);
    const redelivered = delivery(rotation, 2, 'rot-redelivered');
    // A later invocation, warm and cold: the marker names the record.
    expect(await s.handleGroup([redelivered])).toEqual([answer]);
    s.cold();
    expect(await s.handleGroup([redelivered])).toEqual([answer]);
    // Its marker deleted before integration: found past the indexed head.
    s.store.markers.delete(markerKey(lineageId, 'r-1'));
    s.cold();
    expect(await s.handleGroup([redelivered])).toEqual([answer]);
    // Integrated: the index maps it.
    await s.integrate();
    s.cold();
    expect(await s.handleGroup([redelivered])).toEqual([answer]);
    expect(s.store.rejections).toEqual([]);
    expect(s.store.conflicts).toEqual([]);
    expect(s.store.records.get(lineageId)?.size).toBe(2);
    expect(s.metrics.get('SealDuplicate')).toBe(5);
  });

  /** The table writer's edits of a sealed, unintegrated rotation's marker (it names seq 1 of `lineageId`). */
  const EDITS = ['seq 0', 'another lineage', 'seq 99', 'malformed'] as const;
  const editedMarker = (edit: (typeof EDITS)[number], lineageId: string) =>
    ({
      'seq 0': { lineageId, seq: 0 },
      'another lineage': { lineageId: testLineageId('lin-rot-elsewhere', both), seq: 1 },
      'seq 99': { lineageId, seq: 99 },
      malformed: { lineageId: '', seq: Number.NaN },
    })[edit];

  it.each(EDITS)(
    'a key rotation that dropped its own key, its marker edited before integration (%s), redelivered to a cold sealer: the seq-1 record answers, found past the indexed head (one chain read more than with its genuine marker)',
    async (edit) => {
      const s = stack();
      const { lineageId, rotation } = await rotated(s, 'lin-rot-marker');
      const [first] = await s.handleGroup([delivery(rotation)]);
      expect(first).toMatchObject({ kind: 'SEALED', head: { seq: 1 } });
      const answer = expect.objectContaining({ kind: 'DUPLICATE', head: (first as { head: unknown }).head });
      let chainReads = 0;
      const readChain = s.store.readChain.bind(s.store);
      s.store.readChain = (id, fromSeq, toSeq) => {
        chainReads++;
        return readChain(id, fromSeq, toSeq);
      };
      // The genuine marker: answered from the record it names, no search past the indexed head.
      s.cold();
      expect(await s.handleGroup([delivery(rotation, 2, 'rot-redelivered')])).toEqual([answer]);
      const genuineReads = chainReads;
      s.store.markers.set(markerKey(lineageId, 'r-1'), editedMarker(edit, lineageId));
      s.cold();
      chainReads = 0;
      expect(await s.handleGroup([delivery(rotation, 2, 'rot-redelivered')])).toEqual([answer]);
      // One read more: the search, one page of records.
      expect(chainReads).toBe(genuineReads + 1);
      expect(s.store.rejections).toEqual([]);
      expect(s.store.conflicts).toEqual([]);
      expect(s.store.records.get(lineageId)?.size).toBe(2);
      expect(s.metrics.get('SealDuplicate')).toBe(2);
    },
  );

  it("the rotation with its marker edited, in a run with a new write: the search for the new write is reused when it reaches back to the rotation's signing time, else read once more", async () => {
    for (const [newSignedAtMs, searches] of [
      [FACTORY_NOW_MS - 1000, 1],
      [FACTORY_NOW_MS + 1000, 2],
    ] as const) {
      const s = stack();
      const { lineageId, rotation } = await rotated(s, `lin-rot-marker-run-${searches}`);
      const [first] = await s.handleGroup([delivery(rotation)]);
      s.store.markers.set(markerKey(lineageId, 'r-1'), { lineageId, seq: 0 });
      s.cold();
      // Counted on the strong read: the rotation, refused admission on the tentative copy, is decided there.
      let fromIndexedHead = 0;
      const readChain = s.store.readChain.bind(s.store);
      const logHead = s.store.logHead.bind(s.store);
      s.store.logHead = (id, options) => {
        if (!options?.eventual) fromIndexedHead = 0;
        return logHead(id);
      };
      s.store.readChain = (id, fromSeq, toSeq) => {
        if (fromSeq === 0) fromIndexedHead++;
        return readChain(id, fromSeq, toSeq);
      };
      const fresh = body({ lineageId, residualId: 'r-2' }, TEST_WRITER, newSignedAtMs);
      expect(await s.handleGroup([delivery(fresh), delivery(rotation, 2)])).toEqual([
        expect.objectContaining({ kind: 'SEALED', head: expect.objectContaining({ seq: 2 }) }),
        expect.objectContaining({ kind: 'DUPLICATE', head: (first as { head: unknown }).head }),
      ]);
      expect(fromIndexedHead).toBe(searches);
      expect(s.store.rejections).toEqual([]);
    }
  });

  it('the same edited markers before integration: a request that is not the rotation (signed by the dropped key, or by a stranger) stays WRITER_NOT_ADMITTED, unsigned, naming no tip', async () => {
    const s = stack();
    const { lineageId, rotation } = await rotated(s, 'lin-rot-marker-other');
    expect(await s.handleGroup([delivery(rotation)])).toEqual([expect.objectContaining({ kind: 'SEALED' })]);
    const fields = { lineageId, residualId: 'r-1', policy: TEST_POLICY };
    const others = [
      body({ ...fields, payload: { other: 'content' } }),
      body(fields, SECOND_WRITER, FACTORY_NOW_MS + 1000),
      body(fields, testWriter('test-stranger', 0x60)),
    ];
    const refused = { kind: 'REJECTED', reason: 'WRITER_NOT_ADMITTED' };
    for (const edit of EDITS) {
      s.store.markers.set(markerKey(lineageId, 'r-1'), editedMarker(edit, lineageId));
      s.cold();
      expect(await s.handleGroup(others.map((text) => delivery(text, 2))), edit).toEqual([refused, refused, refused]);
    }
    expect(s.store.rejections).toHaveLength(12);
    for (const rejection of s.store.rejections) {
      expect(rejection).toMatchObject({ reason: 'WRITER_NOT_ADMITTED', stage: 'SEALER', statement: null });
      expect(rejection.issues[0]?.message).toBe('the writer key is not admitted to this lineage');
    }
    expect(s.store.conflicts).toEqual([]);
    expect(s.store.records.get(lineageId)?.size).toBe(2);
  });

  it('the documented limit: a sealer without the index floor has neither the index nor the search past it, so the rotation whose marker does not name its record is refused, integrated or not', async () => {
    const s = stack({ index: false });
    const { lineageId, rotation } = await rotated(s, 'lin-rot-marker-noindex');
    const [first] = await s.handleGroup([delivery(rotation)]);
    expect(first).toMatchObject({ kind: 'SEALED', head: { seq: 1 } });
    s.store.markers.set(markerKey(lineageId, 'r-1'), { lineageId, seq: 0 });
    s.cold();
    const refused = { kind: 'REJECTED', reason: 'WRITER_NOT_ADMITTED' };
    expect(await s.handleGroup([delivery(rotation, 2)])).toEqual([refused]);
    await s.integrate();
    s.cold();
    expect(await s.handleGroup([delivery(rotation, 2)])).toEqual([refused]);
    // The marker put back: the record it names answers.
    s.store.markers.set(markerKey(lineageId, 'r-1'), { lineageId, seq: 1 });
    expect(await s.handleGroup([delivery(rotation, 2)])).toEqual([
      expect.objectContaining({ kind: 'DUPLICATE', head: (first as { head: unknown }).head }),
    ]);
    expect(s.store.records.get(lineageId)?.size).toBe(2);
  });

  it("another request under the rotation's residual id signed by the dropped key (other payload, signed later, or not the rotation at all) is WRITER_NOT_ADMITTED, unsigned, naming no tip", async () => {
    const s = stack();
    const { lineageId, rotation } = await rotated(s, 'lin-rot-other');
    const fields = { lineageId, residualId: 'r-1', policy: TEST_POLICY };
    const others = [
      body({ ...fields, payload: { other: 'content' } }),
      body(fields, SECOND_WRITER, FACTORY_NOW_MS + 1000),
      body({ ...fields, policy: both }),
    ];
    const refused = { kind: 'REJECTED', reason: 'WRITER_NOT_ADMITTED' };
    // In the rotation's own run, then with the marker, then integrated with the marker gone.
    const run = await s.handleGroup([delivery(rotation), ...others.map((text) => delivery(text))]);
    expect(run).toEqual([expect.objectContaining({ kind: 'SEALED' }), refused, refused, refused]);
    expect(await s.handleGroup(others.map((text) => delivery(text, 2)))).toEqual([refused, refused, refused]);
    await s.integrate();
    s.store.markers.delete(markerKey(lineageId, 'r-1'));
    s.cold();
    expect(await s.handleGroup(others.map((text) => delivery(text, 2)))).toEqual([refused, refused, refused]);
    // The key the rotation kept is admitted: its own write under that id is a reuse, as before.
    expect(await s.send(fields)).toEqual({ kind: 'REJECTED', reason: 'RESIDUAL_ID_REUSED' });
    const notAdmitted = s.store.rejections.filter((r) => r.reason === 'WRITER_NOT_ADMITTED');
    expect(notAdmitted).toHaveLength(9);
    for (const rejection of notAdmitted) {
      expect(rejection).toMatchObject({ stage: 'SEALER', residualId: 'r-1', statement: null });
      expect(rejection.issues[0]?.message).toBe('the writer key is not admitted to this lineage');
    }
    expect(s.store.records.get(lineageId)?.size).toBe(2);
  });
});
