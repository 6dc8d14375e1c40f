import { describe, expect, it } from 'vitest';
import { HiddenSealError, TimeoutError } from '../../../client/errors';
import type { WriteOutcome } from '../../../client/write-outcomes';
import { markerKey } from '../../helpers/in-memory-lineage-store';
import { cosignedByTestWitness, integratedStack, witnessedTestPolicy } from '../../helpers/integrated-stack';
import { testLineageId } from '../../helpers/writer-factories';

const LINEAGE = testLineageId('lin-outcome-fresh');

const freshnessOf = (outcome: WriteOutcome) => (outcome.kind === 'SEALED' ? outcome.freshness : null);

// Write outcomes proven through the deployment chain (docs/deployment-log.md, "Clients"), as
// recalls are: PROVEN once the indexed head covers the record and the index maps its residual id
// to it; SEALED_AWAITING_INTEGRATION before; INCONSISTENT and REFUSED fail closed.
describe('ResealClient.waitForOutcome: freshness of a sealed write', () => {
  it('a write sealed before any integration is SEALED_AWAITING_INTEGRATION; after the integration the same outcome is PROVEN', async () => {
    const s = integratedStack();
    const request = s.request({ lineageId: LINEAGE, residualId: 'r-0' });
    expect((await s.send({ lineageId: LINEAGE, residualId: 'r-0' })).kind).toBe('SEALED');
    const client = s.client();
    const before = await client.waitForOutcome(LINEAGE, 'r-0', { request, timeoutMs: 1000 });
    expect(before.kind).toBe('SEALED');
    expect(freshnessOf(before)).toMatchObject({
      state: 'SEALED_AWAITING_INTEGRATION',
      checkpointSize: null,
      witnessing: 'UNWITNESSED',
      windowSeconds: null,
    });
    await s.integrate();
    const after = await client.waitForOutcome(LINEAGE, 'r-0', { request, timeoutMs: 1000 });
    expect(freshnessOf(after)).toMatchObject({ state: 'PROVEN', checkpointSize: 1 });
  });

  it('untilProven waits past the seal until the integration proves it', async () => {
    const s = integratedStack();
    const request = s.request({ lineageId: LINEAGE, residualId: 'r-0' });
    await s.send({ lineageId: LINEAGE, residualId: 'r-0' });
    let sleeps = 0;
    const client = s.client({
      onSleep: async () => {
        if (++sleeps === 3) await s.integrate();
      },
    });
    const outcome = await client.waitForOutcome(LINEAGE, 'r-0', { request, timeoutMs: 10_000, untilProven: true });
    expect(freshnessOf(outcome)?.state).toBe('PROVEN');
    expect(sleeps).toBe(3);
  });

  it('untilProven that runs out while only sealed returns the seal as SEALED_AWAITING_INTEGRATION, not a timeout', async () => {
    const s = integratedStack();
    await s.send({ lineageId: LINEAGE, residualId: 'r-0' });
    await s.integrate();
    await s.send({ lineageId: LINEAGE, residualId: 'r-1' });
    const request = s.request({ lineageId: LINEAGE, residualId: 'r-1' });
    const outcome = await s.client().waitForOutcome(LINEAGE, 'r-1', { request, timeoutMs: 2000, untilProven: true });
    expect(outcome.kind).toBe('SEALED');
    expect(freshnessOf(outcome)).toMatchObject({ state: 'SEALED_AWAITING_INTEGRATION', checkpointSize: 1 });
    expect(freshnessOf(outcome)?.reason).toMatch(/seq 1 is past the lineage head the index holds \(1 records\)/);
  });

  it('a residual id sealed twice (its marker deleted between the seals): the second sealing is INCONSISTENT, the index maps the first', async () => {
    const s = integratedStack();
    await s.send({ lineageId: LINEAGE, residualId: 'r-0' });
    await s.send({ lineageId: LINEAGE, residualId: 'r-1' });
    s.store.markers.delete(markerKey(LINEAGE, 'r-1'));
    // Only a sealer without the index floor seals it again (docs/sealing.md, "The index floor").
    expect((await s.send({ lineageId: LINEAGE, residualId: 'r-1' })).kind).toBe('DUPLICATE');
    expect((await s.sendUnfloored({ lineageId: LINEAGE, residualId: 'r-1' })).kind).toBe('SEALED');
    await s.integrate();
    const request = s.request({ lineageId: LINEAGE, residualId: 'r-1' });
    const outcome = await s.client().waitForOutcome(LINEAGE, 'r-1', { request, timeoutMs: 1000, untilProven: true });
    expect(outcome.kind === 'SEALED' && outcome.head.seq).toBe(2);
    expect(freshnessOf(outcome)).toMatchObject({ state: 'INCONSISTENT', checkpointSize: 1 });
    expect(freshnessOf(outcome)?.reason).toMatch(/maps residual r-1 to seq 1/);
  });

  it('a deployment checkpoint that does not meet a witnessed policy is REFUSED at once (fail closed), even with untilProven', async () => {
    const s = integratedStack();
    await s.send({ lineageId: LINEAGE, residualId: 'r-0' });
    await s.integrate();
    const request = s.request({ lineageId: LINEAGE, residualId: 'r-0' });
    let sleeps = 0;
    const client = s.client({
      deps: { policy: await witnessedTestPolicy() },
      onSleep: async () => void sleeps++,
    });
    const outcome = await client.waitForOutcome(LINEAGE, 'r-0', { request, timeoutMs: 10_000, untilProven: true });
    expect(freshnessOf(outcome)).toMatchObject({ state: 'REFUSED', witnessing: 'WITNESSED', windowSeconds: 182 });
    expect(freshnessOf(outcome)?.reason).toMatch(/POLICY_NOT_MET/);
    expect(sleeps).toBe(0);
  });

  it('a fresh cosignature by the policy witness makes it PROVEN under the witnessed policy', async () => {
    const s = integratedStack();
    await s.send({ lineageId: LINEAGE, residualId: 'r-0' });
    await s.integrate();
    const head = s.deployment.head;
    if (!head?.published) throw new Error('nothing published');
    s.deployment.head = {
      ...head,
      published: await cosignedByTestWitness(head.published, Math.floor(s.clock.now / 1000) - 10),
    };
    const request = s.request({ lineageId: LINEAGE, residualId: 'r-0' });
    const client = s.client({ deps: { policy: await witnessedTestPolicy() } });
    const outcome = await client.waitForOutcome(LINEAGE, 'r-0', { request, timeoutMs: 1000 });
    expect(freshnessOf(outcome)).toMatchObject({ state: 'PROVEN', witnessing: 'WITNESSED' });
  });
});

