import { gzipSync } from 'node:zlib';
import {
  type AttributeValue,
  BatchGetItemCommand,
  GetItemCommand,
  ProvisionedThroughputExceededException,
  PutItemCommand,
  type QueryCommand,
} from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { DynamoDBLineageStore } from '../../../adapters/dynamodb-lineage-store';
import { LineageKeys, MANIFEST_KEY_PREFIX } from '../../../adapters/lineage-keys';
import { MAX_MANIFEST_BYTES, MAX_MANIFEST_BYTES_PER_READ, manifestItem } from '../../../adapters/manifest-item';
import { recordOf } from '../../../adapters/record-item';
import { canonicalJson } from '../../../shared/canonical/canonical-json';
import { ManifestReadBoundError, RecordSeqTakenError, StaleHeadError } from '../../../shared/errors';
import { HeadLayout } from '../../../shared/ports/head-layout';
import type { AppendBatch } from '../../../shared/ports/lineage-store';
import { type LineageHead, lineageHeadOf } from '../../../shared/seal/lineage-head';
import { checkRecordIntegrity } from '../../../shared/seal/record-integrity';
import { sealRecord } from '../../../shared/seal/seal-record';
import type { SealedRecord } from '../../../shared/seal/sealed-record';
import { buildManifest } from '../../../shared/triage/build-manifest';
import { MemoryManifestCache } from '../../../shared/triage/memory-manifest-cache';
import { answeringDynamoDB } from '../../helpers/answering-dynamodb';
import { appendBatch } from '../../helpers/append-batch';
import { expectGuarantee } from '../../helpers/guarantees';
import { sealInput, TEST_LINEAGE_ID, TEST_NOW_MS, testAnchor } from '../../helpers/seal-factories';

const TABLE = 'reseal-table';

/** A manifest item's put (content-addressed, before the append's transaction: docs/pipeline.md, "Append"). */
const isManifestPut = (command: unknown): command is PutItemCommand =>
  command instanceof PutItemCommand && (command.input.Item?.pk?.S ?? '').startsWith(MANIFEST_KEY_PREFIX);

/** A client that answers with `respond`; manifest puts succeed and are kept apart, in `manifestPuts`. */
function fakeDynamo(respond: (command: unknown) => unknown) {
  const commands: unknown[] = [];
  const manifestPuts: PutItemCommand[] = [];
  const client = answeringDynamoDB(async (command: unknown) => {
    if (isManifestPut(command)) {
      manifestPuts.push(command);
      return {};
    }
    commands.push(command);
    return respond(command);
  });
  return { client, commands, manifestPuts };
}

/**
 * A client over a table of manifest items only: manifest puts land in `items` (their condition
 * honoured), `BatchGetItem` reads them back, every other command succeeds; `puts` and `commands`
 * record what was sent.
 */
function manifestTable() {
  const items = new Map<string, Record<string, AttributeValue>>();
  const puts: PutItemCommand[] = [];
  const commands: unknown[] = [];
  const client = answeringDynamoDB(async (command: unknown) => {
    commands.push(command);
    if (isManifestPut(command)) {
      puts.push(command);
      const item = command.input.Item as Record<string, AttributeValue>;
      const pk = item.pk?.S as string;
      const old = items.get(pk)?.manifest?.B;
      if (old && Buffer.from(old).equals(Buffer.from(item.manifest?.B as Uint8Array)))
        throw Object.assign(new Error('same'), { name: 'ConditionalCheckFailedException' });
      items.set(pk, item);
      return {};
    }
    if (command instanceof BatchGetItemCommand) {
      const keys = command.input.RequestItems?.[TABLE]?.Keys ?? [];
      const found = keys.flatMap((key) => {
        const item = items.get(key.pk?.S as string);
        return item ? [item] : [];
      });
      return { Responses: { [TABLE]: found } };
    }
    return {};
  });
  return { client, items, puts, commands };
}

async function twoRecords(): Promise<[SealedRecord, SealedRecord]> {
  const anchor = testAnchor();
  const first = await sealRecord(sealInput(0), null, anchor, TEST_NOW_MS);
  const second = await sealRecord(sealInput(1), lineageHeadOf(first), anchor, TEST_NOW_MS);
  return [first, second];
}

/** An append of `records` after `expectedHead`, with placeholder log state (the adapter stores it as given). */
function batchOf(records: SealedRecord[], expectedHead: LineageHead | null): AppendBatch {
  const lineageId = (records[0] as SealedRecord).header.lineageId;
  return {
    lineageId,
    entries: records.map((record) => ({ record, nodes: ['c'.repeat(64)] })),
    expectedHead,
    headMac: null,
    checkpoint: 'signed checkpoint note',
    frontier: ['d'.repeat(64)],
  };
}

