import { type AttributeValue, BatchGetItemCommand, GetItemCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { deploymentLeafItem } from '../../../adapters/deployment-leaf-item';
import { DynamoDBDeploymentLogStore } from '../../../adapters/dynamodb-deployment-log-store';
import { DynamoDBLineageStore } from '../../../adapters/dynamodb-lineage-store';
import { itemOf } from '../../../adapters/item';
import { LineageKeys } from '../../../adapters/lineage-keys';
import { answeringDynamoDB } from '../../helpers/answering-dynamodb';
import { TEST_LINEAGE_ID } from '../../helpers/seal-factories';

const TABLE = 'reseal-table';
type Item = Record<string, AttributeValue>;

/** One read the fake table answered: the command, how many keys, and whether it was strongly consistent. */
interface Read {
  readonly op: 'GetItem' | 'BatchGetItem' | 'Query';
  readonly keys: number;
  readonly consistent: boolean;
}

const keyOf = (key: Item | undefined) => `${key?.pk?.S}|${key?.sk?.S}`;

/**
 * A table of `items` that counts its reads; a key in `stale` was written a moment ago, so an
 * eventually consistent read does not see it yet (a strongly consistent one does).
 */
function countingTable(items: readonly Item[], stale: readonly Item[] = []) {
  const byKey = new Map(items.map((item) => [keyOf(item), item]));
  const justWritten = new Set(stale.map(keyOf));
  const reads: Read[] = [];
  const visible = (key: Item | undefined, consistent: boolean) =>
    consistent || !justWritten.has(keyOf(key)) ? byKey.get(keyOf(key)) : undefined;
  const client = answeringDynamoDB((command: unknown) => {
    if (command instanceof GetItemCommand) {
      const consistent = command.input.ConsistentRead === true;
      reads.push({ op: 'GetItem', keys: 1, consistent });
      return { Item: visible(command.input.Key, consistent) };
    }
    if (command instanceof BatchGetItemCommand) {
      const request = command.input.RequestItems?.[TABLE];
      const consistent = request?.ConsistentRead === true;
      reads.push({ op: 'BatchGetItem', keys: request?.Keys?.length ?? 0, consistent });
      const found = (request?.Keys ?? []).map((key) => visible(key, consistent)).filter((i) => i !== undefined);
      return { Responses: { [TABLE]: found } };
    }
    if (command instanceof QueryCommand) {
      const consistent = command.input.ConsistentRead === true;
      const values = command.input.ExpressionAttributeValues ?? {};
      const [pk, from, to] = [values[':pk']?.S, values[':from']?.S ?? '', values[':to']?.S ?? ''];
      const found = [...byKey.values()]
        .filter((item) => item.pk?.S === pk && (item.sk?.S ?? '') >= from && (item.sk?.S ?? '') <= to)
        .filter((item) => visible(item, consistent) !== undefined)
        .sort((a, b) => ((a.sk?.S ?? '') < (b.sk?.S ?? '') ? -1 : 1));
      reads.push({ op: 'Query', keys: found.length, consistent });
      return { Items: found };
    }
    throw new Error(`unexpected command ${(command as object).constructor.name}`);
  });
  return { client, reads };
}

const hash = (byte: number) => Buffer.alloc(32, byte);
const hex = (byte: number) => hash(byte).toString('hex');

/** A record item at `seq` with one stored node (its level-0 leaf hash). */
const recordAt = (seq: number) =>
  itemOf({
    pk: LineageKeys.lineage(TEST_LINEAGE_ID),
    sk: LineageKeys.record(seq),
    record: JSON.stringify({ seq }),
    nodes: hash(seq + 1),
  });

const leafAt = (index: number) =>
  deploymentLeafItem({ index, indexRoot: hex(0xa0 + index), nodes: [hex(0x10 + index)] });

describe('reads of items written once (records, deployment leaves): eventually consistent, a miss asked again strongly', () => {
  it('readRecord: one eventually consistent GetItem when the copy holds the record', async () => {
    const { client, reads } = countingTable([recordAt(3)]);
    expect(await new DynamoDBLineageStore(client, TABLE).readRecord(TEST_LINEAGE_ID, 3)).toEqual({ seq: 3 });
    expect(reads).toEqual([{ op: 'GetItem', keys: 1, consistent: false }]);
  });

  it('readRecord: a record the stale copy misses is read strongly and returned, never reported absent', async () => {
    const { client, reads } = countingTable([recordAt(3)], [recordAt(3)]);
    expect(await new DynamoDBLineageStore(client, TABLE).readRecord(TEST_LINEAGE_ID, 3)).toEqual({ seq: 3 });
    expect(reads.map((r) => r.consistent)).toEqual([false, true]);
  });

  it('readRecord: absent only once the strong read also misses', async () => {
    const { client, reads } = countingTable([]);
    expect(await new DynamoDBLineageStore(client, TABLE).readRecord(TEST_LINEAGE_ID, 3)).toBeNull();
    expect(reads.map((r) => r.consistent)).toEqual([false, true]);
  });

  it('lineage readNodes: one eventually consistent BatchGetItem; only the seqs it missed are asked again strongly', async () => {
    const refs = [
      { level: 0, index: 1 },
      { level: 0, index: 3 },
      { level: 0, index: 5 },
    ];
    const items = [recordAt(1), recordAt(3)];
    const fresh = countingTable(items);
    const expected = [hex(2), hex(4), null];
    expect(await new DynamoDBLineageStore(fresh.client, TABLE).readNodes(TEST_LINEAGE_ID, refs)).toEqual(expected);
    expect(fresh.reads).toEqual([
      { op: 'BatchGetItem', keys: 3, consistent: false },
      { op: 'BatchGetItem', keys: 1, consistent: true },
    ]);
    const stale = countingTable(items, [recordAt(3)]);
    expect(await new DynamoDBLineageStore(stale.client, TABLE).readNodes(TEST_LINEAGE_ID, refs)).toEqual(expected);
    expect(stale.reads).toEqual([
      { op: 'BatchGetItem', keys: 3, consistent: false },
      { op: 'BatchGetItem', keys: 2, consistent: true },
    ]);
    const all = countingTable(items);
    await new DynamoDBLineageStore(all.client, TABLE).readNodes(TEST_LINEAGE_ID, refs.slice(0, 2));
    expect(all.reads).toEqual([{ op: 'BatchGetItem', keys: 2, consistent: false }]);
  });

  it('deployment readLeafIndexRoot: eventually consistent, a stale miss read strongly; absent only after both', async () => {
    for (const [items, stale, root, consistency] of [
      [[leafAt(4)], [], hex(0xa4), [false]],
      [[leafAt(4)], [leafAt(4)], hex(0xa4), [false, true]],
      [[], [], null, [false, true]],
    ] as const) {
      const { client, reads } = countingTable(items, stale);
      expect(await new DynamoDBDeploymentLogStore(client, TABLE).readLeafIndexRoot(4)).toBe(root);
      expect(reads.map((r) => r.consistent)).toEqual(consistency);
    }
  });

  it('deployment readNodes: eventually consistent; the leaves a stale copy missed are read strongly, same nodes', async () => {
    const refs = [
      { level: 0, index: 2 },
      { level: 0, index: 6 },
    ];
    const items = [leafAt(2), leafAt(6)];
    const fresh = countingTable(items);
    expect(await new DynamoDBDeploymentLogStore(fresh.client, TABLE).readNodes(refs)).toEqual([hex(0x12), hex(0x16)]);
    expect(fresh.reads).toEqual([{ op: 'BatchGetItem', keys: 2, consistent: false }]);
    const stale = countingTable(items, [leafAt(6)]);
    expect(await new DynamoDBDeploymentLogStore(stale.client, TABLE).readNodes(refs)).toEqual([hex(0x12), hex(0x16)]);
    expect(stale.reads).toEqual([
      { op: 'BatchGetItem', keys: 2, consistent: false },
      { op: 'BatchGetItem', keys: 1, consistent: true },
    ]);
  });

  it('readChain with eventual: one eventually consistent Query when the copy holds every seq; a copy missing one is read again strongly', async () => {
    const items = [recordAt(0), recordAt(1), recordAt(2)];
    const full = countingTable(items);
    const store = (client: ReturnType<typeof countingTable>['client']) => new DynamoDBLineageStore(client, TABLE);
    const expected = [{ seq: 0 }, { seq: 1 }, { seq: 2 }];
    expect(await store(full.client).readChain(TEST_LINEAGE_ID, 0, 2, { eventual: true })).toEqual(expected);
    expect(full.reads).toEqual([{ op: 'Query', keys: 3, consistent: false }]);
    // The tip just written: the stale copy misses it, so the range is read again strongly.
    const stale = countingTable(items, [recordAt(2)]);
    expect(await store(stale.client).readChain(TEST_LINEAGE_ID, 0, 2, { eventual: true })).toEqual(expected);
    expect(stale.reads).toEqual([
      { op: 'Query', keys: 2, consistent: false },
      { op: 'Query', keys: 3, consistent: true },
    ]);
    // Without the option (the sealer's roll-forward reads past the end): strong only.
    const strong = countingTable(items);
    expect(await store(strong.client).readChain(TEST_LINEAGE_ID, 0, 9)).toEqual(expected);
    expect(strong.reads).toEqual([{ op: 'Query', keys: 3, consistent: true }]);
  });

  it('the heads a kept checkpoint is compared with stay strongly consistent (a stale head would read as a rollback)', async () => {
    const { client, reads } = countingTable([]);
    await new DynamoDBLineageStore(client, TABLE).logHead(TEST_LINEAGE_ID);
    await new DynamoDBDeploymentLogStore(client, TABLE).readHead();
    expect(reads).toEqual([
      { op: 'GetItem', keys: 1, consistent: true },
      { op: 'GetItem', keys: 1, consistent: true },
    ]);
  });
});

describe('the sealer\'s tentative reads (docs/sealing.md, "The reads of a run"): a copy kept as it is, its append\'s conditions catch a stale one', () => {
  const headItem = itemOf({
    pk: LineageKeys.lineage(TEST_LINEAGE_ID),
    sk: LineageKeys.head,
    seq: 0,
    recordHash: 'a'.repeat(64),
    generationEpoch: 0,
  });

  it('logHead with eventual: one eventually consistent GetItem, its copy answered as it is (no strong read after it)', async () => {
    const fresh = countingTable([headItem]);
    expect(
      (await new DynamoDBLineageStore(fresh.client, TABLE).logHead(TEST_LINEAGE_ID, { eventual: true }))?.head.seq,
    ).toBe(0);
    expect(fresh.reads).toEqual([{ op: 'GetItem', keys: 1, consistent: false }]);
    // The head just put: the copy does not show it yet, and that copy is the answer.
    const stale = countingTable([headItem], [headItem]);
    expect(await new DynamoDBLineageStore(stale.client, TABLE).logHead(TEST_LINEAGE_ID, { eventual: true })).toBeNull();
    expect(stale.reads).toEqual([{ op: 'GetItem', keys: 1, consistent: false }]);
  });

  it('readChain with eventual and recheck false: one eventually consistent Query, a copy missing a record answered as it is', async () => {
    const stale = countingTable([recordAt(1)], [recordAt(1)]);
    expect(
      await new DynamoDBLineageStore(stale.client, TABLE).readChain(TEST_LINEAGE_ID, 1, 41, {
        eventual: true,
        recheck: false,
      }),
    ).toEqual([]);
    expect(stale.reads).toEqual([{ op: 'Query', keys: 0, consistent: false }]);
  });
});
