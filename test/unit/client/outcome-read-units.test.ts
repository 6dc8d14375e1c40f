import { describe, expect, it } from 'vitest';
import { CachedIndexNodeStore } from '../../../shared/index/cached-index-node-store';
import { integratedStack } from '../../helpers/integrated-stack';
import { ReadUnitMeter } from '../../helpers/read-unit-meter';
import { testLineageId } from '../../helpers/writer-factories';

const LINEAGE = testLineageId('lin-read-units');

/**
 * A stack whose sealer MACs heads (as deployed), a lineage of `integrated` records integrated and
 * one more sealed after them, and a client (its tile cache in front of the metered index, as
 * `clientTileCache` has it) warmed by a wait for the last integrated record, as an agent's client
 * is after its first write.
 */
async function meteredStack(integrated: number) {
  const s = integratedStack({ signLineageCheckpoints: false });
  for (let i = 0; i < integrated; i++) await s.send({ lineageId: LINEAGE, residualId: `r-${i}` });
  await s.integrate();
  const meter = new ReadUnitMeter();
  const client = s.client({
    deps: {
      store: meter.wrap(s.store, 'store'),
      deploymentLog: meter.wrap(s.deployment, 'deployment'),
      indexNodes: new CachedIndexNodeStore(meter.wrap(s.index, 'index'), 2_048),
    },
  });
  const last = `r-${integrated - 1}`;
  await client.waitForOutcome(LINEAGE, last, { request: s.request({ lineageId: LINEAGE, residualId: last }) });
  const residualId = `r-${integrated}`;
  await s.send({ lineageId: LINEAGE, residualId });
  meter.reset();
  return { s, client, meter, residualId, request: s.request({ lineageId: LINEAGE, residualId }) };
}

// docs/pipeline.md, "Learning the outcome of a write": the reads of the poll that finds a write
// sealed, each priced as the DynamoDB adapter makes it (test/helpers/read-unit-meter.ts).
describe('WriteOutcomes.waitFor: the read units of the first proof of a sealed write', () => {
  it("a seal awaiting integration (a head the sealer MAC'd): 6 units, no record item read twice", async () => {
    const { client, meter, residualId, request } = await meteredStack(5);
    const outcome = await client.waitForOutcome(LINEAGE, residualId, { request });
    expect(outcome.kind === 'SEALED' && outcome.freshness?.state).toBe('SEALED_AWAITING_INTEGRATION');
    // The marker (a copy first: the write not yet shown sealed or refused, then strongly), the
    // lineage head, the record, the deployment head (strongly: a plain wait's first proven seal is
    // its answer), and the two refusal queries an unproven seal needs. The consistency proof from the indexed head one record
    // behind takes the record's leaf and the head item's frontier (proven with it): no node read.
    expect(meter.calls.map((c) => `${c.port} ${c.consistent ? 'strong' : 'eventual'}`)).toEqual([
      'store.findByResidualId eventual',
      'store.findByResidualId strong',
      'store.logHead strong',
      'store.readRecord eventual',
      'deployment.readHead strong',
      'store.listRejections strong',
      'store.listConflicts strong',
    ]);
    expect(meter.totals()).toEqual({ GetItem: 5, Query: 2, BatchGetItem: 0, units: 6 });
    expect(meter.unpriced).toEqual([]);
  });

  it('a seal already integrated: no refusal query, no node read; the tiles of the moved index are what is left', async () => {
    const { s, client, meter, residualId, request } = await meteredStack(5);
    await s.integrate();
    const outcome = await client.waitForOutcome(LINEAGE, residualId, { request });
    expect(outcome.kind === 'SEALED' && outcome.freshness?.state).toBe('PROVEN');
    const totals = meter.totals();
    const tiles = meter.calls.filter((c) => c.port === 'index.getTiles').reduce((n, c) => n + c.items, 0);
    // The marker (a copy, then strongly), the lineage head, the record (half) and the deployment
    // head (strongly): 4 units.
    expect({ GetItem: totals.GetItem, Query: totals.Query, units: totals.units }).toEqual({
      GetItem: 5,
      Query: 0,
      units: 4 + tiles / 2,
    });
    expect(meter.calls.some((c) => c.port === 'store.readNodes' || c.port === 'deployment.peekHead')).toBe(false);
  });

  it('a plain wait never answers from a stale copy of the deployment head: a write the log proves is PROVEN', async () => {
    const { s, client, residualId, request } = await meteredStack(5);
    // The copy an eventually consistent read may serve: the deployment head from before the
    // integration that proves the write.
    const stale = structuredClone(s.deployment.head);
    await s.integrate();
    s.deployment.peekHead = async () => structuredClone(stale);
    const outcome = await client.waitForOutcome(LINEAGE, residualId, { request });
    expect(outcome.kind === 'SEALED' && outcome.freshness?.state).toBe('PROVEN');
  });

  it('a wait until proven reads the refusals beside a seal awaiting integration at the deadline alone', async () => {
    const { client, meter, residualId, request } = await meteredStack(5);
    const outcome = await client.waitForOutcome(LINEAGE, residualId, {
      request,
      timeoutMs: 10_000,
      pollIntervalMs: 500,
      untilProven: true,
    });
    expect(outcome.kind === 'SEALED' && outcome.freshness?.state).toBe('SEALED_AWAITING_INTEGRATION');
    // 5 full proofs (parked between, docs/pipeline.md "Polling the table"), 2 queries by the last:
    // against 10 when each proof read them.
    expect(meter.calls.filter((c) => c.port === 'store.logHead')).toHaveLength(5);
    expect(meter.totals().Query).toBe(2);
    // The deployment head strongly only at the deadline; the 4 proofs before it and the marks read a copy.
    expect(meter.calls.filter((c) => c.port === 'deployment.readHead')).toHaveLength(1);
  });
});

