/**
 * Write capacity per sealed write (`npx tsx bench/write-capacity.ts`): the real `SealerService`
 * and `DynamoDBLineageStore` on a table of an embedded MiniStack, counted by the emulator bench's
 * middleware (bench/stack/counting-middleware.ts), with the capacity `ReturnConsumedCapacity`
 * reports. Prints, per write, each DynamoDB call's WCU and request bytes, and each item's size in
 * DynamoDB's own measure (attribute names + values), so the units can be traced to the items
 * (docs/infrastructure.md, "Cost and quotas").
 *
 * The writes have the bench's shape (`benchWrite`: 1 KiB payload, a 100-key manifest with ten
 * claims), with the MAC key id a KMS key ARN long (as the deployed stack's is), and a second
 * lineage whose 1 KiB payload is random base64 text: the bench's payload is one repeated letter,
 * which compresses to nothing, a real one does not. `WCU_BENCH_ATTRIBUTES=1` also prints each
 * written attribute's size to stderr.
 *
 * The sealer writes as docs/sealing.md, "The write" says (the record put, then the head and the
 * marker), once per head layout (docs/sealing.md, "Migration"): `compatible` (deploy 2, the head
 * still carrying the tip header copy) and `small` (deploy 3, the default), each on its own lineages.
 *
 * Then the candidate layouts of docs/sealing.md, "The append's layout" (bench/append-layouts.ts):
 * each `compatible` write's captured record, head and marker items (the items the one-transaction
 * append wrote), rearranged as each layout stores them, are written again, with their conditions,
 * to a table per layout, and the capacity the emulator reports for each of those writes is printed.
 */
import { randomBytes } from 'node:crypto';
import {
  CreateTableCommand,
  DynamoDBClient,
  PutItemCommand,
  TransactWriteItemsCommand,
} from '@aws-sdk/client-dynamodb';
import { DynamoDBLineageStore } from '../adapters/dynamodb-lineage-store';
import { soleWriterPolicy } from '../client/sole-writer-policy';
import { SealerService } from '../functions/sealer/sealer-service';
import { clientConfig } from '../scripts/emulator/deploy';
import { startEmulator } from '../scripts/emulator/emulator';
import { signWriteRequest } from '../shared/authorship/write-signature';
import { evaluateWrite } from '../shared/guard/evaluate-write';
import { LocalEd25519Signer } from '../shared/log/local-ed25519-signer';
import { sealerKeyName } from '../shared/log/log-names';
import { HeadLayout } from '../shared/ports/head-layout';
import { LocalHmacAnchor } from '../shared/seal/local-hmac-anchor';
import { type AppendStep, appendPlans, type Item as LayoutItem, todayItemsOf } from './append-layouts';
import { CallTally, countsSince } from './stack/call-tally';
import { countCalls } from './stack/counting-middleware';
import { BENCH_PAYLOAD_BYTES, BENCH_WRITER, benchLineageId, benchWrite } from './stack/stack-bench';

/** A KMS key ARN's length, as the deployed stack's MAC key id is. */
const MAC_KEY_ID = 'arn:aws:kms:us-east-1:000000000000:key/0f2c3a4e-5b6d-4e7f-8a9b-0c1d2e3f4a5b';
const WRITES_PER_LINEAGE = 3;

/** An item's size as DynamoDB bills it: UTF-8 attribute names plus values (numbers as text, binaries as bytes). */
function itemBytes(item: Record<string, Record<string, unknown>>): number {
  let bytes = 0;
  for (const [name, value] of Object.entries(item)) {
    bytes += Buffer.byteLength(name);
    if ('S' in value) bytes += Buffer.byteLength(value.S as string);
    else if ('N' in value) bytes += Buffer.byteLength(value.N as string);
    else if ('B' in value) bytes += (value.B as Uint8Array).byteLength;
    else bytes += Buffer.byteLength(JSON.stringify(value));
  }
  return bytes;
}

