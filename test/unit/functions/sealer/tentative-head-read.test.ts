import { describe, expect, it } from 'vitest';
import { FRESH_HEAD_MS } from '../../../../functions/sealer/seal-run';
import { SealerService } from '../../../../functions/sealer/sealer-service';
import type { StoredLogHead } from '../../../../shared/log/log-state';
import { sealRequestMessages } from '../../../helpers/factories';
import { FACTORY_LINEAGE_ID, FACTORY_NOW_MS } from '../../../helpers/guard-factories';
import type { InMemoryLineageStore } from '../../../helpers/in-memory-lineage-store';
import { inProcessIntegration } from '../../../helpers/in-process-integration';
import { testSealerDeps } from '../../../helpers/service-factories';

const LINEAGE = FACTORY_LINEAGE_ID;

/** A sealer's clock that moves on by a second at each reading: each run comes a second after the last append. */
function secondsApart() {
  let now = FACTORY_NOW_MS;
  return () => {
    now += 1000;
    return now;
  };
}

type Consistency = 'strong' | 'eventual' | 'eventual, strong on a miss';

/**
 * Records the sealer's reads of `store` (`method consistency`, as `DynamoDBChainStore` makes
 * them) and, once {@link freeze} was called, answers its eventually consistent head and past-head
 * reads from the copy taken then (the head item and the records as they stood): DynamoDB's
 * eventually consistent copy, up to about a second old. Every other read is the table's now (a
 * range the adapter reads again strongly when its copy misses a seq reads what a strong read does).
 */
function readsOf(store: InMemoryLineageStore) {
  const reads: string[] = [];
  let copy: { readonly head: StoredLogHead | null; readonly records: readonly unknown[] } | null = null;
  const logHead = store.logHead.bind(store);
  const readChain = store.readChain.bind(store);
  const findByResidualId = store.findByResidualId.bind(store);
  store.logHead = async (lineageId, options) => {
    reads.push(`logHead ${options?.eventual ? 'eventual' : 'strong'}`);
    return options?.eventual && copy ? structuredClone(copy.head) : logHead(lineageId);
  };
  store.readChain = async (lineageId, fromSeq, toSeq, options) => {
    const consistency: Consistency = !options?.eventual
      ? 'strong'
      : options.recheck === false
        ? 'eventual'
        : 'eventual, strong on a miss';
    reads.push(`readChain ${consistency}`);
    if (consistency !== 'eventual' || !copy) return readChain(lineageId, fromSeq, toSeq);
    return structuredClone(
      copy.records.filter((record) => {
        const seq = (record as { header: { monotonicSequenceNumber: number } }).header.monotonicSequenceNumber;
        return seq >= fromSeq && seq <= toSeq;
      }),
    );
  };
  store.findByResidualId = async (lineageId, residualId, options) => {
    reads.push(`findByResidualId ${options?.eventual ? 'eventual' : 'strong'}`);
    return findByResidualId(lineageId, residualId);
  };
  return {
    reads,
    /** From now on, the eventually consistent copies show `lineageId` as it stands now. */
    freeze: async (lineageId: string) => {
      copy = { head: await logHead(lineageId), records: await readChain(lineageId, 0, Number.MAX_SAFE_INTEGER) };
    },
  };
}

/**
 * r-0 and r-1 sealed by one sealer (`first`), the store's eventually consistent copy of the lineage
 * frozen between them (a copy still shows r-0's head), and the read log cleared; `message` makes
 * the next seal-request message (its `receiveCount` 1 unless said).
 */
async function sealedPastFrozenCopy() {
  const deps = { ...testSealerDeps(), clock: secondsApart() };
  const reads = readsOf(deps.store);
  const message = sealRequestMessages();
  const first = new SealerService(deps);
  expect((await first.handle(message('r-0'))).kind).toBe('SEALED');
  await reads.freeze(LINEAGE);
  expect((await first.handle(message('r-1'))).kind).toBe('SEALED');
  reads.reads.length = 0;
  return { deps, reads, message, first };
}

