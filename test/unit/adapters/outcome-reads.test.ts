import { type AttributeValue, GetItemCommand, PutItemCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { DynamoDBLineageStore } from '../../../adapters/dynamodb-lineage-store';
import { LineageKeys } from '../../../adapters/lineage-keys';
import type { LineageStore } from '../../../shared/ports/lineage-store';
import { answeringDynamoDB } from '../../helpers/answering-dynamodb';
import { InMemoryLineageStore } from '../../helpers/in-memory-lineage-store';
import { staleEpochConflict, staleRejection } from '../../helpers/outcome-factories';
import { TEST_LINEAGE_ID, TEST_NOW_MS } from '../../helpers/seal-factories';

type Item = Record<string, AttributeValue>;

/**
 * A table that understands exactly the calls the outcome reads and writes make: conditional
 * PutItem, and Query on `pk` with an optional `begins_with(sk, :prefix)` or `sk >= :since` and
 * `residualId = :residualId` filter, answered in sk order two items per page (so pagination is
 * exercised); `read` counts the items the queries read before their filter (what DynamoDB bills).
 */
function fakeTable() {
  const items: Item[] = [];
  const queries: QueryCommand[] = [];
  const read = { items: 0 };
  const client = answeringDynamoDB(async (command: unknown) => {
    if (command instanceof PutItemCommand) {
      const item = command.input.Item as Item;
      if (items.some((i) => i.pk?.S === item.pk?.S && i.sk?.S === item.sk?.S)) {
        throw Object.assign(new Error('exists'), { name: 'ConditionalCheckFailedException' });
      }
      items.push(item);
      return {};
    }
    if (command instanceof QueryCommand) {
      queries.push(command);
      const values = command.input.ExpressionAttributeValues ?? {};
      const matching = items
        .filter((i) => i.pk?.S === values[':pk']?.S)
        .filter((i) => values[':prefix'] === undefined || (i.sk?.S ?? '').startsWith(values[':prefix']?.S ?? ''))
        .filter((i) => values[':since'] === undefined || (i.sk?.S ?? '') >= (values[':since']?.S ?? ''))
        .sort((a, b) => ((a.sk?.S ?? '') < (b.sk?.S ?? '') ? -1 : 1));
      const start = command.input.ExclusiveStartKey
        ? matching.findIndex((i) => i.sk?.S === command.input.ExclusiveStartKey?.sk?.S) + 1
        : 0;
      const page = matching.slice(start, start + 2);
      const last = page.at(-1);
      const more = start + 2 < matching.length;
      read.items += page.length;
      return {
        // A filter is applied after the page is read, as DynamoDB does.
        Items: page.filter((i) => values[':residualId'] === undefined || i.residualId?.S === values[':residualId']?.S),
        ...(more && last ? { LastEvaluatedKey: { pk: last.pk, sk: last.sk } } : {}),
      };
    }
    throw new Error(`unexpected command ${String(command)}`);
  });
  return { client, items, queries, read };
}

const stores: [string, () => { store: LineageStore; queries?: QueryCommand[] }][] = [
  ['InMemoryLineageStore', () => ({ store: new InMemoryLineageStore() })],
  [
    'DynamoDBLineageStore',
    () => {
      const table = fakeTable();
      return { store: new DynamoDBLineageStore(table.client, 'reseal-table'), queries: table.queries };
    },
  ],
];

describe.each(stores)('%s outcome reads (listConflicts, listRejections)', (_name, make) => {
  it('lists a lineage’s conflicts as typed records, oldest first, all pages; other lineages excluded', async () => {
    const { store } = make();
    const late = staleEpochConflict('r-a', { atMs: TEST_NOW_MS + 2000, observedHead: null });
    const early = staleEpochConflict('r-b', {
      atMs: TEST_NOW_MS,
      reason: 'LOST_RACE',
      detail: 'lost the head 5 times',
      expectedHead: {
        lineageId: TEST_LINEAGE_ID,
        seq: 3,
        recordHash: 'a'.repeat(64),
        generationEpoch: 2,
        mac: `${'A'.repeat(43)}=`,
        keyId: 'test-key-1',
      },
    });
    const again = staleEpochConflict('r-a', { atMs: TEST_NOW_MS + 1000 });
    for (const c of [late, early, again, staleEpochConflict('r-c', { lineageId: 'other-lineage' })]) {
      await store.recordConflict(c);
    }
    expect(await store.listConflicts(TEST_LINEAGE_ID)).toEqual([early, again, late]);
    expect(await store.listConflicts(TEST_LINEAGE_ID, { residualId: 'r-a' })).toEqual([again, late]);
    expect(await store.listConflicts(TEST_LINEAGE_ID, { residualId: 'r' })).toEqual([]);
    expect(await store.listConflicts('no-such-lineage')).toEqual([]);
  });

  it('lists a lineage’s rejections as typed records, oldest first; by residual id; unparsed bodies are not listed', async () => {
    const { store } = make();
    const second = staleRejection('r-1', { atMs: TEST_NOW_MS + 5, messageId: 'm-2' });
    const first = staleRejection('r-1', { atMs: TEST_NOW_MS, messageId: 'm-1' });
    const schema = staleRejection('r-2', {
      reason: 'SCHEMA_VIOLATION',
      verdictDigest: null,
      rejectedVariables: [],
      issues: [{ path: 'priority', message: 'unknown field' }],
      atMs: TEST_NOW_MS + 1,
    });
    const noResidual = staleRejection('x', { residualId: null, verdictDigest: null, atMs: TEST_NOW_MS + 2 });
    const unparsed = staleRejection('y', { lineageId: null, residualId: null, reason: 'MALFORMED_JSON' });
    for (const r of [second, first, schema, noResidual, unparsed]) await store.recordRejection(r);
    await store.recordRejection(first); // a redelivery: the same fact, not a second record
    expect(await store.listRejections(TEST_LINEAGE_ID)).toEqual([first, schema, noResidual, second]);
    expect(await store.listRejections(TEST_LINEAGE_ID, { residualId: 'r-1' })).toEqual([first, second]);
    expect(await store.listRejections(TEST_LINEAGE_ID, { residualId: 'r-9' })).toEqual([]);
  });

  it('returns copies: editing a listed record does not change the store', async () => {
    const { store } = make();
    await store.recordRejection(staleRejection('r-1'));
    const [listed] = await store.listRejections(TEST_LINEAGE_ID);
    (listed as { reason: string }).reason = 'EDITED';
    expect((await store.listRejections(TEST_LINEAGE_ID))[0]?.reason).toBe('STALE_STATE');
  });
});

describe('DynamoDBLineageStore outcome queries', () => {
  it('conflicts: one strongly consistent Query on LINEAGE#<id> with an sk prefix (CONFLICT#<residualId># for one write)', async () => {
    const { client, queries } = fakeTable();
    const store = new DynamoDBLineageStore(client, 'reseal-table');
    await store.listConflicts(TEST_LINEAGE_ID, { residualId: 'r-1' });
    expect(queries[0]?.input).toMatchObject({
      TableName: 'reseal-table',
      ConsistentRead: true,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': { S: `LINEAGE#${TEST_LINEAGE_ID}` }, ':prefix': { S: 'CONFLICT#r-1#' } },
    });
  });

  it('rejections: Query on REJECTION#<id>, filtered on residualId for one write', async () => {
    const { client, queries } = fakeTable();
    const store = new DynamoDBLineageStore(client, 'reseal-table');
    await store.listRejections(TEST_LINEAGE_ID, { residualId: 'r-1' });
    expect(queries[0]?.input).toMatchObject({
      KeyConditionExpression: 'pk = :pk',
      FilterExpression: 'residualId = :residualId',
      ExpressionAttributeValues: { ':pk': { S: `REJECTION#${TEST_LINEAGE_ID}` }, ':residualId': { S: 'r-1' } },
      ConsistentRead: true,
    });
  });

  it('rejections since a time: the time bounds the key (sk >= its ISO), so older rejections are never read', async () => {
    const { client, queries, read } = fakeTable();
    const store = new DynamoDBLineageStore(client, 'reseal-table');
    // A lineage anyone who can send to the queue filled with 1,000 rejections, before this write.
    for (let i = 0; i < 1_000; i++) {
      await store.recordRejection(
        staleRejection(`r-old-${i % 10}`, { atMs: TEST_NOW_MS - 60_000 + i, messageId: `m-${i}` }),
      );
    }
    const mine = staleRejection('r-1', { atMs: TEST_NOW_MS, messageId: 'm-mine' });
    await store.recordRejection(mine);
    await store.recordRejection(staleRejection('r-1', { atMs: TEST_NOW_MS - 5_001, messageId: 'm-earlier' }));
    await store.recordRejection(staleRejection('r-2', { atMs: TEST_NOW_MS + 1, messageId: 'm-other' }));
    read.items = 0;
    const since = TEST_NOW_MS - 5_000;
    expect(await store.listRejections(TEST_LINEAGE_ID, { residualId: 'r-1', sinceMs: since })).toEqual([mine]);
    expect(queries.at(-1)?.input).toMatchObject({
      KeyConditionExpression: 'pk = :pk AND sk >= :since',
      FilterExpression: 'residualId = :residualId',
      ExpressionAttributeValues: {
        ':pk': { S: `REJECTION#${TEST_LINEAGE_ID}` },
        ':since': { S: new Date(since).toISOString() },
        ':residualId': { S: 'r-1' },
      },
    });
    // Only the two filed since (this write's and another's) are read; without the bound, all 1,003.
    expect(read.items).toBe(2);
    read.items = 0;
    expect(await store.listRejections(TEST_LINEAGE_ID, { residualId: 'r-1' })).toHaveLength(2);
    expect(read.items).toBe(1_003);
  });

  it.each([
    ['negative (before 1970)', -5_000, '1969-12-31T23:59:55.000Z'],
    ['fractional (rounded up: no earlier ms qualifies)', 1_500.2, '1970-01-01T00:00:01.501Z'],
    ['before year 0000 (no ISO that sorts)', -62_167_219_200_001, null],
    ['past year 9999', 253_402_300_800_000, null],
    ['not finite', Number.NEGATIVE_INFINITY, null],
    ['not a number', Number.NaN, null],
  ])('rejections since a time %s: a key bound that sorts as times do, or none', async (_, sinceMs, floor) => {
    expect(LineageKeys.rejectionSkFloor(sinceMs)).toBe(floor);
    const { client, queries } = fakeTable();
    const store = new DynamoDBLineageStore(client, 'reseal-table');
    await store.listRejections(TEST_LINEAGE_ID, { residualId: 'r-1', sinceMs });
    expect(queries[0]?.input.KeyConditionExpression).toBe(floor === null ? 'pk = :pk' : 'pk = :pk AND sk >= :since');
    expect(queries[0]?.input.ExpressionAttributeValues?.[':since']).toEqual(floor === null ? undefined : { S: floor });
  });

  it('the rejection sort key of the earliest and latest four-digit-year times sorts as those times', () => {
    const first = LineageKeys.rejectionSkFloor(-62_167_219_200_000);
    const last = LineageKeys.rejectionSkFloor(253_402_300_799_999);
    expect(first).toBe('0000-01-01T00:00:00.000Z');
    expect(last).toBe('9999-12-31T23:59:59.999Z');
    expect(LineageKeys.rejectionSk(TEST_NOW_MS, 'm') > (first as string)).toBe(true);
    expect(LineageKeys.rejectionSk(TEST_NOW_MS, 'm') < (last as string)).toBe(true);
  });

  it('a caller asking for a copy (a wait before its write shows) gets eventually consistent reads of the refusals and the marker', async () => {
    const { client, queries } = fakeTable();
    const store = new DynamoDBLineageStore(client, 'reseal-table');
    await store.listConflicts(TEST_LINEAGE_ID, { residualId: 'r-1', eventual: true });
    await store.listRejections(TEST_LINEAGE_ID, { residualId: 'r-1', eventual: true });
    expect(queries.map((q) => q.input.ConsistentRead)).toEqual([false, false]);
    const gets: GetItemCommand[] = [];
    const markers = new DynamoDBLineageStore(
      answeringDynamoDB(async (command: unknown) => {
        if (command instanceof GetItemCommand) gets.push(command);
        return {};
      }),
      'reseal-table',
    );
    expect(await markers.findByResidualId(TEST_LINEAGE_ID, 'r-1', { eventual: true })).toBeNull();
    expect(await markers.findByResidualId(TEST_LINEAGE_ID, 'r-1')).toBeNull();
    expect(gets.map((g) => g.input.ConsistentRead)).toEqual([false, true]);
  });

  it('an item whose JSON attributes no longer parse reads as empty lists / null, never throws', async () => {
    const { client, items } = fakeTable();
    const store = new DynamoDBLineageStore(client, 'reseal-table');
    await store.recordRejection(staleRejection('r-1'));
    await store.recordConflict(staleEpochConflict('r-1'));
    for (const item of items) {
      for (const name of ['issues', 'rejectedVariables', 'attemptedHeader', 'expectedHead']) {
        if (item[name]) item[name] = { S: '{broken' };
      }
    }
    expect((await store.listRejections(TEST_LINEAGE_ID))[0]).toMatchObject({ issues: [], rejectedVariables: [] });
    expect((await store.listConflicts(TEST_LINEAGE_ID))[0]).toMatchObject({
      attemptedHeader: null,
      expectedHead: null,
    });
  });
});