const headItem = (seq: number, epoch: number) => ({
  pk: { S: LineageKeys.lineage(TEST_LINEAGE_ID) },
  sk: { S: 'HEAD' },
  seq: { N: String(seq) },
  recordHash: { S: 'a'.repeat(64) },
  generationEpoch: { N: String(epoch) },
  mac: { S: 'bWFj' },
  keyId: { S: 'test-key-1' },
});

const ccf = (item?: Record<string, unknown>) =>
  Object.assign(new Error('The conditional request failed'), {
    name: 'ConditionalCheckFailedException',
    ...(item ? { Item: item } : {}),
  });

/** The puts of `commands` whose sort key starts with `prefix`. */
const putsOf = (commands: unknown[], prefix: string) =>
  commands.filter(
    (c): c is PutItemCommand => c instanceof PutItemCommand && (c.input.Item?.sk?.S ?? '').startsWith(prefix),
  );

describe('DynamoDBLineageStore putRecords, then moveHead (docs/sealing.md, "The write": no transaction)', () => {
  it('putRecords: one conditional PutItem per record, in seq order, each with its tree nodes; no head, no marker', async () => {
    const [first, second] = await twoRecords();
    const { client, commands } = fakeDynamo(() => ({}));
    await new DynamoDBLineageStore(client, TABLE).putRecords(TEST_LINEAGE_ID, batchOf([first, second], null).entries);
    expect(commands).toHaveLength(2);
    const [put0, put1] = commands.map((c) => (c as PutItemCommand).input);
    expect(put0?.Item?.sk).toEqual({ S: 'RECORD#0000000000000000' });
    expect(put1?.Item?.sk).toEqual({ S: 'RECORD#0000000000000001' });
    const { manifest: _shared, ...withoutManifest } = second;
    expect(recordOf(put1?.Item ?? {})).toEqual(JSON.parse(canonicalJson(withoutManifest)));
    expect(put1?.Item?.nodes).toEqual({ B: Buffer.from('c'.repeat(64), 'hex') });
    for (const put of [put0, put1]) expect(put?.ConditionExpression).toBe('attribute_not_exists(pk)');
  });

  it('putRecords: a taken seq stops the run there → RecordSeqTakenError naming how many landed (none: a lost race)', async () => {
    const [first, second] = await twoRecords();
    for (const [takenAt, landed] of [
      [0, 0],
      [1, 1],
    ] as const) {
      let puts = 0;
      const { client, commands } = fakeDynamo(() => {
        if (puts++ === takenAt) throw ccf();
        return {};
      });
      const error = await new DynamoDBLineageStore(client, TABLE)
        .putRecords(TEST_LINEAGE_ID, batchOf([first, second], null).entries)
        .catch((e) => e);
      expect(error).toBeInstanceOf(RecordSeqTakenError);
      expect(error).toMatchObject({ seq: takenAt, landed, retryable: true });
      // Nothing after the taken seq is sent: an honest run never leaves a gap.
      expect(commands).toHaveLength(takenAt + 1);
    }
  });

  it('moveHead: the head under the head-as-read condition (ALL_OLD), then a plain marker put per record; the small head by default', async () => {
    const [first, second] = await twoRecords();
    const { client, commands } = fakeDynamo(() => ({}));
    await new DynamoDBLineageStore(client, TABLE).moveHead({
      ...batchOf([second], lineageHeadOf(first)),
      headMac: { keyId: 'test-key-1', algorithm: 'HMAC_SHA_256', mac: 'bWFj' },
      checkpoint: null,
    });
    const [head] = putsOf(commands, 'HEAD').map((c) => c.input);
    const markers = putsOf(commands, 'RESIDUAL#').map((c) => c.input);
    expect(commands[0]).toBe(putsOf(commands, 'HEAD')[0]);
    expect(head?.ConditionExpression).toBe(
      '#seq = :expectedSeq AND #recordHash = :expectedHash AND #epoch = :expectedEpoch',
    );
    expect(head?.ExpressionAttributeValues?.[':expectedSeq']).toEqual({ N: '0' });
    expect(head?.ExpressionAttributeValues?.[':expectedEpoch']).toEqual({ N: String(first.header.generationEpoch) });
    expect(head?.ReturnValuesOnConditionCheckFailure).toBe('ALL_OLD');
    // The small head (docs/sealing.md, "The head item"): no header copy, tip MAC, key id, residual id or checkpoint.
    expect(Object.keys(head?.Item ?? {}).sort()).toEqual(
      ['frontier', 'generationEpoch', 'headMac', 'pk', 'recordHash', 'seq', 'sk'].sort(),
    );
    expect(head?.Item?.frontier).toEqual({ B: Buffer.from('d'.repeat(64), 'hex') });
    expect(markers).toHaveLength(1);
    expect(markers[0]?.Item?.pk).toEqual({ S: LineageKeys.lineage(TEST_LINEAGE_ID) });
    expect(markers[0]?.Item?.sk).toEqual({ S: `RESIDUAL#${second.header.residualId}` });
    expect(markers[0]?.ConditionExpression).toBeUndefined();
  });

  it('moveHead in the compatible layout (docs/sealing.md, "Migration", deploy 2) still writes the header copy, tip MAC, key id, residual id and a JSON hex frontier', async () => {
    const [first, second] = await twoRecords();
    const { client, commands } = fakeDynamo(() => ({}));
    await new DynamoDBLineageStore(client, TABLE, HeadLayout.COMPATIBLE).moveHead(
      batchOf([second], lineageHeadOf(first)),
    );
    const [head] = putsOf(commands, 'HEAD').map((c) => c.input);
    expect(head?.Item?.header).toEqual({ S: canonicalJson(second.header) });
    expect(head?.Item?.mac).toEqual({ S: second.anchor.mac });
    expect(head?.Item?.keyId).toEqual({ S: second.anchor.keyId });
    expect(head?.Item?.residualId).toEqual({ S: second.header.residualId });
    expect(head?.Item?.checkpoint).toEqual({ S: 'signed checkpoint note' });
    expect(head?.Item?.frontier).toEqual({ S: JSON.stringify(['d'.repeat(64)]) });
  });

  it('moveHead of a first record requires that no head exists', async () => {
    const [first] = await twoRecords();
    const { client, commands } = fakeDynamo(() => ({}));
    await new DynamoDBLineageStore(client, TABLE).moveHead(batchOf([first], null));
    expect(putsOf(commands, 'HEAD')[0]?.input.ConditionExpression).toBe('attribute_not_exists(pk)');
  });

  it("moveHead: the head condition failed with a newer epoch in ALL_OLD → StaleHeadError, no marker put: the table's epoch fences nothing", async () => {
    const [first, second] = await twoRecords();
    const { client, commands } = fakeDynamo(() => {
      throw ccf(headItem(5, second.header.generationEpoch + 1));
    });
    const error = await new DynamoDBLineageStore(client, TABLE)
      .moveHead(batchOf([second], lineageHeadOf(first)))
      .catch((e) => e);
    expect(error).toBeInstanceOf(StaleHeadError);
    expect(error.expectedSeq).toBe(0);
    expect(error.observedHead).toMatchObject({ seq: 5, generationEpoch: second.header.generationEpoch + 1 });
    expect(putsOf(commands, 'RESIDUAL#')).toEqual([]);
  });

  it('moveHead without ALL_OLD items (some emulators): the head is read back for the StaleHeadError', async () => {
    const [first, second] = await twoRecords();
    const { client, commands } = fakeDynamo((command) => {
      if (command instanceof GetItemCommand) return { Item: headItem(3, second.header.generationEpoch + 2) };
      throw ccf();
    });
    const error = await new DynamoDBLineageStore(client, TABLE)
      .moveHead(batchOf([second], lineageHeadOf(first)))
      .catch((e) => e);
    expect(error).toBeInstanceOf(StaleHeadError);
    expect(error.observedHead).toMatchObject({ seq: 3, generationEpoch: second.header.generationEpoch + 2 });
    expect(commands[1]).toBeInstanceOf(GetItemCommand);
  });

  it('any other failure is rethrown as is (transient: the message is retried)', async () => {
    const [first, second] = await twoRecords();
    const throttled = new ProvisionedThroughputExceededException({ message: 'slow down', $metadata: {} });
    const { client } = fakeDynamo(() => {
      throw throttled;
    });
    const store = new DynamoDBLineageStore(client, TABLE);
    await expect(store.putRecords(TEST_LINEAGE_ID, batchOf([second], null).entries)).rejects.toBe(throttled);
    await expect(store.moveHead(batchOf([second], lineageHeadOf(first)))).rejects.toBe(throttled);
  });
});

