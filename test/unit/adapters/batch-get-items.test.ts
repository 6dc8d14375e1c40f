import { type AttributeValue, BatchGetItemCommand } from '@aws-sdk/client-dynamodb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BATCH_GET_LIMIT, batchGetItems } from '../../../adapters/batch-get-items';
import { DynamoDBDeploymentLogStore } from '../../../adapters/dynamodb-deployment-log-store';
import { LineageKeys } from '../../../adapters/lineage-keys';
import {
  MAX_UNPROCESSED_ROUNDS,
  retryUnprocessed,
  UnprocessedAfterRetriesError,
} from '../../../adapters/retry-unprocessed';
import { answeringDynamoDB } from '../../helpers/answering-dynamodb';

const TABLE = 'reseal-table';
type Item = Record<string, AttributeValue>;

const keyOf = (i: number): Item => ({ pk: { S: `P#${i}` }, sk: { S: 'S' } });

/**
 * A table of the items `present` behind `BatchGetItem` that leaves the last `unprocessed(call)`
 * keys of each call unprocessed (as DynamoDB does under throttling); `calls` records each call's keys.
 */
function throttledTable(present: readonly Item[], unprocessed: (call: number) => number) {
  const calls: Item[][] = [];
  const client = answeringDynamoDB(async (command) => {
    if (!(command instanceof BatchGetItemCommand)) throw new Error('unexpected command');
    const keys = (command.input.RequestItems?.[TABLE]?.Keys ?? []) as Item[];
    calls.push(keys);
    const left = Math.min(keys.length, unprocessed(calls.length - 1));
    const served = keys.slice(0, keys.length - left);
    return {
      Responses: { [TABLE]: present.filter((item) => served.some((key) => key.pk?.S === item.pk?.S)) },
      ...(left > 0 ? { UnprocessedKeys: { [TABLE]: { Keys: keys.slice(keys.length - left) } } } : {}),
    };
  });
  return { client, calls };
}

describe('BatchGetItem UnprocessedKeys are sent again (adapters/retry-unprocessed.ts)', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it(`splits keys into calls of ${BATCH_GET_LIMIT} and sends the unprocessed ones again until every present item is read`, async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0); // no wait between rounds
    const keys = Array.from({ length: 230 }, (_, i) => keyOf(i));
    const present: Item[] = keys.filter((_, i) => i % 3 !== 0).map((key) => ({ ...key, v: { S: 'x' } }));
    // The first two calls of each batch leave 40 and then 7 keys unprocessed.
    const { client, calls } = throttledTable(present, (call) => [40, 7, 0, 40, 7, 0, 40, 7, 0][call] ?? 0);
    const found = await batchGetItems(client, TABLE, keys, { consistentRead: true });
    expect(found.map((item) => item.pk?.S).sort()).toEqual(present.map((item) => item.pk?.S).sort());
    expect(calls.map((call) => call.length)).toEqual([100, 40, 7, 100, 40, 7, 30, 30, 7]);
    expect(calls[1]).toEqual(keys.slice(60, 100));
  });

  it(`fails with UnprocessedAfterRetriesError after ${MAX_UNPROCESSED_ROUNDS} rounds that leave keys unprocessed, never a partial answer`, async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    const keys = [keyOf(1), keyOf(2)];
    const { client, calls } = throttledTable(
      keys.map((key) => ({ ...key })),
      () => 1,
    );
    const error = await batchGetItems(client, TABLE, keys, { consistentRead: false }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnprocessedAfterRetriesError);
    expect((error as UnprocessedAfterRetriesError).left).toBe(1);
    expect(calls).toHaveLength(MAX_UNPROCESSED_ROUNDS);
  });

  it('a deployment-log node read whose keys stay unprocessed fails instead of reading the nodes as missing', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    const leaf = { pk: { S: LineageKeys.deploymentLog }, sk: { S: LineageKeys.deploymentLeaf(0) }, nodes: { S: '[]' } };
    const { client } = throttledTable([leaf], () => 1);
    const store = new DynamoDBDeploymentLogStore(client, TABLE);
    await expect(store.readNodes([{ level: 0, index: 0 }])).rejects.toBeInstanceOf(UnprocessedAfterRetriesError);
  });

  it('waits before each retry with full jitter, at most 1 s, and not before the first call', async () => {
    vi.useFakeTimers();
    try {
      vi.spyOn(Math, 'random').mockReturnValue(0.999);
      const rounds: number[] = [];
      const done = retryUnprocessed(
        ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'],
        async (pending) => {
          rounds.push(Date.now());
          return pending.slice(1);
        },
        'test',
      );
      await vi.runAllTimersAsync();
      await done;
      const waits = rounds.slice(1).map((at, i) => at - (rounds[i] as number));
      // 25 ms · 2^round, capped at 1 s, times the jitter (0.999 here, whole ms on the fake clock): the eighth round is the last.
      expect(rounds).toHaveLength(MAX_UNPROCESSED_ROUNDS);
      expect(waits).toEqual([49, 99, 199, 399, 799, 999, 999]);
    } finally {
      vi.useRealTimers();
    }
  });
});
