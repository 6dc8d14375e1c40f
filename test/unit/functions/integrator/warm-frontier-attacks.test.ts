import { describe, expect, it, vi } from 'vitest';
import { FrontierCache } from '../../../../shared/integrator/frontier-cache';
import { FACTORY_LINEAGE_ID } from '../../../helpers/guard-factories';
import {
  attackedBetweenIntegrations,
  type WarmIntegrationStack,
  warmIntegrationStack,
} from '../../../helpers/warm-integration';

// The table writer against a warm integrator (docs/deployment-log.md, "A warm integrator"): every
// edit of the records between two integrations ends as a cold integrator would end it, and no
// index entry is ever one the records do not prove.
const A = FACTORY_LINEAGE_ID;

const stack = warmIntegrationStack;
type Stack = WarmIntegrationStack;

/** A integrated at 2 warm, written to 4, `attack` applied, the batch integrated warm then cold. */
const attacked = (attack: (s: Stack) => Promise<void> | void) => attackedBetweenIntegrations(A, attack);

/** `readChain` answering `edit` of what the table holds. */
const serveChain = (s: Stack, edit: (records: unknown[]) => unknown[]) => {
  const readChain = s.store.readChain.bind(s.store);
  vi.spyOn(s.store, 'readChain').mockImplementation(async (...args) => edit(await readChain(...args)));
};

describe('the table writer between two integrations of a warm integrator: what a cold one ends with', () => {
  it('the record at seq 2 replaced by a self-consistent record of the same residual id with another hash: RECORD_UNPROVEN', async () => {
    const other = stack();
    for (const id of ['r-0', 'r-1']) await other.write(A, id);
    await other.seal({ lineageId: A, residualId: 'r-2', payload: { conclusion: 'another story' } });
    const forged = other.store.records.get(A)?.get(2);
    const { kinds, warmNodeReads } = await attacked((s) => {
      expect(forged).toBeDefined();
      expect(forged).not.toEqual(s.store.records.get(A)?.get(2));
      s.store.records.get(A)?.set(2, forged ?? '');
    });
    expect(kinds).toEqual(['RECORD_UNPROVEN']);
    expect(warmNodeReads).toBeGreaterThan(0);
  });

  it('the records query answering seqs 2 and 3 swapped: RECORD_UNPROVEN', async () => {
    const { kinds } = await attacked((s) => serveChain(s, (records) => [...records].reverse()));
    expect(kinds).toEqual(['RECORD_UNPROVEN']);
  });

  it('the records query answering a record twice (a duplicate item): RECORD_UNPROVEN', async () => {
    const { kinds } = await attacked((s) => serveChain(s, (records) => [...records, records.at(-1)]));
    expect(kinds).toEqual(['RECORD_UNPROVEN']);
  });

  it('the records query answering an extra record below the range (seq 1 again): RECORD_UNPROVEN', async () => {
    const { kinds } = await attacked((s) => {
      const seq1 = JSON.parse(s.store.records.get(A)?.get(1) ?? 'null');
      serveChain(s, (records) => [seq1, ...records]);
    });
    expect(kinds).toEqual(['RECORD_UNPROVEN']);
  });

  it('a stale copy of the records missing the last seq: RECORD_UNPROVEN, never the head without its record', async () => {
    const { kinds } = await attacked((s) => serveChain(s, (records) => records.slice(0, -1)));
    expect(kinds).toEqual(['RECORD_UNPROVEN']);
  });

  it('a record inserted past the stored head (seq 4, no head moved): the stored head at 4 enters, the extra record is not read', async () => {
    const s = stack();
    await s.write(A, 'r-0');
    await s.write(A, 'r-1');
    await s.warm.integrate(s.notices.splice(0));
    await s.write(A, 'r-2');
    await s.write(A, 'r-3');
    const other = stack();
    for (const id of ['r-0', 'r-1', 'r-2', 'r-3', 'r-4']) await other.write(A, id);
    s.store.records.get(A)?.set(4, other.store.records.get(A)?.get(4) ?? '');
    const report = await s.warm.integrate(s.notices.splice(0));
    expect(report).toMatchObject({ integrated: [A], evidence: [] });
    expect((await s.held(A))?.treeSize).toBe(4);
  });
});

describe('two integrator instances alternating over one index', () => {
  it('each proves from its own frontier only at the size and root the index holds: every integration indexes the stored head', async () => {
    const s = stack();
    const other = s.integrator({ frontiers: new FrontierCache() });
    let n = 0;
    for (const by of [s.warm, other, s.warm, other, s.warm]) {
      await s.write(A, `r-${n++}`);
      await s.write(A, `r-${n++}`);
      const report = await by.integrate(s.notices.splice(0));
      expect(report).toMatchObject({ integrated: [A], evidence: [] });
      expect(await s.held(A)).toMatchObject({ treeSize: n });
    }
  });

  it('an instance whose frontier is of an older index entry of the lineage (another moved it since) proves from the table', async () => {
    const s = stack();
    const other = s.integrator({ frontiers: new FrontierCache() });
    await s.write(A, 'r-0');
    await s.warm.integrate(s.notices.splice(0));
    await s.write(A, 'r-1');
    await other.integrate(s.notices.splice(0));
    await s.write(A, 'r-2');
    s.nodeReads();
    expect(await s.warm.integrate(s.notices.splice(0))).toMatchObject({ integrated: [A], evidence: [] });
    expect(s.nodeReads()).toBeGreaterThan(0);
    expect(await s.held(A)).toMatchObject({ treeSize: 3 });
  });
});