describe('DynamoDBLineageStore reads and side records', () => {
  it('lastRecordSeq queries the last well-formed RECORD# key of the lineage (BETWEEN, descending, limit 1, consistent)', async () => {
    const { client, commands } = fakeDynamo(() => ({
      Items: [{ pk: { S: LineageKeys.lineage(TEST_LINEAGE_ID) }, sk: { S: 'RECORD#0000000000000042' } }],
    }));
    const store = new DynamoDBLineageStore(client, TABLE);
    expect(await store.lastRecordSeq(TEST_LINEAGE_ID)).toBe(42);
    const input = (commands[0] as QueryCommand).input;
    // A junk sort key such as `RECORD#~` or a 17-digit one sorts outside this range, so it can
    // neither end the scan nor hide the real last record (a head rewound below them stays visible).
    expect(input.KeyConditionExpression).toBe('pk = :pk AND sk BETWEEN :first AND :last');
    expect(input.ExpressionAttributeValues).toEqual({
      ':pk': { S: LineageKeys.lineage(TEST_LINEAGE_ID) },
      ':first': { S: 'RECORD#0000000000000000' },
      ':last': { S: 'RECORD#9007199254740991' },
    });
    // Junk keys, also a 16-digit one above the largest seq (2^53 − 1), sort outside the range.
    for (const junk of ['RECORD#~', 'RECORD#99999999999999999', 'RECORD#', 'RECORD#9999999999999999']) {
      expect(junk < 'RECORD#0000000000000000' || junk > 'RECORD#9007199254740991', junk).toBe(true);
    }
    expect(input).toMatchObject({ ScanIndexForward: false, Limit: 1, ConsistentRead: true });
    const empty = fakeDynamo(() => ({ Items: [] }));
    expect(await new DynamoDBLineageStore(empty.client, TABLE).lastRecordSeq(TEST_LINEAGE_ID)).toBeNull();
  });

  it('lastRecordSeq skips junk keys inside the seq range (RECORD#5x, RECORD#2) and pages on to the real last record', async () => {
    const pk = { S: LineageKeys.lineage(TEST_LINEAGE_ID) };
    const pages = [
      { Items: [{ pk, sk: { S: 'RECORD#5x' } }], LastEvaluatedKey: { pk, sk: { S: 'RECORD#5x' } } },
      {
        Items: [
          { pk, sk: { S: 'RECORD#2' } },
          { pk, sk: { S: 'RECORD#0000000000000004' } },
        ],
      },
    ];
    const { client, commands } = fakeDynamo(() => pages.shift());
    expect(await new DynamoDBLineageStore(client, TABLE).lastRecordSeq(TEST_LINEAGE_ID)).toBe(4);
    const [first, second] = commands.map((c) => (c as QueryCommand).input);
    expect(first).toMatchObject({ Limit: 1, ProjectionExpression: 'pk, sk' });
    expect(second).toMatchObject({ Limit: 100, ExclusiveStartKey: { pk, sk: { S: 'RECORD#5x' } } });
    const onlyJunk = fakeDynamo(() => ({ Items: [{ pk, sk: { S: 'RECORD#1e3' } }] }));
    expect(await new DynamoDBLineageStore(onlyJunk.client, TABLE).lastRecordSeq(TEST_LINEAGE_ID)).toBeNull();
  });

  it('findByResidualId reads the marker in the lineage partition', async () => {
    const { client, commands } = fakeDynamo(() => ({ Item: { lineageId: { S: 'lin-A' }, seq: { N: '3' } } }));
    expect(await new DynamoDBLineageStore(client, TABLE).findByResidualId('lin-A', 'r-1')).toEqual({
      lineageId: 'lin-A',
      seq: 3,
    });
    expect((commands[0] as GetItemCommand).input.Key).toEqual({
      pk: { S: 'LINEAGE#lin-A' },
      sk: { S: 'RESIDUAL#r-1' },
    });
  });

  it('readChain follows LastEvaluatedKey across pages, in seq order', async () => {
    const [first, second] = await twoRecords();
    const page = (record: SealedRecord) => ({ record: { S: canonicalJson(record) } });
    const { client, commands } = fakeDynamo((command) => {
      const input = (command as QueryCommand).input;
      return input.ExclusiveStartKey
        ? { Items: [page(second)] }
        : { Items: [page(first)], LastEvaluatedKey: { pk: { S: 'x' }, sk: { S: 'y' } } };
    });
    const chain = await new DynamoDBLineageStore(client, TABLE).readChain(TEST_LINEAGE_ID, 0, 1);
    expect(chain).toEqual([JSON.parse(canonicalJson(first)), JSON.parse(canonicalJson(second))]);
    expect(commands).toHaveLength(2);
    expect((commands[0] as QueryCommand).input.ExpressionAttributeValues?.[':to']).toEqual({
      S: 'RECORD#0000000000000001',
    });
  });

  it('a stored record that no longer parses is returned as its raw text (the verifier refuses it)', async () => {
    const { client } = fakeDynamo(() => ({ Item: { record: { S: '{"header": tampered' } } }));
    expect(await new DynamoDBLineageStore(client, TABLE).readRecord(TEST_LINEAGE_ID, 0)).toBe('{"header": tampered');
  });

  it('conflict and rejection records never overwrite: conditional put, an existing identical key is accepted', async () => {
    const conditionFailed = Object.assign(new Error('exists'), { name: 'ConditionalCheckFailedException' });
    const { client, commands } = fakeDynamo(() => {
      throw conditionFailed;
    });
    const store = new DynamoDBLineageStore(client, TABLE);
    await store.recordConflict({
      lineageId: TEST_LINEAGE_ID,
      residualId: 'r-1',
      reason: 'LOST_RACE',
      detail: 'lost',
      attemptedHeader: null,
      expectedHead: null,
      observedHead: null,
      atMs: 0,
      messageId: 'm-1',
      requestDigest: null,
      statement: null,
    });
    const put = (commands[0] as PutItemCommand).input;
    expect(put.ConditionExpression).toBe('attribute_not_exists(pk)');
    expect(put.Item?.sk).toEqual({ S: 'CONFLICT#r-1#1970-01-01T00:00:00.000Z#m-1' });
  });

  it('rejections of unreadable bodies go under REJECTION#~unparsed with <isoTime>#<messageId>', async () => {
    const { client, commands } = fakeDynamo(() => ({}));
    await new DynamoDBLineageStore(client, TABLE).recordRejection({
      stage: 'GUARD',
      reason: 'MALFORMED_JSON',
      lineageId: null,
      residualId: null,
      messageId: 'm-1',
      verdictDigest: null,
      bodyDigest: 'b'.repeat(64),
      bodyPreview: '{',
      issues: [],
      rejectedVariables: [],
      requestViolations: [],
      atMs: 1000,
      requestDigest: null,
      statement: null,
    });
    const item = (commands[0] as PutItemCommand).input.Item;
    expect(item?.pk).toEqual({ S: 'REJECTION#~unparsed' });
    expect(item?.sk).toEqual({ S: '1970-01-01T00:00:01.000Z#m-1' });
  });
});

