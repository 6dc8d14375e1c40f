import { describe, expect, it } from 'vitest';
import type { WriteOutcome } from '../../../client/write-outcomes';
import { integratedStack } from '../../helpers/integrated-stack';
import { testLineageId } from '../../helpers/writer-factories';

const LINEAGE = testLineageId('lin-parked-polls');

const stateOf = (outcome: WriteOutcome) => (outcome.kind === 'SEALED' ? outcome.freshness?.state : outcome.kind);

/** `target` with every method call counted by name in `calls` (called on the target itself). */
function counted<T extends object>(target: T, calls: Map<string, number>, prefix: string): T {
  return new Proxy(target, {
    get(t, name, receiver) {
      const value = Reflect.get(t, name, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const key = `${prefix}.${String(name)}`;
        calls.set(key, (calls.get(key) ?? 0) + 1);
        return value.apply(t, args);
      };
    },
  });
}

/**
 * A stack with `r-0` integrated and `r-1` sealed after it (awaiting integration), and a client whose
 * deployment-log, index and lineage-table reads are counted.
 */
async function sealedAwaiting(onSleep: (sleeps: number, s: ReturnType<typeof integratedStack>) => Promise<void>) {
  const s = integratedStack();
  await s.send({ lineageId: LINEAGE, residualId: 'r-0' });
  await s.integrate();
  await s.send({ lineageId: LINEAGE, residualId: 'r-1' });
  const calls = new Map<string, number>();
  let sleeps = 0;
  const client = s.client({
    deps: {
      deploymentLog: counted(s.deployment, calls, 'deployment'),
      indexNodes: counted(s.index, calls, 'index'),
      store: counted(s.store, calls, 'store'),
    },
    onSleep: async () => onSleep(++sleeps, s),
  });
  return { s, client, calls, request: s.request({ lineageId: LINEAGE, residualId: 'r-1' }), sleeps: () => sleeps };
}

// docs/pipeline.md, "Polling the table": while a write is sealed awaiting integration, a poll reads
// the deployment head's mark alone and proves the seal again only when the head moved, when the
// backoff is due, or at the deadline. Full proofs are counted by the strongly consistent head reads.
describe('WriteOutcomes.waitFor: a seal awaiting integration is proven again only when it can have changed', () => {
  it('a wait of 20 polls with the head unmoved makes a handful of full proofs, not one per poll, and ends with a full one', async () => {
    const { client, calls, request } = await sealedAwaiting(async () => {});
    const outcome = await client.waitForOutcome(LINEAGE, 'r-1', {
      request,
      timeoutMs: 10_000,
      pollIntervalMs: 500,
      untilProven: true,
    });
    expect(stateOf(outcome)).toBe('SEALED_AWAITING_INTEGRATION');
    // 21 attempts (t = 0 … 10 s): full proofs at 0, then due at 1, 3, 7 s (backoff 1, 2, 4 s), and at the deadline.
    // Each full proof reads the lineage head once: 5, against 21 when every poll was a full proof.
    expect(calls.get('store.logHead')).toBe(5);
    // The deployment head strongly by the deadline's proof alone; the proofs before it read a copy.
    expect(calls.get('deployment.readHead')).toBe(1);
    // A mark read at each of the 19 polls between, once after the first proof (to park on), and a
    // copy by each of the 4 proofs before the deadline.
    expect(calls.get('deployment.peekHead')).toBe(19 + 1 + 4);
    // The lineage's records and marker are read by full proofs only, and the marker by the first
    // poll's look at a copy (the write not yet shown sealed or refused).
    expect(calls.get('store.findByResidualId')).toBe(5 + 1);
  });

  it('the integration moves the head: the next poll proves the seal PROVEN, as when every poll was a full proof', async () => {
    const { client, calls, request, sleeps } = await sealedAwaiting(async (n, s) => {
      if (n === 3) await s.integrate();
    });
    const outcome = await client.waitForOutcome(LINEAGE, 'r-1', { request, timeoutMs: 10_000, untilProven: true });
    expect(stateOf(outcome)).toBe('PROVEN');
    expect(sleeps()).toBe(3);
    // t = 0 full; 0.5, 1.0 (due) …: the head moved after the third sleep, proven at that poll.
    expect(calls.get('store.logHead')).toBeLessThanOrEqual(3);
  });

  it('a head mark a table writer changes at every poll costs a full proof each time, never another outcome', async () => {
    const { s, client, calls, request } = await sealedAwaiting(async () => {});
    // What the cheap read shows is another head at every poll (a table writer's edits, put and
    // taken back between the reads); the strongly consistent reads of the proofs see the table's.
    let edits = 0;
    s.deployment.peekHead = async () => {
      const head = await s.deployment.readHead();
      return head && { ...head, published: `${head.published} edit ${++edits}` };
    };
    const outcome = await client.waitForOutcome(LINEAGE, 'r-1', {
      request,
      timeoutMs: 2_000,
      pollIntervalMs: 500,
      untilProven: true,
    });
    expect(outcome.kind).toBe('SEALED');
    expect(stateOf(outcome)).not.toBe('PROVEN');
    // A proof at every one of the 5 attempts (t = 0 … 2 s), as when every poll was a full proof.
    expect(calls.get('store.logHead')).toBe(5);
  });

  it('the deadline attempt is a full proof even with the head unmoved: an integration just before it is seen', async () => {
    const { client, request } = await sealedAwaiting(async (n, s) => {
      // The last sleep (the 4th of 500 ms for a 2 s wait) reaches the deadline; integrate then,
      // hiding the move from the cheap read (a stale, eventually consistent head).
      if (n === 4) {
        const stale = s.deployment.head;
        await s.integrate();
        s.deployment.peekHead = async () => structuredClone(stale);
      }
    });
    const outcome = await client.waitForOutcome(LINEAGE, 'r-1', {
      request,
      timeoutMs: 2_000,
      pollIntervalMs: 500,
      untilProven: true,
    });
    expect(stateOf(outcome)).toBe('PROVEN');
  });
});
