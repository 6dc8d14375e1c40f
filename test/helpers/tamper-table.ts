/**
 * The table writer of the threat model (docs/sealing.md, "Threat model"): raw DynamoDB calls on
 * the deployed table, no KMS rights. Snapshots a lineage's partitions, lets an attack change
 * them, and restores them exactly, so one sealed lineage serves every cell of a tampering matrix.
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import {
  type AttributeValue,
  BatchWriteItemCommand,
  type BatchWriteItemCommandOutput,
  DeleteItemCommand,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  paginateQuery,
  type WriteRequest,
} from '@aws-sdk/client-dynamodb';
import { LineageKeys } from '../../adapters/lineage-keys';

/** One stored item as DynamoDB returns it. */
export type Item = Record<string, AttributeValue>;

/** Every item of some partitions, by partition key (`LINEAGE#…`, `REJECTION#…`, `TRIAGE#…`). */
export type Snapshot = ReadonlyMap<string, readonly Item[]>;

/** The partitions of one lineage: its records, head, markers and conflicts; its rejections; its triage reports. */
export function partitionsOf(lineageId: string): string[] {
  return [LineageKeys.lineage(lineageId), LineageKeys.rejection(lineageId), LineageKeys.triage(lineageId)];
}

/** Raw access to the table, as the table writer has it. */
export class TableWriter {
  constructor(
    readonly dynamodb: DynamoDBClient,
    readonly tableName: string,
  ) {}

  async query(pk: string): Promise<Item[]> {
    const items: Item[] = [];
    const pages = paginateQuery(
      { client: this.dynamodb },
      {
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': { S: pk } },
        ConsistentRead: true,
      },
    );
    for await (const page of pages) items.push(...(page.Items ?? []));
    return items;
  }

  /** The item at `pk` / `sk`. @throws {Error} when there is none (an attack on a missing item is a broken test). */
  async get(pk: string, sk: string): Promise<Item> {
    const out = await this.dynamodb.send(
      new GetItemCommand({ TableName: this.tableName, Key: { pk: { S: pk }, sk: { S: sk } }, ConsistentRead: true }),
    );
    if (!out.Item) throw new Error(`no item ${pk} / ${sk}`);
    return out.Item;
  }

  async put(item: Item): Promise<void> {
    await this.dynamodb.send(new PutItemCommand({ TableName: this.tableName, Item: item }));
  }

  async delete(pk: string, sk: string): Promise<void> {
    await this.dynamodb.send(
      new DeleteItemCommand({ TableName: this.tableName, Key: { pk: { S: pk }, sk: { S: sk } } }),
    );
  }

  /** Rewrites one item with `change` (which gets a copy). */
  async update(pk: string, sk: string, change: (item: Item) => Item): Promise<void> {
    await this.put(change(structuredClone(await this.get(pk, sk))));
  }

  async snapshot(pks: readonly string[]): Promise<Snapshot> {
    return new Map(await Promise.all(pks.map(async (pk) => [pk, await this.query(pk)] as const)));
  }

  /** Puts the partitions back exactly as `snapshot` holds them: items added since are deleted, every item rewritten. */
  async restore(snapshot: Snapshot): Promise<void> {
    const writes: WriteRequest[] = [];
    for (const [pk, items] of snapshot) {
      const kept = new Set(items.map((item) => item.sk?.S));
      for (const item of await this.query(pk)) {
        if (!kept.has(item.sk?.S))
          writes.push({ DeleteRequest: { Key: { pk: item.pk as AttributeValue, sk: item.sk as AttributeValue } } });
      }
      for (const item of items) writes.push({ PutRequest: { Item: item } });
    }
    for (let from = 0; from < writes.length; from += 25) {
      let pending: WriteRequest[] | undefined = writes.slice(from, from + 25);
      while (pending && pending.length > 0) {
        const out: BatchWriteItemCommandOutput = await this.dynamodb.send(
          new BatchWriteItemCommand({ RequestItems: { [this.tableName]: pending } }),
        );
        pending = out.UnprocessedItems?.[this.tableName];
      }
    }
  }
}

