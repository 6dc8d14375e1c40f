import { type AttributeValue, GetItemCommand, PutItemCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { DynamoDBLineageStore } from '../../../adapters/dynamodb-lineage-store';
import type { LineageStore } from '../../../shared/ports/lineage-store';
import { answeringDynamoDB } from '../../helpers/answering-dynamodb';
import { InMemoryLineageStore } from '../../helpers/in-memory-lineage-store';
import { staleEpochConflict, staleRejection } from '../../helpers/outcome-factories';
import { TEST_LINEAGE_ID, TEST_NOW_MS } from '../../helpers/seal-factories';

type Item = Record<string, AttributeValue>;

/**
 * A table that understands exactly the calls the outcome reads and writes make: conditional
 * PutItem, and Query on `pk` with an optional `begins_with(sk, :prefix)` and `residualId = :residualId`
 * filter, answered in sk order two items per page (so pagination is exercised).
 */
function fakeTable() {
  const items: Item[] = [];
  const queries: QueryCommand[] = [];
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
        .sort((a, b) => ((a.sk?.S ?? '') < (b.sk?.S ?? '') ? -1 : 1));
      const start = command.input.ExclusiveStartKey
        ? matching.findIndex((i) => i.sk?.S === command.input.ExclusiveStartKey?.sk?.S) + 1
        : 0;
      const page = matching.slice(start, start + 2);
      const last = page.at(-1);
      const more = start + 2 < matching.length;
      return {
        // A filter is applied after the page is read, as DynamoDB does.
        Items: page.filter((i) => values[':residualId'] === undefined || i.residualId?.S === values[':residualId']?.S),
        ...(more && last ? { LastEvaluatedKey: { pk: last.pk, sk: last.sk } } : {}),
      };
    }
    throw new Error(`unexpected command ${String(command)}`);
  });
  return { client, items, queries };
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