/** The sizes of every item a DynamoDB write request carries, by sort key kind. */
function itemsOf(input: Record<string, unknown>): string[] {
  const items: { Item: Record<string, Record<string, unknown>> }[] = [];
  if (input.Item) items.push(input as { Item: Record<string, Record<string, unknown>> });
  for (const action of (input.TransactItems as { Put?: { Item: Record<string, Record<string, unknown>> } }[]) ?? []) {
    if (action.Put) items.push(action.Put);
  }
  return items.map(({ Item }) => {
    const key = `${String(Item.pk?.S).split('#')[0]}/${String(Item.sk?.S).split('#')[0]}`;
    if (process.env.WCU_BENCH_ATTRIBUTES) {
      for (const [name, value] of Object.entries(Item))
        console.error(`  ${key} ${name}: ${itemBytes({ [name]: value })} B`);
    }
    return `${key} ${(itemBytes(Item) / 1024).toFixed(2)} KB`;
  });
}

/** Creates an on-demand table with the lineage table's keys (string `pk`, `sk`). */
async function createTable(client: DynamoDBClient, tableName: string): Promise<void> {
  await client.send(
    new CreateTableCommand({
      TableName: tableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'S' },
      ],
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
    }),
  );
}

/**
 * A put of `item` with the condition its layout writes it under: a record or marker only if
 * absent, a head only if absent or behind it (the seq the sealer extends).
 */
function conditionalPut(tableName: string, item: LayoutItem) {
  const isHead = item.sk?.S === 'HEAD';
  return {
    TableName: tableName,
    Item: item,
    ConditionExpression: isHead ? 'attribute_not_exists(pk) OR seq < :seq' : 'attribute_not_exists(pk)',
    ...(isHead ? { ExpressionAttributeValues: { ':seq': item.seq ?? { N: '0' } } } : {}),
  };
}

/** Writes one step of a plan to `tableName`. */
async function writeStep(client: DynamoDBClient, tableName: string, step: AppendStep): Promise<void> {
  if (step.kind === 'put') await client.send(new PutItemCommand(conditionalPut(tableName, step.item)));
  else
    await client.send(
      new TransactWriteItemsCommand({
        TransactItems: step.items.map((item) => ({ Put: conditionalPut(tableName, item) })),
      }),
    );
}

/** A short name of an item by its sort key: `record`, `head`, `marker`, or `record+head` for (a)'s. */
function itemName(item: LayoutItem): string {
  const sk = item.sk?.S ?? '';
  if (sk === 'HEAD') return 'head';
  if (sk.startsWith('RESIDUAL#')) return 'marker';
  return item.headMac ? 'record+head' : 'record';
}