/** What an attack may use: the table, and the lineages the matrix sealed. */
export interface AttackContext {
  readonly table: TableWriter;
  /** The attacked lineage. */
  readonly lineageId: string;
  /** Another lineage sealed by the same stack (the source of transplants). */
  readonly otherLineageId: string;
  /** Earlier snapshots of the attacked lineage, by name (e.g. `3 records`), for replays. */
  readonly earlier: ReadonlyMap<string, Snapshot>;
}

/** An attack as data: what it targets, what it does (a short name for the table), and how. */
export interface Attack {
  /** The stored item type attacked: `record`, `tree nodes`, `head`, `residual marker`, … */
  readonly target: string;
  /** The attack, as docs/guarantees.md names it. */
  readonly attack: string;
  readonly apply: (context: AttackContext) => Promise<void>;
  /**
   * Undoes what `apply` did outside the lineages' own partitions (the shared `REJECTION#~unparsed`
   * partition, which other tests write to at the same time, so it is never snapshotted and
   * restored whole): run after the restore.
   */
  readonly undo?: (context: AttackContext) => Promise<void>;
}

/** `item` with its partition key moved to `pk` (a transplant across lineages). */
export function movedTo(item: Item, pk: string): Item {
  return { ...item, pk: { S: pk } };
}

/** The text attribute `name` of `item`. @throws {Error} when it is absent */
export function textOf(item: Item, name: string): string {
  const attribute = item[name];
  // A record item's record is gzip when compression pays (docs/sealing.md, "Stored items").
  const value = attribute?.B !== undefined ? gunzipSync(attribute.B).toString('utf8') : attribute?.S;
  if (value === undefined) throw new Error(`item ${item.pk?.S} / ${item.sk?.S} has no text ${name}`);
  return value;
}

/** `item` with its JSON attribute `name` changed by `change`, written back in its own form (text, or gzip). */
export function withJson(item: Item, name: string, change: (value: Record<string, unknown>) => unknown): Item {
  const text = JSON.stringify(change(JSON.parse(textOf(item, name))));
  return { ...item, [name]: item[name]?.B !== undefined ? { B: gzipSync(text) } : { S: text } };
}

/** The partition key of the attacked lineage. */
export const partitionOf = (context: AttackContext): string => LineageKeys.lineage(context.lineageId);

/** The attack that deletes every item of the lineage's partition: records, head, markers, refusals. */
export async function wipeLineage(context: AttackContext): Promise<void> {
  const pk = partitionOf(context);
  for (const item of await context.table.query(pk)) await context.table.delete(pk, item.sk?.S as string);
}

/**
 * A triage answer as the table writer writes it under a recall's request id before triage answers:
 * the answer's shape (docs/pipeline.md, "Learning the outcome of a write") with no record, no
 * verification and no proof, and `outcome` (e.g. `{ outcome: 'REFUSED', refusalCode, … }`) on top.
 */
export function forgedTriageAnswer(
  detail: { readonly requestId: string; readonly lineageId: string },
  outcome: Record<string, unknown>,
): Record<string, unknown> {
  return {
    formatVersion: 1,
    requestId: detail.requestId,
    lineageId: detail.lineageId,
    seq: null,
    residualId: null,
    verification: null,
    report: null,
    proof: null,
    completedAtMs: Date.now(),
    ...outcome,
  };
}

/**
 * A rejection item as the table writer writes it (docs/pipeline.md, "Table layout"): the
 * guard's `STALE_STATE` refusal of `residualId` at `atMs` (ms since the epoch, which also orders
 * its sort key), with no signed statement, so no reader may take it for the guard's.
 */
export function forgedRejection(lineageId: string, residualId: string, atMs: number): Item {
  return {
    pk: { S: LineageKeys.rejection(lineageId) },
    sk: { S: LineageKeys.rejectionSk(atMs, 'm-forged') },
    stage: { S: 'GUARD' },
    reason: { S: 'STALE_STATE' },
    residualId: { S: residualId },
    messageId: { S: 'm-forged' },
    bodyDigest: { S: 'b'.repeat(64) },
    bodyPreview: { S: '{}' },
    issues: { S: '[]' },
    rejectedVariables: { S: '[]' },
    requestViolations: { S: '[]' },
    atMs: { N: String(atMs) },
  };
}