describe('DynamoDBLineageStore content-addressed manifests (docs/sealing.md, "Stored items")', () => {
  it('an append puts each manifest item once, before its records, absent or differing only; a warm store reads it back instead', async () => {
    const [first, second] = await twoRecords();
    expect(second.header.manifestDigest).toBe(first.header.manifestDigest);
    const table = manifestTable();
    const store = new DynamoDBLineageStore(table.client, TABLE);
    await appendBatch(store, batchOf([first, second], null));
    expect(table.puts).toHaveLength(1);
    const put = (table.puts[0] as PutItemCommand).input;
    expect(put.Item?.pk).toEqual({ S: LineageKeys.manifest(first.header.lineageId, first.header.manifestDigest) });
    expect(put.Item?.manifest?.B).toBeInstanceOf(Uint8Array);
    expect(put.ConditionExpression).toBe('attribute_not_exists(pk) OR #manifest <> :manifest');
    expect(table.commands.indexOf(table.puts[0])).toBe(0);
    await appendBatch(store, batchOf([second], lineageHeadOf(first)));
    expect(table.puts).toHaveLength(1);
    const readBack = table.commands.filter((c) => c instanceof BatchGetItemCommand);
    expect(readBack).toHaveLength(1);
    // Content-addressed: an eventually consistent copy is the item or nothing (a miss puts it again).
    expect(readBack[0]?.input.RequestItems?.[TABLE]?.ConsistentRead).toBe(false);
  });

  it('docs/sealing.md "Writing it": a manifest item deleted or edited while a warm store remembers it is put back by its next append', async (context) => {
    const [first, second] = await twoRecords();
    const table = manifestTable();
    const store = new DynamoDBLineageStore(table.client, TABLE);
    const pk = LineageKeys.manifest(first.header.lineageId, first.header.manifestDigest);
    await appendBatch(store, batchOf([first], null));
    const sealed = table.items.get(pk);
    table.items.delete(pk); // the table writer deletes the shared item
    await appendBatch(store, batchOf([second], lineageHeadOf(first)));
    const afterDelete = table.items.get(pk)?.manifest?.B;
    table.items.set(pk, { ...sealed, manifest: { B: gzipSync('{"planted":true}') } }); // then edits it
    await appendBatch(store, batchOf([second], lineageHeadOf(first)));
    const afterEdit = table.items.get(pk)?.manifest?.B;
    const same = (bytes: Uint8Array | undefined) =>
      bytes !== undefined && Buffer.from(bytes).equals(Buffer.from(sealed?.manifest?.B as Uint8Array));
    expectGuarantee(
      context,
      {
        section: 'tampering',
        target: 'manifest',
        attack: 'delete, then edit, the shared manifest item while a warm sealer remembers having put it',
        reader: 'sealer (next append, DynamoDBChainStore)',
        expected: 'put back after the delete; put back after the edit',
      },
      `${same(afterDelete) ? 'put back' : 'left missing'} after the delete; ${same(afterEdit) ? 'put back' : 'left edited'} after the edit`,
    );
  });

  it('an identical manifest item already stored (condition failed) is no error', async () => {
    const [first] = await twoRecords();
    const client = answeringDynamoDB(async (command: unknown) => {
      if (isManifestPut(command)) throw Object.assign(new Error('same'), { name: 'ConditionalCheckFailedException' });
      return {};
    });
    await expect(appendBatch(new DynamoDBLineageStore(client, TABLE), batchOf([first], null))).resolves.toBeUndefined();
  });

  it('a failed manifest put fails the append before its records (retried as a whole)', async () => {
    const [first] = await twoRecords();
    const throttled = new ProvisionedThroughputExceededException({ message: 'slow down', $metadata: {} });
    const sent: unknown[] = [];
    const client = answeringDynamoDB(async (command: unknown) => {
      sent.push(command);
      if (isManifestPut(command)) throw throttled;
      return {};
    });
    await expect(appendBatch(new DynamoDBLineageStore(client, TABLE), batchOf([first], null))).rejects.toBe(throttled);
    expect(sent).toHaveLength(1);
  });

  it('readRecord reads the manifest item eventually consistent, and strongly again only when that copy misses it', async () => {
    const [first, second] = await twoRecords();
    const { manifest: _m, ...rest } = second;
    const stripped = { record: { S: canonicalJson(rest) } };
    for (const staleMiss of [false, true]) {
      const reads: boolean[] = [];
      const { client } = fakeDynamo((command) => {
        if (command instanceof BatchGetItemCommand) {
          const consistent = command.input.RequestItems?.[TABLE]?.ConsistentRead === true;
          reads.push(consistent);
          // A copy a moment old may not hold an item just written: only the strong read is sure to.
          return { Responses: { [TABLE]: staleMiss && !consistent ? [] : [manifestItem(first)] } };
        }
        return { Item: stripped };
      });
      const read = await new DynamoDBLineageStore(client, TABLE).readRecord(TEST_LINEAGE_ID, 1);
      expect(read).toEqual(JSON.parse(canonicalJson(second)));
      expect(reads).toEqual(staleMiss ? [false, true] : [false]);
    }
  });

  it('readChain and readRecord put each shared manifest back (one BatchGetItem of the distinct digests); a format-1 item keeps its own', async () => {
    const [first, second] = await twoRecords();
    const stripped = (record: SealedRecord) => {
      const { manifest: _m, ...rest } = record;
      return { record: { S: canonicalJson(rest) } };
    };
    const embedded = { record: { S: canonicalJson(first) } };
    const { client, commands } = fakeDynamo((command) => {
      if (command instanceof BatchGetItemCommand) return { Responses: { [TABLE]: [manifestItem(first)] } };
      if (command instanceof GetItemCommand) return { Item: stripped(second) };
      return { Items: [embedded, stripped(second)] };
    });
    const store = new DynamoDBLineageStore(client, TABLE);
    expect(await store.readChain(TEST_LINEAGE_ID, 0, 1)).toEqual([
      JSON.parse(canonicalJson(first)),
      JSON.parse(canonicalJson(second)),
    ]);
    const batchGets = commands.filter((c) => c instanceof BatchGetItemCommand) as BatchGetItemCommand[];
    expect(batchGets).toHaveLength(1);
    expect(batchGets[0]?.input.RequestItems?.[TABLE]?.Keys).toEqual([
      {
        pk: { S: LineageKeys.manifest(TEST_LINEAGE_ID, second.header.manifestDigest) },
        sk: { S: LineageKeys.manifestSk },
      },
    ]);
    expect(await store.readRecord(TEST_LINEAGE_ID, 1)).toEqual(JSON.parse(canonicalJson(second)));
  });

  it("docs/sealing.md \"Stored items\": a manifest is read under its lineage's key, never another lineage's item of the same digest; an earlier layout's shared item still reads", async () => {
    const [first, second] = await twoRecords();
    const { manifest: _m, ...rest } = second;
    const table = manifestTable();
    const own = manifestItem(second);
    expect(own.pk).toEqual({ S: LineageKeys.manifest(TEST_LINEAGE_ID, second.header.manifestDigest) });
    const recordItem = { record: { S: canonicalJson(rest) } };
    const send = table.client.send.bind(table.client) as (command: unknown) => Promise<unknown>;
    const client = answeringDynamoDB(async (command: unknown) =>
      command instanceof GetItemCommand ? { Item: recordItem } : send(command),
    );
    const store = new DynamoDBLineageStore(client, TABLE);
    // Another lineage's (another tenant's) item under the same digest: not this record's manifest.
    table.items.set(LineageKeys.manifest('beta/agent-1', second.header.manifestDigest), {
      ...own,
      pk: { S: LineageKeys.manifest('beta/agent-1', second.header.manifestDigest) },
    });
    expect(Object.hasOwn((await store.readRecord(TEST_LINEAGE_ID, 1)) as object, 'manifest')).toBe(false);
    // A record sealed before manifests were keyed by lineage: its item is MANIFEST#<digest>.
    table.items.set(LineageKeys.sharedManifest(second.header.manifestDigest), {
      ...own,
      pk: { S: LineageKeys.sharedManifest(second.header.manifestDigest) },
    });
    expect(await store.readRecord(TEST_LINEAGE_ID, 1)).toEqual(JSON.parse(canonicalJson(second)));
    // Under its lineage's key it is read there, with no second read.
    table.items.set(LineageKeys.manifest(TEST_LINEAGE_ID, second.header.manifestDigest), own);
    table.commands.length = 0;
    expect(await store.readRecord(TEST_LINEAGE_ID, 1)).toEqual(JSON.parse(canonicalJson(second)));
    expect(table.commands.filter((c) => c instanceof BatchGetItemCommand)).toHaveLength(1);
    expect(first.header.manifestDigest).toBe(second.header.manifestDigest);
  });

  it('a store keeping manifests (a client) reads a manifest item once across record reads, and keeps none that does not hash to its digest', async () => {
    const [first, second] = await twoRecords();
    expect(first.header.manifestDigest).toBe(second.header.manifestDigest);
    const { manifest: _m, ...rest } = second;
    const recordItem = { record: { S: canonicalJson(rest) } };
    for (const forged of [false, true]) {
      const item = forged
        ? {
            ...manifestItem(first),
            manifest: { B: gzipSync(canonicalJson({ ...first.manifest, structuralKeys: [] })) },
          }
        : manifestItem(first);
      const { client, commands } = fakeDynamo((command) =>
        command instanceof BatchGetItemCommand
          ? { Responses: { [TABLE]: [item] } }
          : command instanceof GetItemCommand
            ? { Item: recordItem }
            : { Items: [recordItem] },
      );
      const store = new DynamoDBLineageStore(client, TABLE, HeadLayout.SMALL, {
        manifestCache: new MemoryManifestCache(4),
      });
      for (let i = 0; i < 3; i++) {
        const read = await store.readRecord(TEST_LINEAGE_ID, 1);
        if (!forged) expect(read).toEqual(JSON.parse(canonicalJson(second)));
        else expect('reason' in checkRecordIntegrity(read)).toBe(true);
      }
      // Three record reads; the manifest item read once when it hashes to its digest, each time when not.
      expect(commands.filter((c) => c instanceof GetItemCommand)).toHaveLength(3);
      expect(commands.filter((c) => c instanceof BatchGetItemCommand)).toHaveLength(forged ? 3 : 1);
      // readChain (walks, audits, local admission) reads the table as it stands.
      commands.length = 0;
      await store.readChain(TEST_LINEAGE_ID, 1, 1);
      expect(commands.filter((c) => c instanceof BatchGetItemCommand)).toHaveLength(1);
      // With keptManifests (the integrator) it takes the kept copy, only one hashing to the digest.
      commands.length = 0;
      const [kept] = await store.readChain(TEST_LINEAGE_ID, 1, 1, { keptManifests: true });
      if (!forged) expect(kept).toEqual(JSON.parse(canonicalJson(second)));
      else expect('reason' in checkRecordIntegrity(kept)).toBe(true);
      expect(commands.filter((c) => c instanceof BatchGetItemCommand)).toHaveLength(forged ? 1 : 0);
    }
  });

  it('a store keeping manifests keeps none over 64 KiB of canonical JSON in UTF-8, however few its characters', async () => {
    // Keys of three-byte characters: under 64 Ki UTF-16 code units, over 64 KiB in UTF-8.
    const env = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`鍵${'値'.repeat(150)}${i}`, 'v']));
    const manifest = buildManifest({ env, structuralKeys: [], claimDependencyMap: {} });
    const json = canonicalJson(manifest);
    expect(json.length).toBeLessThan(64 * 1024);
    expect(Buffer.byteLength(json, 'utf8')).toBeGreaterThan(64 * 1024);
    const record = await sealRecord(sealInput(0, { manifest }), null, testAnchor(), TEST_NOW_MS);
    const { manifest: _m, ...rest } = record;
    const recordItem = { record: { S: canonicalJson(rest) } };
    const { client, commands } = fakeDynamo((command) =>
      command instanceof BatchGetItemCommand
        ? { Responses: { [TABLE]: [manifestItem(record)] } }
        : command instanceof GetItemCommand
          ? { Item: recordItem }
          : { Items: [recordItem] },
    );
    const store = new DynamoDBLineageStore(client, TABLE, HeadLayout.SMALL, {
      manifestCache: new MemoryManifestCache(4),
    });
    for (let i = 0; i < 2; i++)
      expect(await store.readRecord(TEST_LINEAGE_ID, 0)).toEqual(JSON.parse(canonicalJson(record)));
    // Read from the table both times: too large to keep.
    expect(commands.filter((c) => c instanceof BatchGetItemCommand)).toHaveLength(2);
  });

  it('a missing manifest item leaves the record without one (the strict schema refuses it, never a pass)', async () => {
    const [first] = await twoRecords();
    const { manifest: _m, ...rest } = first;
    const { client } = fakeDynamo((command) =>
      command instanceof BatchGetItemCommand
        ? { Responses: { [TABLE]: [] } }
        : { Item: { record: { S: canonicalJson(rest) } } },
    );
    const read = (await new DynamoDBLineageStore(client, TABLE).readRecord(TEST_LINEAGE_ID, 0)) as object;
    expect(Object.hasOwn(read, 'manifest')).toBe(false);
  });

  it('a missing manifest item reads as HASH_MISMATCH naming its digest, never a TypeError', async (context) => {
    const [first] = await twoRecords();
    const { manifest: _m, ...rest } = first;
    const { client } = fakeDynamo((command) =>
      command instanceof BatchGetItemCommand
        ? { Responses: { [TABLE]: [] } }
        : { Item: { record: { S: canonicalJson(rest) } } },
    );
    const read = await new DynamoDBLineageStore(client, TABLE).readRecord(TEST_LINEAGE_ID, 0);
    const failure = checkRecordIntegrity(read);
    const reason = 'reason' in failure ? failure.reason : 'intact';
    expectGuarantee(
      context,
      {
        section: 'tampering',
        target: 'manifest',
        attack: 'delete the shared manifest item',
        reader: 'DynamoDBChainStore.readRecord + checkRecordIntegrity',
        expected: 'HASH_MISMATCH naming the manifest digest',
      },
      'verdict' in failure && reason.includes(first.header.manifestDigest)
        ? `${failure.verdict} naming the manifest digest`
        : reason,
    );
    expect(reason).toBe(
      `the manifest of manifestDigest ${first.header.manifestDigest} is missing (its stored item deleted, or never written)`,
    );
  });

  it(`docs/sealing.md "Stored items": manifest items of one read inflate to at most ${MAX_MANIFEST_BYTES_PER_READ} bytes together; past that the read stops with ManifestReadBoundError`, async (context) => {
    // Planted gzip bombs: a few KiB each, each inflating to exactly the per-item cap (which is allowed).
    const bomb = gzipSync(`{${' '.repeat(MAX_MANIFEST_BYTES - 2)}}`);
    const fits = MAX_MANIFEST_BYTES_PER_READ / MAX_MANIFEST_BYTES;
    const chainOf = (count: number) => {
      const digests = Array.from({ length: count }, (_, i) => i.toString(16).padStart(64, '0'));
      const records = digests.map((digest) => ({
        record: { S: JSON.stringify({ header: { manifestDigest: digest } }) },
      }));
      const items = digests.map((digest) => ({
        pk: { S: LineageKeys.manifest(TEST_LINEAGE_ID, digest) },
        sk: { S: LineageKeys.manifestSk },
        manifest: { B: bomb },
      }));
      const { client } = fakeDynamo((command) =>
        command instanceof BatchGetItemCommand ? { Responses: { [TABLE]: items.splice(0, 100) } } : { Items: records },
      );
      return { store: new DynamoDBLineageStore(client, TABLE), digests };
    };
    const within = chainOf(fits);
    const read = (await within.store.readChain(TEST_LINEAGE_ID, 0, fits - 1)) as { manifest?: unknown }[];
    expect(read.every((r) => JSON.stringify(r.manifest) === '{}')).toBe(true);
    const past = chainOf(fits + 4);
    let observed: string;
    try {
      await past.store.readChain(TEST_LINEAGE_ID, 0, fits + 3);
      observed = 'read in full';
    } catch (error) {
      if (!(error instanceof ManifestReadBoundError)) throw error;
      observed = past.digests.includes(error.manifestDigest)
        ? 'ManifestReadBoundError naming a planted digest'
        : error.message;
    }
    expectGuarantee(
      context,
      {
        section: 'tampering',
        target: 'manifest',
        attack: `${fits + 4} records naming distinct planted gzip bombs of ${MAX_MANIFEST_BYTES} inflated bytes each`,
        reader: 'DynamoDBChainStore.readChain',
        expected: 'ManifestReadBoundError naming a planted digest',
      },
      observed,
    );
  });
});