// docs/cli.md, `publish --wait`: a seal the table writer hid by deleting its residual-id marker
// ends the wait as a tamper finding (HiddenSealError), not a timeout ("no outcome").
describe('ResealClient.waitForOutcome: a proven seal whose marker is hidden', () => {
  it('integrated (the index maps the residual id): HiddenSealError naming the index, not a TimeoutError', async () => {
    const s = integratedStack();
    await s.send({ lineageId: LINEAGE, residualId: 'r-0' });
    await s.integrate();
    s.store.markers.delete(markerKey(LINEAGE, 'r-0'));
    const request = s.request({ lineageId: LINEAGE, residualId: 'r-0' });
    const waited = s.client().waitForOutcome(LINEAGE, 'r-0', { request, timeoutMs: 1000, untilProven: true });
    await expect(waited).rejects.toThrow(HiddenSealError);
    await expect(waited).rejects.toMatchObject({
      seq: 0,
      verdict: 'UNVERIFIED_TAMPER_RISK',
      reason: expect.stringMatching(/the index maps residual r-0 to seq 0/),
    });
  });

  it('sealed, not yet integrated: found in the signed lineage log, HiddenSealError naming its seq', async () => {
    const s = integratedStack();
    await s.send({ lineageId: LINEAGE, residualId: 'r-0' });
    await s.send({ lineageId: LINEAGE, residualId: 'r-1' });
    s.store.markers.delete(markerKey(LINEAGE, 'r-1'));
    const request = s.request({ lineageId: LINEAGE, residualId: 'r-1' });
    const waited = s.client().waitForOutcome(LINEAGE, 'r-1', { request, timeoutMs: 1000, untilProven: true });
    await expect(waited).rejects.toMatchObject({
      name: 'HiddenSealError',
      seq: 1,
      reason: expect.stringMatching(/sealed at seq 1, proven in the lineage's signed checkpoint of 2 records/),
    });
  });

  it('the marker back by the deadline: the seal, not a finding; no seal anywhere: still a TimeoutError', async () => {
    const s = integratedStack();
    await s.send({ lineageId: LINEAGE, residualId: 'r-0' });
    const marker = s.store.markers.get(markerKey(LINEAGE, 'r-0'));
    s.store.markers.delete(markerKey(LINEAGE, 'r-0'));
    const request = s.request({ lineageId: LINEAGE, residualId: 'r-0' });
    let sleeps = 0;
    const client = s.client({
      onSleep: async () => {
        // Put back after the last poll (1000 ms in 500 ms polls: two sleeps).
        if (++sleeps === 2 && marker) s.store.markers.set(markerKey(LINEAGE, 'r-0'), marker);
      },
    });
    const outcome = await client.waitForOutcome(LINEAGE, 'r-0', { request, timeoutMs: 1000 });
    expect(outcome.kind).toBe('SEALED');
    const other = s.request({ lineageId: LINEAGE, residualId: 'r-never-sent' });
    await expect(
      s.client().waitForOutcome(LINEAGE, 'r-never-sent', { request: other, timeoutMs: 1000, untilProven: true }),
    ).rejects.toThrow(TimeoutError);
  });
});
