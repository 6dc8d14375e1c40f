import { describe, expect, it } from 'vitest';
import { LogVerificationError } from '../../../client/errors';
import { MemoryCheckpointStore } from '../../../client/memory-checkpoint-store';
import { ResealSession } from '../../../frameworks/openai-agents/reseal-session';
import type { JsonValue } from '../../../shared/canonical/canonical-json';
import { sessionAddPayload } from '../../../shared/session/session-history';
import { markerKey } from '../../helpers/in-memory-lineage-store';
import { integratedStack } from '../../helpers/integrated-stack';
import { rolledBackLineage } from '../../helpers/rolled-back-lineage';
import { testLineageId } from '../../helpers/writer-factories';

const LINEAGE = testLineageId('lin-session-fresh');
const items = [
  sessionAddPayload({ role: 'user', content: 'hello' }) as unknown as JsonValue,
  sessionAddPayload({ role: 'user', content: 'again' }) as unknown as JsonValue,
] as const;

/** A session over `s`'s client and table, without a checkpoint store (a cold client). */
const sessionOn = (s: ReturnType<typeof integratedStack>) =>
  new ResealSession(s.client(), s.store, null, {
    lineageId: LINEAGE,
    sessionId: 's-1',
    generationEpoch: 1,
    boundaryAtMs: 0,
    manifest: () => ({ env: {}, structuralKeys: [], claimDependencyMap: {} }),
  });

// The session's history placed against the deployment log (docs/frameworks.md, "OpenAI Agents
// SDK (TypeScript)"; docs/deployment-log.md, "Clients"), as the Python adapters do.
describe('ResealSession.getItems: freshness of the history', () => {
  it('a history rolled back behind the index throws NOT_NEWEST (UNVERIFIED_TAMPER_RISK), never returns the older items', async () => {
    const s = await rolledBackLineage(LINEAGE, items);
    const refused = await sessionOn(s)
      .getItems()
      .then(
        () => null,
        (error: unknown) => error,
      );
    expect(refused).toBeInstanceOf(LogVerificationError);
    expect(refused).toMatchObject({ verdict: 'UNVERIFIED_TAMPER_RISK' });
    expect((refused as Error).message).toMatch(/not the newest/);
  });

  it('the whole integrated history is returned', async () => {
    const s = integratedStack();
    await s.send({ lineageId: LINEAGE, residualId: 'r-0', payload: items[0] });
    await s.send({ lineageId: LINEAGE, residualId: 'r-1', payload: items[1] });
    await s.integrate();
    expect(await sessionOn(s).getItems()).toEqual([
      { role: 'user', content: 'hello' },
      { role: 'user', content: 'again' },
    ]);
  });
});

// What the session's client knows beyond the table holds its history too (docs/verifiable-log.md,
// "Seals seen awaiting integration" and "Verifying a whole lineage"), as `verify --lineage` does.
describe('ResealSession.getItems: a history the client knows was rolled back or deleted', () => {
  /** Two integrated session items, then a third sealed past the index, and the head item after the two. */
  async function stackWithTail() {
    const s = integratedStack({ signLineageCheckpoints: false });
    await s.send({ lineageId: LINEAGE, residualId: 'r-0', payload: items[0] });
    await s.send({ lineageId: LINEAGE, residualId: 'r-1', payload: items[1] });
    await s.integrate();
    const integrated = s.store.headSnapshot(LINEAGE);
    if (!integrated) throw new Error('no head');
    return { s, integrated };
  }
  const sessionWith = (s: ReturnType<typeof integratedStack>, store: MemoryCheckpointStore | null) =>
    new ResealSession(s.client(store ? { deps: { checkpointStore: store } } : {}), s.store, store, {
      lineageId: LINEAGE,
      sessionId: 's-1',
      generationEpoch: 1,
      boundaryAtMs: 0,
      manifest: () => ({ env: {}, structuralKeys: [], claimDependencyMap: {} }),
    });
  const refusal = (session: ResealSession) =>
    session.getItems().then(
      () => null,
      (error: unknown) => error,
    );

  it('every item of an integrated history deleted: throws what the index holds (UNVERIFIED_TAMPER_RISK), never an empty history', async () => {
    const { s } = await stackWithTail();
    s.store.deleteHead(LINEAGE);
    for (const seq of [0, 1]) s.store.deleteRecord(LINEAGE, seq);
    for (const id of ['r-0', 'r-1']) s.store.markers.delete(markerKey(LINEAGE, id));
    for (const session of [sessionOn(s), sessionWith(s, new MemoryCheckpointStore())]) {
      const refused = await refusal(session);
      expect(refused).toBeInstanceOf(LogVerificationError);
      expect(refused).toMatchObject({ verdict: 'UNVERIFIED_TAMPER_RISK' });
      expect((refused as Error).message).toMatch(/the index holds 2 records of it .*\(lineage deleted\)/);
    }
    // A lineage nothing knows is a history never written.
    const other = testLineageId('lin-session-never');
    const fresh = new ResealSession(s.client(), s.store, null, {
      lineageId: other,
      sessionId: 's-2',
      generationEpoch: 1,
      boundaryAtMs: 0,
      manifest: () => ({ env: {}, structuralKeys: [], claimDependencyMap: {} }),
    });
    expect(await fresh.getItems()).toEqual([]);
  });

  it("the tail rewound over the session client's own waited write: throws the rollback, never the older items", async () => {
    const { s, integrated } = await stackWithTail();
    await s.send({ lineageId: LINEAGE, residualId: 'r-2', payload: items[0] });
    const store = new MemoryCheckpointStore();
    const client = s.client({ deps: { checkpointStore: store } });
    const request = s.request({ lineageId: LINEAGE, residualId: 'r-2', payload: items[0] });
    const outcome = await client.waitForOutcome(LINEAGE, 'r-2', { request });
    expect(outcome.kind === 'SEALED' && outcome.freshness?.state).toBe('SEALED_AWAITING_INTEGRATION');
    // The table writer rewinds the head to the integrated state and deletes record 2 and its marker.
    s.store.restoreHead(LINEAGE, integrated);
    s.store.deleteRecord(LINEAGE, 2);
    s.store.markers.delete(markerKey(LINEAGE, 'r-2'));
    const refused = await refusal(sessionWith(s, store));
    expect(refused).toBeInstanceOf(LogVerificationError);
    expect(refused).toMatchObject({ verdict: 'UNVERIFIED_TAMPER_RISK' });
    expect((refused as Error).message).toMatch(/rollback: .*this client saw residual r-2 sealed at seq 2/);
    // The public whole-lineage walk says the same.
    const walked = await client.verifyLineage(LINEAGE);
    expect(walked.verdict).toBe('UNVERIFIED_TAMPER_RISK');
    expect(walked.freshness?.state).toBe('NOT_NEWEST');
    expect(walked.firstFailure?.reason).toMatch(/^rollback: .*this client saw residual r-2 sealed at seq 2/);
    // A session whose client kept nothing reads the integrated history.
    expect(await sessionWith(s, new MemoryCheckpointStore()).getItems()).toHaveLength(2);
  });
});