async function main(): Promise<void> {
  const emulator = await startEmulator({ log: (line) => console.error(`[emulator] ${line}`) });
  try {
    const config = clientConfig(emulator.endpoint);
    const tableName = `wcu-bench-${Date.now()}`;
    const raw = new DynamoDBClient(config);
    await createTable(raw, tableName);
    const layoutTally = new CallTally();
    const layoutClient = countCalls(new DynamoDBClient(config), layoutTally);
    const layoutTables = new Map<string, string>();
    const layoutRows: string[] = [];
    const tally = new CallTally();
    const writes: { input: Record<string, unknown>; operation: string }[] = [];
    const dynamodb = countCalls(new DynamoDBClient(config), tally);
    dynamodb.middlewareStack.add(
      (next, context) => async (args) => {
        const operation = (context as { commandName?: string }).commandName ?? '';
        if (/Put|Transact|Update/.test(operation))
          writes.push({ operation, input: args.input as Record<string, unknown> });
        return next(args);
      },
      { step: 'initialize', name: 'wcuBenchItems' },
    );
    const quiet = () => undefined;
    const quietly = async () => undefined;
    const sealerOf = (layout: HeadLayout) =>
      new SealerService({
        store: new DynamoDBLineageStore(dynamodb, tableName, layout),
        publisher: { residualSealed: quietly, residualRejected: quietly, triageCompleted: quietly },
        anchor: new LocalHmacAnchor({ keyId: MAC_KEY_ID, key: new Uint8Array(32).fill(3) }),
        signer: new LocalEd25519Signer('reseal/wcu-bench', new Uint8Array(32).fill(7)),
        refusalSigner: new LocalEd25519Signer(sealerKeyName('reseal/wcu-bench'), new Uint8Array(32).fill(8)),
        metrics: { count: quiet },
        logger: { appendKeys: quiet, info: quiet, warn: quiet, error: quiet },
        clock: Date.now,
      });
    const lineages = [
      { name: 'bench payload (one letter repeated)', payload: null },
      { name: 'random base64 payload', payload: randomBytes((BENCH_PAYLOAD_BYTES * 3) / 4).toString('base64') },
    ];
    const rows: string[] = [];
    const runs = [HeadLayout.COMPATIBLE, HeadLayout.SMALL].flatMap((layout) =>
      lineages.map((lineage) => ({ ...lineage, layout })),
    );
    for (const { name, payload, layout } of runs) {
      const sealer = sealerOf(layout);
      const lineageId = benchLineageId(`wcu-${layout}-${payload ? 'random' : 'bench'}-${Date.now()}`);
      for (let i = 0; i < WRITES_PER_LINEAGE; i++) {
        const nowMs = Date.now();
        const unsigned = benchWrite(lineageId, `${lineageId}-r${i}`, nowMs);
        const request = await signWriteRequest(
          {
            ...unsigned,
            ...(payload ? { payload: { note: payload } } : {}),
            ...(i === 0 ? { policy: soleWriterPolicy(BENCH_WRITER) } : {}),
          },
          BENCH_WRITER,
          nowMs,
        );
        const verdict = evaluateWrite(request, { nowMs, maxReceiptAgeSeconds: 900 });
        const body = JSON.stringify({ formatVersion: 1, request, verdict, acceptedAtMs: nowMs });
        const before = tally.snapshot();
        writes.length = 0;
        const [outcome] = await sealer.handleGroup([{ messageId: `m-${lineageId}-${i}`, body, sentAtMs: nowMs }]);
        if (outcome?.kind !== 'SEALED') throw new Error(`write ${i} of ${name}: ${JSON.stringify(outcome)}`);
        const counts = countsSince(tally.snapshot(), before);
        const wcu = Object.values(counts).reduce((sum, c) => sum + c.writeUnits, 0);
        const calls = Object.entries(counts)
          .filter(([, c]) => c.writeUnits > 0)
          .map(([op, c]) => `${op.replace('DynamoDB.', '')} ${c.writeUnits} WCU, ${c.requestBytes} B`)
          .join('; ');
        const items = writes.flatMap((w) => itemsOf(w.input)).join(', ');
        rows.push(`| ${layout} | ${name} | ${i} | ${wcu} | ${calls} | ${items} |`);
        if (layout !== HeadLayout.COMPATIBLE) continue;
        // The items the one-transaction append wrote (the compatible head is its head item).
        const puts = writes.filter((w) => w.operation.startsWith('PutItem')).map((w) => ({ Put: w.input }));
        const today = todayItemsOf({ TransactItems: puts });
        if (!today) throw new Error(`write ${i} of ${name}: no record, head and marker put`);
        for (const plan of appendPlans(today)) {
          let table = layoutTables.get(plan.layout);
          if (!table) {
            table = `${tableName}-layout-${layoutTables.size}`;
            await createTable(raw, table);
            layoutTables.set(plan.layout, table);
          }
          const stepUnits: string[] = [];
          let planWcu = 0;
          for (const step of plan.steps) {
            const mark = layoutTally.snapshot();
            await writeStep(layoutClient, table, step);
            const units = Object.values(countsSince(layoutTally.snapshot(), mark)).reduce(
              (sum, c) => sum + c.writeUnits,
              0,
            );
            planWcu += units;
            const stepItems = step.kind === 'put' ? [step.item] : step.items;
            const described = stepItems
              .map(
                (item) =>
                  `${itemName(item)} ${(itemBytes(item as unknown as Record<string, Record<string, unknown>>) / 1024).toFixed(2)} KB`,
              )
              .join(' + ');
            stepUnits.push(`${step.kind === 'put' ? 'put' : 'transaction'} ${described}: ${units}`);
          }
          layoutRows.push(`| ${plan.layout} | ${name} | ${i} | ${planWcu} | ${stepUnits.join('; ')} |`);
        }
      }
    }
    console.log(
      '| head layout | lineage | write | WCU | writes (WCU, request bytes) | items written (DynamoDB size) |',
    );
    console.log('| --- | --- | ---: | ---: | --- | --- |');
    for (const row of rows) console.log(row);
    console.log('');
    console.log('| layout | lineage | write | WCU | writes: items (DynamoDB size): WCU |');
    console.log('| --- | --- | ---: | ---: | --- |');
    for (const row of layoutRows.sort((a, b) => a.localeCompare(b))) console.log(row);
  } finally {
    await emulator.stop();
  }
}

await main();
