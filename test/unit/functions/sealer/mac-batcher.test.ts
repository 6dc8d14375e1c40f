import { describe, expect, it, vi } from 'vitest';
import { MAC_BATCH_WAIT_MS, MacBatcher, recordMacBatcher } from '../../../../functions/sealer/mac-batcher';
import type { HexDigest } from '../../../../shared/canonical/digest';
import { headStateBatchMessage } from '../../../../shared/log/head-state-batch';
import {
  type HeadState,
  type HeadStateMac,
  headStateDigest,
  verifyHeadStateMac,
} from '../../../../shared/log/head-state-mac';
import type { MacAnchor } from '../../../../shared/ports/mac-anchor';
import { testAnchor } from '../../../helpers/seal-factories';

/** A head state of lineage `lineage-<i>`. */
function state(i: number): HeadState {
  return {
    lineageId: `lineage-${i}`,
    treeSize: i + 1,
    rootHash: 'ab'.repeat(32),
    headSeq: i,
    headRecordHash: 'cd'.repeat(32),
    generationEpoch: 0,
    writerPolicyDigest: null,
  };
}

/** Lets every pending callback run (the batcher fires from within a member's call). */
const settle = () => new Promise((resolve) => setImmediate(resolve));

/**
 * A batcher of head states (the batch MAC a reader still verifies: shared/log/head-state-mac.ts):
 * the generic batcher under test, with answers any reader can check.
 */
function headMacBatcher(anchor: MacAnchor, maxAsks?: number, waitMs?: number): MacBatcher<HeadState, HeadStateMac> {
  return new MacBatcher<HeadState, HeadStateMac>(
    async (states) => {
      const heads = [...new Set(states.map(headStateDigest))].sort();
      const mac: HeadStateMac =
        heads.length === 1
          ? await anchor.generateMac(Buffer.from(heads[0] as HexDigest, 'hex'))
          : { ...(await anchor.generateMac(headStateBatchMessage(heads))), heads };
      return states.map(() => mac);
    },
    maxAsks,
    waitMs,
  );
}

function setup(maxHeads?: number, waitMs?: number) {
  const anchor = testAnchor();
  const generateMac = vi.spyOn(anchor, 'generateMac');
  return { anchor, generateMac, batcher: headMacBatcher(anchor, maxHeads, waitMs) };
}