describe('the sealer reads a copy of the head first, tentatively (docs/sealing.md, "The reads of a run")', () => {
  it('a sparse write on a warm sealer, its lineage ahead of the index: the head and the records past it from copies, the marker strongly, the search past the indexed head eventually consistent; no strong head read', async () => {
    const stack = inProcessIntegration({ indexFloor: true, sealer: { clock: secondsApart() } });
    await stack.write(LINEAGE, 'r-0');
    await stack.write(LINEAGE, 'r-1');
    await stack.integrator().integrate(stack.notices.splice(0));
    await stack.write(LINEAGE, 'r-2');
    const { reads } = readsOf(stack.store);
    await stack.write(LINEAGE, 'r-3');
    expect(reads).toEqual([
      'logHead eventual',
      'readChain eventual',
      'findByResidualId strong',
      'readChain eventual, strong on a miss',
    ]);
    expect(stack.store.conflicts).toEqual([]);
  });

  it('a first write, and a write on a lineage the index holds whole: one head copy, one copy past it, one marker read', async () => {
    const stack = inProcessIntegration({ indexFloor: true, sealer: { clock: secondsApart() } });
    const { reads } = readsOf(stack.store);
    const perWrite = ['logHead eventual', 'readChain eventual', 'findByResidualId strong'];
    await stack.write(LINEAGE, 'r-0');
    expect(reads).toEqual(perWrite);
    await stack.integrator().integrate(stack.notices.splice(0));
    reads.length = 0; // the integrator's own reads
    await stack.write(LINEAGE, 'r-1');
    expect(reads).toEqual(perWrite);
  });

  it(`a run within ${FRESH_HEAD_MS} ms of this sealer's own head move (a busy lineage) reads the head and the records past it strongly at once, no copy`, async () => {
    const stack = inProcessIntegration({ indexFloor: true });
    await stack.write(LINEAGE, 'r-0');
    const { reads } = readsOf(stack.store);
    await stack.write(LINEAGE, 'r-1'); // the test sealer's clock stands still
    expect(reads).toEqual([
      'logHead strong',
      'readChain strong',
      'findByResidualId strong',
      'readChain eventual, strong on a miss', // r-0, past the (empty) index
    ]);
  });

  it('a stale head copy (another sealer appended since): the first record put loses its seq, the lineage is read again strongly, and the write is sealed after the newer head, nothing refused', async () => {
    const { deps, reads, message } = await sealedPastFrozenCopy();
    // A sealer that did not store r-1's head: its copy is r-0's head, genuine, and no record past it.
    const sealer = new SealerService(deps);
    const appends = deps.store.appendCalls;
    expect(await sealer.handle(message('r-2'))).toMatchObject({
      kind: 'SEALED',
      residualId: 'r-2',
      head: { seq: 2 },
      attempts: 2,
    });
    expect(deps.store.appendCalls - appends).toBe(2);
    expect(reads.reads.filter((r) => r.startsWith('logHead'))).toEqual(['logHead eventual', 'logHead strong']);
    expect(deps.store.conflicts).toEqual([]);
    expect(deps.store.rejections).toEqual([]);
    expect((await deps.store.readChain(LINEAGE, 0, 10)).length).toBe(3);
  });

  it('a head copy behind what this warm sealer stored is not "rolled back": read again strongly, sealed', async () => {
    const { deps, reads, message, first: sealer } = await sealedPastFrozenCopy();
    expect(await sealer.handle(message('r-2'))).toMatchObject({ kind: 'SEALED', head: { seq: 2 }, attempts: 1 });
    expect(reads.reads.filter((r) => r.startsWith('logHead'))).toEqual(['logHead eventual', 'logHead strong']);
    expect(deps.store.conflicts).toEqual([]);
  });

  it('a head copy behind the indexed head is not LINEAGE_BEHIND_INDEX: read again strongly, sealed', async () => {
    const stack = inProcessIntegration({ indexFloor: true, sealer: { clock: secondsApart() } });
    const reads = readsOf(stack.store);
    await stack.write(LINEAGE, 'r-0');
    await reads.freeze(LINEAGE);
    await stack.write(LINEAGE, 'r-1');
    await stack.integrator().integrate(stack.notices.splice(0));
    reads.reads.length = 0;
    stack.coldSealer();
    expect(await stack.seal({ lineageId: LINEAGE, residualId: 'r-2' })).toMatchObject({
      kind: 'SEALED',
      head: { seq: 2 },
      attempts: 1,
    });
    expect(reads.reads.filter((r) => r.startsWith('logHead'))).toEqual(['logHead eventual', 'logHead strong']);
    expect(stack.store.rejections).toEqual([]);
  });

  it('a redelivery whose marker names a record past the stale head copy: answered DUPLICATE on the strong read, never LINEAGE_INCONSISTENT', async () => {
    const { deps, reads, message } = await sealedPastFrozenCopy();
    const sealer = new SealerService(deps);
    expect(await sealer.handle(message('r-1', 2))).toMatchObject({
      kind: 'DUPLICATE',
      residualId: 'r-1',
      head: { seq: 1 },
    });
    expect(reads.reads.filter((r) => r.startsWith('logHead'))).toEqual(['logHead eventual', 'logHead strong']);
    expect(deps.store.conflicts).toEqual([]);
    expect((await deps.store.readChain(LINEAGE, 0, 10)).length).toBe(2);
  });
});
