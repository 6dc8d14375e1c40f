import { describe, expect, it } from 'vitest';
import { TimeoutError } from '../../../client/errors';
import { RefusalChecks } from '../../../client/refusal-checks';
import { ResealClient } from '../../../client/reseal-client';
import type { OutcomeFilter } from '../../../shared/ports/lineage-store';
import { TEST_CLIENT_OUTPUTS } from '../../helpers/factories';
import { InMemoryLineageStore } from '../../helpers/in-memory-lineage-store';
import { signedRejection } from '../../helpers/outcome-factories';
import { TEST_CLIENT_KEYS } from '../../helpers/pipeline-keys';
import { TEST_LINEAGE_ID, TEST_NOW_MS, testAnchor } from '../../helpers/seal-factories';

/** One outcome read of the wait: when (ms since it began), which, and how. */
interface Read {
  readonly atMs: number;
  readonly read: string;
  readonly eventual: boolean;
  readonly sinceMs?: number;
}

/**
 * A client on an in-memory table whose marker and refusal reads are logged with the fake clock's
 * time (its sleeps advance it); `onSleep(n)` runs after the n-th sleep (to land a refusal).
 */
function loggedWait(store: InMemoryLineageStore, onSleep: (n: number) => Promise<void> = async () => {}) {
  const clock = { now: TEST_NOW_MS };
  const reads: Read[] = [];
  const log = (read: string, options: (OutcomeFilter & { eventual?: boolean }) | undefined) =>
    reads.push({
      atMs: clock.now - TEST_NOW_MS,
      read,
      eventual: options?.eventual === true,
      ...(options && 'sinceMs' in options ? { sinceMs: options.sinceMs as number } : {}),
    });
  const logged = new Proxy(store, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (typeof value !== 'function') return value;
      if (name === 'findByResidualId')
        return (lineageId: string, residualId: string, options?: { eventual?: boolean }) => {
          log('marker', options);
          return value.call(target, lineageId, residualId, options);
        };
      if (name === 'listRejections' || name === 'listConflicts')
        return (lineageId: string, options?: OutcomeFilter) => {
          log(name === 'listRejections' ? 'rejections' : 'conflicts', options);
          return value.call(target, lineageId, options);
        };
      return value.bind(target);
    },
  });
  let sleeps = 0;
  const client = new ResealClient(TEST_CLIENT_OUTPUTS, {
    ...TEST_CLIENT_KEYS,
    store: logged,
    anchor: testAnchor(),
    nowMs: () => clock.now,
    sleep: async (ms) => {
      clock.now += ms;
      await onSleep(++sleeps);
    },
  });
  return { client, reads, clock };
}

const SINCE_MS = TEST_NOW_MS - 5_000;

// docs/pipeline.md, "Polling the table": until the write shows, every poll reads the marker (a
// copy, half a unit) but the refusals (two Queries) only on a backoff; the deadline reads all.
describe('WriteOutcomes.waitFor: the refusals are read on a backoff until the write shows', () => {
  it('a poll reads the marker alone between refusal checks (at 0, 1, 3, 7, 11 s); the deadline reads all strongly', async () => {
    const { client, reads } = loggedWait(new InMemoryLineageStore());
    await expect(
      client.waitForOutcome(TEST_LINEAGE_ID, 'r-never', { sinceMs: SINCE_MS, timeoutMs: 12_000, pollIntervalMs: 500 }),
    ).rejects.toBeInstanceOf(TimeoutError);
    const polls = reads.filter((r) => r.eventual && r.read === 'marker').map((r) => r.atMs);
    expect(polls).toEqual(Array.from({ length: 24 }, (_, i) => i * 500));
    const checks = (read: string) => reads.filter((r) => r.eventual && r.read === read).map((r) => r.atMs);
    expect(checks('rejections')).toEqual([0, 1_000, 3_000, 7_000, 11_000]);
    expect(checks('conflicts')).toEqual([0, 1_000, 3_000, 7_000, 11_000]);
    // 24 polls: 12 units of marker copies and 5 units of refusal copies, against 36 when each
    // poll read the refusals too.
    const units = reads.filter((r) => r.eventual).length / 2;
    expect(units).toBe(17);
    // The deadline's attempt: the marker and both refusal queries, strongly, whatever was due.
    const last = reads.filter((r) => !r.eventual && r.atMs === 12_000).map((r) => r.read);
    expect(last.slice(0, 3)).toEqual(['marker', 'rejections', 'conflicts']);
    // Every rejection query is bounded by the wait's sinceMs (the store reads none filed before).
    expect(reads.filter((r) => r.read === 'rejections').every((r) => r.sinceMs === SINCE_MS)).toBe(true);
  });

  it('a refusal landing between two refusal checks answers at the next one (within the 4 s cap)', async () => {
    const store = new InMemoryLineageStore();
    const rejection = await signedRejection('r-late', { atMs: TEST_NOW_MS + 1_500 });
    // Lands after the third sleep (1.5 s), just past the check at 1 s; the next check is at 3 s.
    const { client, clock } = loggedWait(store, async (n) => {
      if (n === 3) await store.recordRejection(rejection);
    });
    const outcome = await client.waitForOutcome(TEST_LINEAGE_ID, 'r-late', { sinceMs: SINCE_MS, pollIntervalMs: 500 });
    expect(outcome).toMatchObject({ kind: 'REJECTED', rejection });
    expect(clock.now - TEST_NOW_MS).toBe(3_000);
  });

  it('a refusal landing late in the wait answers within the cap, at the latest at the deadline', async () => {
    const store = new InMemoryLineageStore();
    const rejection = await signedRejection('r-later', { atMs: TEST_NOW_MS + 7_500 });
    // After the 15th sleep (7.5 s): the checks are at 7 s and 11 s, the deadline at 9 s.
    const { client, clock } = loggedWait(store, async (n) => {
      if (n === 15) await store.recordRejection(rejection);
    });
    const outcome = await client.waitForOutcome(TEST_LINEAGE_ID, 'r-later', {
      sinceMs: SINCE_MS,
      timeoutMs: 9_000,
      pollIntervalMs: 500,
    });
    expect(outcome).toMatchObject({ kind: 'REJECTED', rejection });
    expect(clock.now - TEST_NOW_MS).toBe(9_000);
  });

  it('a refusal there before the wait answers at its first poll', async () => {
    const store = new InMemoryLineageStore();
    const rejection = await signedRejection('r-early', { atMs: TEST_NOW_MS });
    await store.recordRejection(rejection);
    const { client, clock } = loggedWait(store);
    const outcome = await client.waitForOutcome(TEST_LINEAGE_ID, 'r-early', { sinceMs: SINCE_MS });
    expect(outcome).toMatchObject({ kind: 'REJECTED', rejection });
    expect(clock.now).toBe(TEST_NOW_MS);
  });
});

describe('RefusalChecks', () => {
  it('is due at the first poll, then after twice the poll interval, doubling to 4 s', () => {
    const checks = new RefusalChecks(500);
    const due = Array.from({ length: 40 }, (_, i) => i * 500).filter((t) => checks.due(t));
    expect(due).toEqual([0, 1_000, 3_000, 7_000, 11_000, 15_000, 19_000]);
  });

  it('a poll interval past the cap reads the refusals every poll', () => {
    const checks = new RefusalChecks(5_000);
    expect([0, 5_000, 10_000].map((t) => checks.due(t))).toEqual([true, true, true]);
  });
});
