import { describe, expect, it } from 'vitest';
import { pollUntil } from '../../../client/poll';

/** A fake clock: `sleep` advances `now` and records each wait. */
function fakeClock() {
  const clock = { now: 0, sleeps: [] as number[] };
  return {
    clock,
    nowMs: () => clock.now,
    sleep: async (ms: number) => {
      clock.sleeps.push(ms);
      clock.now += ms;
    },
  };
}

describe('pollUntil: the one poll loop of every wait', () => {
  it('returns the first value that is not null, sleeping the interval between attempts', async () => {
    const time = fakeClock();
    const answers = [null, null, 'found'];
    const found = await pollUntil(async () => answers.shift() ?? null, time, {
      timeoutMs: 1000,
      pollIntervalMs: 100,
      timedOut: () => new Error('timed out'),
    });
    expect(found).toBe('found');
    expect(time.clock.sleeps).toEqual([100, 100]);
  });

  it('never sleeps past the deadline, tries once more at it, then throws what timedOut gives', async () => {
    const time = fakeClock();
    let attempts = 0;
    const wait = pollUntil(
      async () => {
        attempts++;
        return null;
      },
      time,
      { timeoutMs: 250, pollIntervalMs: 100, timedOut: (ms) => new Error(`nothing after ${ms} ms`) },
    );
    await expect(wait).rejects.toThrow('nothing after 250 ms');
    expect(time.clock.sleeps).toEqual([100, 100, 50]);
    expect(attempts).toBe(4);
  });

  it('defaults to 60 s and 500 ms; an error from an attempt ends the wait at once', async () => {
    const time = fakeClock();
    await expect(pollUntil(async () => null, time, { timedOut: (ms) => new Error(`after ${ms}`) })).rejects.toThrow(
      'after 60000',
    );
    expect(time.clock.sleeps.length).toBe(120);
    expect(new Set(time.clock.sleeps)).toEqual(new Set([500]));
    const failing = fakeClock();
    await expect(
      pollUntil(
        async () => {
          throw new Error('refused');
        },
        failing,
        { timedOut: () => new Error('timed out') },
      ),
    ).rejects.toThrow('refused');
    expect(failing.clock.sleeps).toEqual([]);
  });
});