describe('MacBatcher: one GenerateMac for what the runs of a sealer invocation ask (docs/pipeline.md, "Concurrency"; asks: head states, batch MACs any reader verifies)', () => {
  it('fires once every member asked: one GenerateMac, one batch MAC that verifies for each state', async () => {
    const { anchor, generateMac, batcher } = setup();
    const members = [0, 1, 2].map(() => batcher.join());
    const first = members[0]?.mac(state(0));
    const second = members[1]?.mac(state(1));
    await settle();
    expect(generateMac).not.toHaveBeenCalled(); // member 2 has neither asked nor left
    const third = members[2]?.mac(state(2));
    const macs = await Promise.all([first, second, third]);
    expect(generateMac).toHaveBeenCalledTimes(1);
    expect(new Set(macs.map((m) => JSON.stringify(m))).size).toBe(1);
    expect(macs[0]?.heads).toEqual([0, 1, 2].map((i) => headStateDigest(state(i))).sort());
    for (const i of [0, 1, 2]) expect(await verifyHeadStateMac(state(i), macs[i], anchor)).toBe(true);
    for (const member of members) member.leave();
  });

  it('a member that leaves without a head state (refused, conflict, error) does not hold the batch back', async () => {
    const { anchor, generateMac, batcher } = setup();
    const [a, b, c] = [batcher.join(), batcher.join(), batcher.join()];
    const macA = a.mac(state(0));
    b.leave();
    await settle();
    expect(generateMac).not.toHaveBeenCalled();
    // A run that throws leaves in its `finally`: the batch fires without it.
    const failing = (async () => {
      try {
        throw new Error('DynamoDB unavailable');
      } finally {
        c.leave();
      }
    })();
    await expect(failing).rejects.toThrow('DynamoDB unavailable');
    const mac = await macA;
    expect(generateMac).toHaveBeenCalledTimes(1);
    // A batch of one head is that head's own MAC: the single form, no `heads`.
    expect(mac).not.toHaveProperty('heads');
    expect(Buffer.from(generateMac.mock.calls[0]?.[0] ?? []).toString('hex')).toBe(headStateDigest(state(0)));
    expect(await verifyHeadStateMac(state(0), mac, anchor)).toBe(true);
    a.leave();
  });

  it('every member leaving without a head state makes no MAC at all; leave is idempotent', async () => {
    const { generateMac, batcher } = setup();
    const members = [batcher.join(), batcher.join()];
    for (const member of members) {
      member.leave();
      member.leave();
    }
    await settle();
    expect(generateMac).not.toHaveBeenCalled();
  });

  it('after the batch fired, a retry (lost race), a second run or a late member gets a MAC of its own', async () => {
    const { anchor, generateMac, batcher } = setup();
    const [a, b] = [batcher.join(), batcher.join()];
    const [macA, macB] = await Promise.all([a.mac(state(0)), b.mac(state(1))]);
    expect(macA.heads).toHaveLength(2);
    expect(macB).toEqual(macA);
    // The append failed (lost race): the retry's new head is MAC'd alone, at once, while b is still in.
    const retry = await a.mac({ ...state(0), treeSize: 9 });
    expect(retry).not.toHaveProperty('heads');
    expect(await verifyHeadStateMac({ ...state(0), treeSize: 9 }, retry, anchor)).toBe(true);
    const late = batcher.join();
    expect(await late.mac(state(5))).not.toHaveProperty('heads');
    expect(generateMac).toHaveBeenCalledTimes(3);
    for (const member of [a, b, late]) member.leave();
  });

  it('fires when maxHeads heads wait, even with members still to ask; those get their own', async () => {
    const { generateMac, batcher } = setup(2);
    const members = [0, 1, 2].map(() => batcher.join());
    const macs = await Promise.all([members[0]?.mac(state(0)), members[1]?.mac(state(1))]);
    expect(macs[0]?.heads).toHaveLength(2);
    expect(await members[2]?.mac(state(2))).not.toHaveProperty('heads');
    expect(generateMac).toHaveBeenCalledTimes(2);
    expect(() => headMacBatcher(testAnchor(), 0)).toThrow(RangeError);
    expect(() => headMacBatcher(testAnchor(), 65)).toThrow(RangeError);
  });

  it('a GenerateMac that fails fails every member waiting on it (their groups are retried), and nothing hangs', async () => {
    const { generateMac, batcher } = setup();
    generateMac.mockRejectedValueOnce(new Error('KMS throttled'));
    const [a, b] = [batcher.join(), batcher.join()];
    const results = await Promise.allSettled([a.mac(state(0)), b.mac(state(1))]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
  });

  it('fires at its deadline after the first ask: a member that hangs holds the others no longer; it gets a MAC of its own', async () => {
    const { anchor, generateMac, batcher } = setup(undefined, 50);
    const [a, b, hanging] = [batcher.join(), batcher.join(), batcher.join()];
    const started = Date.now();
    const [macA, macB] = await Promise.all([a.mac(state(0)), b.mac(state(1))]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    expect(macA.heads).toEqual([0, 1].map((i) => headStateDigest(state(i))).sort());
    expect(macB).toEqual(macA);
    const late = await hanging.mac(state(2));
    expect(late).not.toHaveProperty('heads');
    expect(await verifyHeadStateMac(state(2), late, anchor)).toBe(true);
    expect(generateMac).toHaveBeenCalledTimes(2);
    expect(() => headMacBatcher(anchor, 64, -1)).toThrow(RangeError);
  }, 5_000);

  it('the record batcher: runs ask with their records and get their places in one batch, runs in the order they asked', async () => {
    const anchor = testAnchor();
    const generateMac = vi.spyOn(anchor, 'generateMac');
    const batcher = recordMacBatcher(anchor);
    const [a, b] = [batcher.join(), batcher.join()];
    const hash = (i: number) => String(i).repeat(64);
    const asked = (from: number, count: number) =>
      Array.from({ length: count }, (_, i) => ({
        recordHash: hash(from + i),
        message: Buffer.from(`header ${from + i}`),
      }));
    const [macsA, macsB] = await Promise.all([a.mac(asked(1, 2)), b.mac(asked(3, 1))]);
    expect(generateMac).toHaveBeenCalledTimes(1);
    expect([...macsA, ...macsB].map((m) => m.macBatch?.index)).toEqual([0, 1, 2]);
    expect(new Set([...macsA, ...macsB].map((m) => m.anchor.mac)).size).toBe(1);
    // After the batch fired, a run's records are a batch of their own.
    const late = await batcher.join().mac(asked(5, 2));
    expect(late.map((m) => m.macBatch?.size)).toEqual([2, 2]);
    expect(generateMac).toHaveBeenCalledTimes(2);
  });

  it('a batch that fires before its deadline (every member asked) fires once: the deadline is cleared', async () => {
    const { generateMac, batcher } = setup(undefined, 20);
    const [a, b] = [batcher.join(), batcher.join()];
    const first = a.mac(state(0));
    await settle();
    await Promise.all([first, b.mac(state(1))]);
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(generateMac).toHaveBeenCalledTimes(1);
  });

  it(`the deadline is ${MAC_BATCH_WAIT_MS} ms by default`, () => {
    expect(MAC_BATCH_WAIT_MS).toBe(1_000);
  });
});
