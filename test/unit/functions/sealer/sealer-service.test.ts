import { describe, expect, it } from 'vitest';
import { SealerService } from '../../../../functions/sealer/sealer-service';
import { ConflictReason, StaleHeadError } from '../../../../shared/ports/lineage-store';
import { verifyChain } from '../../../../shared/seal/lineage-verifier';
import { FakeMetrics, FakePublisher, fakeLogger, sealRequestBody } from '../../../helpers/factories';
import { FACTORY_NOW_MS } from '../../../helpers/guard-factories';
import { InMemoryLineageStore } from '../../../helpers/in-memory-lineage-store';
import { testAnchor } from '../../../helpers/seal-factories';

const LINEAGE = 'lineage-agent-42';

function setup() {
  const store = new InMemoryLineageStore();
  const publisher = new FakePublisher();
  const metrics = new FakeMetrics();
  const anchor = testAnchor();
  const service = new SealerService({
    store,
    publisher,
    anchor,
    metrics,
    logger: fakeLogger(),
    clock: () => FACTORY_NOW_MS + 1000,
  });
  return { store, publisher, metrics, anchor, service };
}

let n = 0;
const message = (body: string) => ({ messageId: `m-${++n}`, body, sentAtMs: FACTORY_NOW_MS + n });

describe('sealer service (seed 003 at the store)', () => {
  it('seed 003 Recorded Elements: seals seq 0, 1, 2 into a chain verifyChain accepts; emits each new head', async () => {
    const { service, store, publisher, anchor, metrics } = setup();
    for (const id of ['r-0', 'r-1', 'r-2']) {
      const outcome = await service.handle(message(sealRequestBody({ residualId: id })));
      expect(outcome.kind).toBe('SEALED');
    }
    const chain = await store.readChain(LINEAGE, 0, 10);
    const verification = await verifyChain(chain, { lineageId: LINEAGE, anchor });
    expect(verification.verdict).toBe('VERIFIED_INTACT');
    expect(publisher.sealed.map((e) => [e.residualId, e.seq])).toEqual([
      ['r-0', 0],
      ['r-1', 1],
      ['r-2', 2],
    ]);
    const head = await store.head(LINEAGE);
    expect(publisher.sealed[2]).toMatchObject({ ...head, formatVersion: 1 });
    expect(metrics.get('RecordSealed')).toBe(3);
  });

  it('seed 003 idempotency: a redelivered residual id creates no second record and re-emits the same head', async () => {
    const { service, store, publisher, metrics } = setup();
    const body = sealRequestBody({ residualId: 'r-dup' });
    await service.handle(message(body));
    const again = await service.handle(message(body));
    expect(again.kind).toBe('DUPLICATE');
    expect(await store.readChain(LINEAGE, 0, 10)).toHaveLength(1);
    expect(publisher.sealed).toHaveLength(2);
    expect(publisher.sealed[1]).toEqual(publisher.sealed[0]);
    expect(metrics.get('SealDuplicate')).toBe(1);
  });

  it('a duplicate found only by the transaction (marker written between check and append) is still idempotent', async () => {
    const { service, store } = setup();
    await service.handle(message(sealRequestBody({ residualId: 'r-a' })));
    const markers = new Map(store.markers);
    store.markers.clear();
    store.beforeAppend = () => {
      for (const [k, v] of markers) store.markers.set(k, v);
    };
    const outcome = await service.handle(message(sealRequestBody({ residualId: 'r-a' })));
    expect(outcome.kind).toBe('DUPLICATE');
    expect(await store.readChain(LINEAGE, 0, 10)).toHaveLength(1);
  });

  it('seed 003 Concurrent Overwrite: a lost race is retried from the new head and sealed after the winner', async () => {
    const { service, store, anchor } = setup();
    const rival = setup();
    let raced = false;
    store.beforeAppend = async () => {
      if (raced) return;
      raced = true;
      // A concurrent writer appends first, through the same store.
      store.beforeAppend = null;
      await new SealerService({
        store,
        publisher: rival.publisher,
        anchor,
        metrics: rival.metrics,
        logger: fakeLogger(),
        clock: () => FACTORY_NOW_MS,
      }).handle(message(sealRequestBody({ residualId: 'r-winner' })));
    };
    const outcome = await service.handle(message(sealRequestBody({ residualId: 'r-loser' })));
    expect(outcome).toMatchObject({ kind: 'SEALED', attempts: 2 });
    const chain = await store.readChain(LINEAGE, 0, 10);
    expect(chain.map((r) => (r as { header: { residualId: string } }).header.residualId)).toEqual([
      'r-winner',
      'r-loser',
    ]);
    expect((await verifyChain(chain, { lineageId: LINEAGE, anchor })).verdict).toBe('VERIFIED_INTACT');
  });

  it('seed 003 Concurrent Overwrite: a write that keeps losing is retried 5 times, then a visible LOST_RACE conflict', async () => {
    const { service, store, publisher, metrics } = setup();
    store.beforeAppend = () => {
      throw new StaleHeadError(LINEAGE, null, null);
    };
    const outcome = await service.handle(message(sealRequestBody({ residualId: 'r-unlucky' })));
    expect(outcome).toEqual({ kind: 'CONFLICT', reason: ConflictReason.LOST_RACE });
    expect(store.appendCalls).toBe(5);
    expect(metrics.get('SealRetry')).toBe(5);
    expect(store.conflicts).toHaveLength(1);
    expect(store.conflicts[0]).toMatchObject({ lineageId: LINEAGE, residualId: 'r-unlucky', reason: 'LOST_RACE' });
    expect(store.conflicts[0]?.attemptedHeader).toMatchObject({ residualId: 'r-unlucky' });
    expect(await store.readChain(LINEAGE, 0, 10)).toHaveLength(0);
    expect(publisher.rejected[0]).toMatchObject({ stage: 'SEALER', reason: 'LOST_RACE', residualId: 'r-unlucky' });
  });

  it('fencing: an epoch older than the head is a STALE_EPOCH conflict, never retried, nothing overwritten', async () => {
    const { service, store, publisher } = setup();
    const successor = sealRequestBody({ residualId: 'r-new', generationEpoch: 9, variablesUsed: [] });
    expect((await service.handle(message(successor))).kind).toBe('SEALED');
    const before = await store.readChain(LINEAGE, 0, 10);
    const outcome = await service.handle(message(sealRequestBody({ residualId: 'r-zombie' })));
    expect(outcome).toEqual({ kind: 'CONFLICT', reason: ConflictReason.STALE_EPOCH });
    expect(store.appendCalls).toBe(1);
    expect(store.conflicts[0]).toMatchObject({ residualId: 'r-zombie', reason: 'STALE_EPOCH' });
    expect(await store.readChain(LINEAGE, 0, 10)).toEqual(before);
    expect(publisher.rejected[0]?.reason).toBe('STALE_EPOCH');
  });

  it('fencing at the store: the head moving to a newer epoch between read and append is STALE_EPOCH, one append', async () => {
    const { service, store } = setup();
    await service.handle(message(sealRequestBody({ residualId: 'r-first' })));
    store.beforeAppend = () => {
      const head = store.heads.get(LINEAGE);
      if (head) store.setHead({ ...head, generationEpoch: 99 });
    };
    const outcome = await service.handle(message(sealRequestBody({ residualId: 'r-second' })));
    expect(outcome).toEqual({ kind: 'CONFLICT', reason: ConflictReason.STALE_EPOCH });
    expect(store.appendCalls).toBe(2);
  });

  it('a body that is not a SealRequest is a rejection record + event, not thrown', async () => {
    const { service, store, publisher } = setup();
    const outcome = await service.handle(message('{"formatVersion":1}'));
    expect(outcome).toMatchObject({ kind: 'REJECTED', reason: 'SCHEMA_VIOLATION' });
    expect(store.rejections[0]).toMatchObject({ stage: 'SEALER', lineageId: null });
    expect(publisher.rejected).toHaveLength(1);
  });

  it('seed 003 Decision Boundary 3: a disabled MAC key throws (message retried), nothing appended', async () => {
    const { service, store, anchor } = setup();
    anchor.disable();
    await expect(service.handle(message(sealRequestBody({ residualId: 'r-k' })))).rejects.toThrow(/disabled/);
    expect(store.appendCalls).toBe(0);
    expect(store.conflicts).toHaveLength(0);
  });
});