// docs/pipeline.md, "Learning the outcome of a write": until the write shows sealed or refused, a
// poll reads the marker and the refusals in a copy (half a unit each), a trigger for the strong reads.
describe('WriteOutcomes.waitFor: the polls before a write shows read a copy', () => {
  it('the polls before the seal read the marker and the refusal queries eventually consistent, then prove it strongly', async () => {
    const s = integratedStack({ signLineageCheckpoints: false });
    const meter = new ReadUnitMeter();
    const residualId = 'r-late';
    let sleeps = 0;
    const client = s.client({
      deps: { store: meter.wrap(s.store, 'store') },
      onSleep: async () => {
        if (++sleeps === 3) await s.send({ lineageId: LINEAGE, residualId });
      },
    });
    const outcome = await client.waitForOutcome(LINEAGE, residualId, {
      request: s.request({ lineageId: LINEAGE, residualId }),
      timeoutMs: 10_000,
      pollIntervalMs: 500,
    });
    expect(outcome.kind).toBe('SEALED');
    const reads = meter.calls.map((c) => `${c.port} ${c.consistent ? 'strong' : 'eventual'}`);
    // Three polls find nothing in a copy: the marker each (half a unit), the refusal queries at the
    // first and 1 s later (their backoff; 3 units a poll strongly before copies, 1.5 each before
    // the backoff); the fourth shows the marker and the proof reads it again strongly.
    const marker = 'store.findByResidualId eventual';
    const empty = [marker, 'store.listRejections eventual', 'store.listConflicts eventual'];
    expect(reads.slice(0, 8)).toEqual([...empty, marker, ...empty, marker]);
    expect(reads[8]).toBe('store.findByResidualId strong');
    expect(reads.filter((r) => r.startsWith('store.list') && r.endsWith('strong'))).toEqual([
      'store.listRejections strong',
      'store.listConflicts strong',
    ]);
  });

  it('a copy that never shows the marker delays the answer to the deadline, never changes it', async () => {
    const s = integratedStack({ signLineageCheckpoints: false });
    const residualId = 'r-hidden-copy';
    await s.send({ lineageId: LINEAGE, residualId });
    const stale = new Proxy(s.store, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver);
        if (name !== 'findByResidualId' || typeof value !== 'function') return value;
        return (lineageId: string, residual: string, options?: { eventual?: boolean }) =>
          options?.eventual ? Promise.resolve(null) : value.call(target, lineageId, residual, options);
      },
    });
    const client = s.client({ deps: { store: stale } });
    const request = s.request({ lineageId: LINEAGE, residualId });
    const late = await client.waitForOutcome(LINEAGE, residualId, { request, timeoutMs: 2_000, pollIntervalMs: 500 });
    const strong = await s.client().waitForOutcome(LINEAGE, residualId, { request, timeoutMs: 0 });
    expect(late.kind).toBe('SEALED');
    expect(late.kind === 'SEALED' && strong.kind === 'SEALED' && late.head).toEqual(
      strong.kind === 'SEALED' && strong.head,
    );
  });
});
