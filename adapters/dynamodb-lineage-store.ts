import {
  type AttributeValue,
  BatchGetItemCommand,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  type QueryCommandInput,
  type TransactWriteItem,
  TransactWriteItemsCommand,
} from '@aws-sdk/client-dynamodb';
import { canonicalJson } from '../shared/canonical/canonical-json';
import type { HexDigest } from '../shared/canonical/digest';
import {
  DuplicateResidualError,
  LineageInconsistentError,
  type ResidualLocation,
  StaleEpochError,
  StaleHeadError,
} from '../shared/errors';
import type { StoredLogHead } from '../shared/log/log-state';
import type { NodeRef } from '../shared/log/merkle';
import type { RejectionReason, RejectionStage, TriageCompletedDetail } from '../shared/pipeline/messages';
import type {
  AppendBatch,
  ConflictReason,
  ConflictRecord,
  LineageStore,
  OutcomeFilter,
  RejectionRecord,
} from '../shared/ports/lineage-store';
import type { LineageHead, SealedRecord } from '../shared/seal/sealed-record';

/** The part of `DynamoDBClient` this adapter uses (a fake with `send` serves unit tests). */
export type DynamoDBSend = Pick<DynamoDBClient, 'send'>;

type Item = Record<string, AttributeValue>;

/**
 * Partition suffix of rejections whose body names no usable lineage. `~` is outside the
 * identifier alphabet, so no real lineage (not even one named `unparsed`) can share it.
 */
const UNPARSED = '~unparsed';

/** Keys of the single table (string `pk`, `sk`; docs/pipeline.md, "Data layout"); the only place that knows them. */
export const Keys = {
  lineage: (lineageId: string) => `LINEAGE#${lineageId}`,
  record: (seq: number) => `RECORD#${String(seq).padStart(16, '0')}`,
  /** Prefix of every record sk (`begins_with` for the last record). */
  recordPrefix: 'RECORD#',
  head: 'HEAD',
  /** The residual-id marker lives in its lineage's partition: ids are scoped to the lineage. */
  residualSk: (residualId: string) => `RESIDUAL#${residualId}`,
  /** One item per refused message: two writes of one residual id refused at the same time stay two. */
  conflict: (residualId: string, atMs: number, messageId: string) =>
    `CONFLICT#${residualId}#${new Date(atMs).toISOString()}#${messageId}`,
  rejection: (lineageId: string | null) => `REJECTION#${lineageId ?? UNPARSED}`,
  rejectionSk: (atMs: number, messageId: string) => `${new Date(atMs).toISOString()}#${messageId}`,
  triage: (lineageId: string) => `TRIAGE#${lineageId}`,
} as const;

/**
 * Positions of the actions in the append transaction; cancellation reasons come back in this
 * order: the head first, then per entry its record and its residual-id marker.
 */
export const AppendAction = {
  HEAD: 0,
  recordOf: (entry: number) => 1 + 2 * entry,
  markerOf: (entry: number) => 2 + 2 * entry,
} as const;

/** Keys per `BatchGetItem` call (the DynamoDB limit). */
const BATCH_GET_LIMIT = 100;

/** Waits before retrying unprocessed keys: exponential with full jitter, at most 1 s. */
function backoff(attempt: number): Promise<void> {
  const ms = Math.random() * Math.min(1000, 25 * 2 ** attempt);
  return new Promise((resolve) => setTimeout(resolve, ms));
}

const S = (value: string): AttributeValue => ({ S: value });
const N = (value: number): AttributeValue => ({ N: String(value) });
const str = (item: Item | undefined, name: string): string | undefined => item?.[name]?.S;
const num = (item: Item | undefined, name: string): number | undefined => {
  const raw = item?.[name]?.N;
  return raw === undefined ? undefined : Number(raw);
};

/**
 * {@link LineageStore} over one DynamoDB table (docs/pipeline.md, "Data layout").
 *
 * `append` is one `TransactWriteItems` of three actions, in this order:
 * 0. put the record `LINEAGE#<id>` / `RECORD#<seq:16>` only if absent;
 * 1. put the head `LINEAGE#<id>` / `HEAD` only if absent (first record) or still at the expected
 *    seq and record hash with an epoch not newer than the write's (fencing token);
 * 2. put the marker `LINEAGE#<id>` / `RESIDUAL#<residualId>` only if absent (idempotency, per lineage).
 * Each carries `ReturnValuesOnConditionCheckFailure: ALL_OLD`, and the cancellation reasons are
 * read by position: marker failed → {@link DuplicateResidualError}; head failed with a newer
 * epoch → {@link StaleEpochError}; head failed otherwise, or a `TransactionConflict` →
 * {@link StaleHeadError}; only the record failed (the head held, so the head is behind the
 * records) → {@link LineageInconsistentError}. Any other failure is rethrown as is (transient:
 * the message is retried).
 */
export class DynamoDBLineageStore implements LineageStore {
  readonly #client: DynamoDBSend;
  readonly #tableName: string;

  constructor(client: DynamoDBSend, tableName: string) {
    this.#client = client;
    this.#tableName = tableName;
  }

  async head(lineageId: string): Promise<LineageHead | null> {
    return headOf(lineageId, await this.#headItem(lineageId));
  }

  async #headItem(lineageId: string): Promise<Item | undefined> {
    const out = await this.#client.send(
      new GetItemCommand({
        TableName: this.#tableName,
        Key: { pk: S(Keys.lineage(lineageId)), sk: S(Keys.head) },
        ConsistentRead: true,
      }),
    );
    return out.Item;
  }

  async lastRecordSeq(lineageId: string): Promise<number | null> {
    const out = await this.#client.send(
      new QueryCommand({
        TableName: this.#tableName,
        // BETWEEN the first and last well-formed record keys: an item with a junk `RECORD#…` sort
        // key (not 16 digits) can neither end the scan nor hide the real last record.
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :first AND :last',
        ExpressionAttributeValues: {
          ':pk': S(Keys.lineage(lineageId)),
          ':first': S(Keys.record(0)),
          // The largest seq there can be (2^53 − 1): a junk key above it is outside the range.
          ':last': S(Keys.record(Number.MAX_SAFE_INTEGER)),
        },
        ScanIndexForward: false,
        Limit: 1,
        ConsistentRead: true,
      }),
    );
    const sk = str(out.Items?.[0], 'sk');
    if (sk === undefined) return null;
    const seq = Number(sk.slice(Keys.recordPrefix.length));
    return Number.isSafeInteger(seq) && seq >= 0 ? seq : null;
  }

  async logHead(lineageId: string): Promise<StoredLogHead | null> {
    const item = await this.#headItem(lineageId);
    const head = headOf(lineageId, item);
    if (!item || !head) return null;
    return {
      head,
      header: json<unknown>(item, 'header', null),
      checkpoint: str(item, 'checkpoint') ?? null,
      frontier: json<string[] | null>(item, 'frontier', null),
    };
  }

  async appendEntries(batch: AppendBatch): Promise<void> {
    const { lineageId, entries, expectedHead } = batch;
    const last = entries.at(-1)?.record;
    if (!last) throw new Error('appendEntries: no entries');
    const pk = S(Keys.lineage(lineageId));
    const { generationEpoch } = last.header;
    const headCondition = expectedHead
      ? {
          ConditionExpression: '#seq = :expectedSeq AND #recordHash = :expectedHash AND #epoch <= :epoch',
          ExpressionAttributeNames: { '#seq': 'seq', '#recordHash': 'recordHash', '#epoch': 'generationEpoch' },
          ExpressionAttributeValues: {
            ':expectedSeq': N(expectedHead.seq),
            ':expectedHash': S(expectedHead.recordHash),
            ':epoch': N(generationEpoch),
          },
        }
      : { ConditionExpression: 'attribute_not_exists(pk)' };
    const headPut = {
      Put: {
        TableName: this.#tableName,
        Item: {
          pk,
          sk: S(Keys.head),
          seq: N(last.header.monotonicSequenceNumber),
          recordHash: S(last.recordHash),
          generationEpoch: N(generationEpoch),
          mac: S(last.anchor.mac),
          keyId: S(last.anchor.keyId),
          residualId: S(last.header.residualId),
          header: S(canonicalJson(last.header)),
          checkpoint: S(batch.checkpoint),
          frontier: S(JSON.stringify(batch.frontier)),
        },
        ...headCondition,
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
      },
    };
    const entryPuts = entries.flatMap(({ record, nodes }): TransactWriteItem[] => {
      const { monotonicSequenceNumber: seq, residualId } = record.header;
      return [
        {
          Put: {
            TableName: this.#tableName,
            Item: {
              pk,
              sk: S(Keys.record(seq)),
              record: S(canonicalJson(record)),
              seq: N(seq),
              residualId: S(residualId),
              recordHash: S(record.recordHash),
              nodes: S(JSON.stringify(nodes)),
            },
            ConditionExpression: 'attribute_not_exists(pk)',
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
          },
        },
        {
          Put: {
            TableName: this.#tableName,
            Item: { pk, sk: S(Keys.residualSk(residualId)), lineageId: S(lineageId), seq: N(seq) },
            ConditionExpression: 'attribute_not_exists(pk)',
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
          },
        },
      ];
    });
    try {
      await this.#client.send(new TransactWriteItemsCommand({ TransactItems: [headPut, ...entryPuts] }));
    } catch (error) {
      throw await this.#mapCancellation(error, batch);
    }
  }

  async #mapCancellation(error: unknown, batch: AppendBatch): Promise<unknown> {
    if ((error as Error)?.name !== 'TransactionCanceledException') return error;
    const { lineageId, entries, expectedHead } = batch;
    const last = entries.at(-1)?.record as SealedRecord;
    const reasons = (error as { CancellationReasons?: { Code?: string; Item?: Item }[] }).CancellationReasons ?? [];
    const failed = (position: number) => reasons[position]?.Code === 'ConditionalCheckFailed';
    const expectedSeq = expectedHead?.seq ?? null;
    for (const [i, { record }] of entries.entries()) {
      if (!failed(AppendAction.markerOf(i))) continue;
      const { residualId } = record.header;
      const old = reasons[AppendAction.markerOf(i)]?.Item;
      const existing = old ? locationOf(old) : await this.findByResidualId(lineageId, residualId);
      return new DuplicateResidualError(residualId, existing, { cause: error });
    }
    if (failed(AppendAction.HEAD)) {
      const old = reasons[AppendAction.HEAD]?.Item;
      // Emulators may omit ALL_OLD items; then read the head to tell a stale epoch from a moved head.
      const observed = old ? headOf(lineageId, old) : await this.head(lineageId);
      if (observed && observed.generationEpoch > last.header.generationEpoch) {
        return new StaleEpochError(lineageId, observed.generationEpoch, last.header.generationEpoch, { cause: error });
      }
      return new StaleHeadError(lineageId, expectedSeq, observed, { cause: error });
    }
    if (reasons.some((r) => r.Code === 'TransactionConflict')) {
      return new StaleHeadError(lineageId, expectedSeq, null, { cause: error });
    }
    const taken = entries.find((_, i) => failed(AppendAction.recordOf(i)));
    if (taken) {
      // The head condition held (it did not fail), yet a seq after it is taken: the head is
      // behind the records. Not a race: a racing writer would have moved the head too.
      return new LineageInconsistentError(lineageId, taken.record.header.monotonicSequenceNumber, expectedHead, {
        cause: error,
      });
    }
    return error;
  }

  async readNodes(lineageId: string, refs: readonly NodeRef[]): Promise<(HexDigest | null)[]> {
    const seqOf = (ref: NodeRef) => (ref.index + 1) * 2 ** ref.level - 1;
    const seqs = [...new Set(refs.map(seqOf))].filter((seq) => Number.isSafeInteger(seq));
    const nodesBySeq = new Map<number, unknown>();
    for (let i = 0; i < seqs.length; i += BATCH_GET_LIMIT) {
      let keys: Item[] = seqs
        .slice(i, i + BATCH_GET_LIMIT)
        .map((seq) => ({ pk: S(Keys.lineage(lineageId)), sk: S(Keys.record(seq)) }));
      for (let attempt = 0; keys.length > 0; attempt++) {
        const out = await this.#client.send(
          new BatchGetItemCommand({
            RequestItems: {
              [this.#tableName]: {
                Keys: keys,
                ProjectionExpression: 'sk, #nodes',
                ExpressionAttributeNames: { '#nodes': 'nodes' },
                ConsistentRead: true,
              },
            },
          }),
        );
        for (const item of out.Responses?.[this.#tableName] ?? []) {
          const seq = Number((str(item, 'sk') ?? '').slice(Keys.recordPrefix.length));
          nodesBySeq.set(seq, json<unknown>(item, 'nodes', null));
        }
        keys = (out.UnprocessedKeys?.[this.#tableName]?.Keys as Item[] | undefined) ?? [];
        if (keys.length > 0) await backoff(attempt);
      }
    }
    return refs.map((ref) => {
      const nodes = nodesBySeq.get(seqOf(ref));
      const hash = Array.isArray(nodes) ? nodes[ref.level] : undefined;
      return typeof hash === 'string' ? hash : null;
    });
  }

  async readRecord(lineageId: string, seq: number): Promise<unknown | null> {
    const out = await this.#client.send(
      new GetItemCommand({
        TableName: this.#tableName,
        Key: { pk: S(Keys.lineage(lineageId)), sk: S(Keys.record(seq)) },
        ConsistentRead: true,
      }),
    );
    return out.Item ? recordOf(out.Item) : null;
  }

  async findByResidualId(lineageId: string, residualId: string): Promise<ResidualLocation | null> {
    const out = await this.#client.send(
      new GetItemCommand({
        TableName: this.#tableName,
        Key: { pk: S(Keys.lineage(lineageId)), sk: S(Keys.residualSk(residualId)) },
        ConsistentRead: true,
      }),
    );
    return out.Item ? locationOf(out.Item) : null;
  }

  async readChain(lineageId: string, fromSeq: number, toSeq: number): Promise<unknown[]> {
    const records: unknown[] = [];
    let startKey: Item | undefined;
    do {
      const out = await this.#client.send(
        new QueryCommand({
          TableName: this.#tableName,
          KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
          ExpressionAttributeValues: {
            ':pk': S(Keys.lineage(lineageId)),
            ':from': S(Keys.record(fromSeq)),
            ':to': S(Keys.record(toSeq)),
          },
          ConsistentRead: true,
          ExclusiveStartKey: startKey,
        }),
      );
      for (const item of out.Items ?? []) records.push(recordOf(item));
      startKey = out.LastEvaluatedKey;
    } while (startKey);
    return records;
  }

  async recordConflict(conflict: ConflictRecord): Promise<void> {
    await this.#putIfAbsent({
      pk: S(Keys.lineage(conflict.lineageId)),
      sk: S(Keys.conflict(conflict.residualId, conflict.atMs, conflict.messageId)),
      residualId: S(conflict.residualId),
      reason: S(conflict.reason),
      detail: S(conflict.detail),
      attemptedHeader: S(JSON.stringify(conflict.attemptedHeader)),
      expectedHead: S(JSON.stringify(conflict.expectedHead)),
      observedHead: S(JSON.stringify(conflict.observedHead)),
      atMs: N(conflict.atMs),
      messageId: S(conflict.messageId),
      ...(conflict.requestDigest ? { requestDigest: S(conflict.requestDigest) } : {}),
      ...(conflict.statement ? { statement: S(conflict.statement) } : {}),
    });
  }

  async recordRejection(rejection: RejectionRecord): Promise<void> {
    const item: Item = {
      pk: S(Keys.rejection(rejection.lineageId)),
      sk: S(Keys.rejectionSk(rejection.atMs, rejection.messageId)),
      stage: S(rejection.stage),
      reason: S(rejection.reason),
      messageId: S(rejection.messageId),
      bodyDigest: S(rejection.bodyDigest),
      bodyPreview: S(rejection.bodyPreview),
      issues: S(JSON.stringify(rejection.issues)),
      rejectedVariables: S(JSON.stringify(rejection.rejectedVariables)),
      requestViolations: S(JSON.stringify(rejection.requestViolations)),
      atMs: N(rejection.atMs),
    };
    if (rejection.residualId) item.residualId = S(rejection.residualId);
    if (rejection.verdictDigest) item.verdictDigest = S(rejection.verdictDigest);
    if (rejection.requestDigest) item.requestDigest = S(rejection.requestDigest);
    if (rejection.statement) item.statement = S(rejection.statement);
    await this.#putIfAbsent(item);
  }

  async putTriageReport(report: TriageCompletedDetail): Promise<void> {
    await this.#client.send(
      new PutItemCommand({
        TableName: this.#tableName,
        Item: {
          pk: S(Keys.triage(report.lineageId)),
          sk: S(report.requestId),
          report: S(JSON.stringify(report)),
          outcome: S(report.outcome),
          ...(report.verification ? { verification: S(report.verification.verdict) } : {}),
          ...(report.report ? { verdict: S(report.report.verdict) } : {}),
        },
      }),
    );
  }

  async getTriageReport(lineageId: string, requestId: string): Promise<TriageCompletedDetail | null> {
    const out = await this.#client.send(
      new GetItemCommand({
        TableName: this.#tableName,
        Key: { pk: S(Keys.triage(lineageId)), sk: S(requestId) },
        ConsistentRead: true,
      }),
    );
    const text = str(out.Item, 'report');
    if (text === undefined) return null;
    // As stored, unverified: readers parse it with TriageCompletedDetailSchema (unreadable text stays text).
    try {
      return JSON.parse(text) as TriageCompletedDetail;
    } catch {
      return text as unknown as TriageCompletedDetail;
    }
  }

  // --- Outcome reads (listConflicts, listRejections): Query, all pages, sorted as the port says ---
  async listConflicts(lineageId: string, options: OutcomeFilter = {}): Promise<ConflictRecord[]> {
    const prefix =
      options.residualId === undefined ? CONFLICT_SK_PREFIX : `${CONFLICT_SK_PREFIX}${options.residualId}#`;
    const items = await this.#queryAll({
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': S(Keys.lineage(lineageId)), ':prefix': S(prefix) },
    });
    return items.map((item) => conflictOf(lineageId, item)).sort(byTimeThen((c) => c.residualId));
  }

  async listRejections(lineageId: string, options: OutcomeFilter = {}): Promise<RejectionRecord[]> {
    const pk = S(Keys.rejection(lineageId));
    const items = await this.#queryAll(
      options.residualId === undefined
        ? { KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': pk } }
        : {
            KeyConditionExpression: 'pk = :pk',
            FilterExpression: 'residualId = :residualId',
            ExpressionAttributeValues: { ':pk': pk, ':residualId': S(options.residualId) },
          },
    );
    return items.map((item) => rejectionOf(lineageId, item)).sort(byTimeThen((r) => r.messageId));
  }

  async #queryAll(
    query: Pick<QueryCommandInput, 'KeyConditionExpression' | 'FilterExpression' | 'ExpressionAttributeValues'>,
  ): Promise<Item[]> {
    const items: Item[] = [];
    let startKey: Item | undefined;
    do {
      const out = await this.#client.send(
        new QueryCommand({ TableName: this.#tableName, ...query, ConsistentRead: true, ExclusiveStartKey: startKey }),
      );
      items.push(...(out.Items ?? []));
      startKey = out.LastEvaluatedKey;
    } while (startKey);
    return items;
  }
  // --- end outcome reads ---

  /** Put that never overwrites; an identical key already present means the same fact is recorded. */
  async #putIfAbsent(item: Item): Promise<void> {
    try {
      await this.#client.send(
        new PutItemCommand({ TableName: this.#tableName, Item: item, ConditionExpression: 'attribute_not_exists(pk)' }),
      );
    } catch (error) {
      if ((error as Error)?.name !== 'ConditionalCheckFailedException') throw error;
    }
  }
}

function headOf(lineageId: string, item: Item | undefined): LineageHead | null {
  if (!item) return null;
  return {
    lineageId,
    seq: num(item, 'seq') ?? -1,
    recordHash: str(item, 'recordHash') ?? '',
    generationEpoch: num(item, 'generationEpoch') ?? 0,
    mac: str(item, 'mac') ?? '',
    keyId: str(item, 'keyId') ?? '',
  };
}

function locationOf(item: Item): ResidualLocation {
  return { lineageId: str(item, 'lineageId') ?? '', seq: num(item, 'seq') ?? -1 };
}

// --- Outcome item readers (the table is not trusted: unreadable JSON attributes read as null / empty) ---
const CONFLICT_SK_PREFIX = 'CONFLICT#';

function json<T>(item: Item, name: string, fallback: T): T {
  const text = str(item, name);
  if (text === undefined) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

function conflictOf(lineageId: string, item: Item): ConflictRecord {
  return {
    lineageId,
    residualId: str(item, 'residualId') ?? '',
    reason: (str(item, 'reason') ?? '') as ConflictReason,
    detail: str(item, 'detail') ?? '',
    attemptedHeader: json<unknown>(item, 'attemptedHeader', null),
    expectedHead: json<LineageHead | null>(item, 'expectedHead', null),
    observedHead: json<LineageHead | null>(item, 'observedHead', null),
    atMs: num(item, 'atMs') ?? 0,
    messageId: str(item, 'messageId') ?? '',
    requestDigest: str(item, 'requestDigest') ?? null,
    statement: str(item, 'statement') ?? null,
  };
}

function rejectionOf(lineageId: string, item: Item): RejectionRecord {
  return {
    stage: (str(item, 'stage') ?? '') as RejectionStage,
    reason: (str(item, 'reason') ?? '') as RejectionReason,
    lineageId,
    residualId: str(item, 'residualId') ?? null,
    messageId: str(item, 'messageId') ?? '',
    verdictDigest: str(item, 'verdictDigest') ?? null,
    bodyDigest: str(item, 'bodyDigest') ?? '',
    bodyPreview: str(item, 'bodyPreview') ?? '',
    issues: json<RejectionRecord['issues']>(item, 'issues', []),
    rejectedVariables: json<RejectionRecord['rejectedVariables']>(item, 'rejectedVariables', []),
    requestViolations: json<RejectionRecord['requestViolations']>(item, 'requestViolations', []),
    atMs: num(item, 'atMs') ?? 0,
    requestDigest: str(item, 'requestDigest') ?? null,
    statement: str(item, 'statement') ?? null,
  };
}

/** Oldest first by `atMs`, ties by `key` in code-unit order (the in-memory store sorts the same way). */
function byTimeThen<T extends { atMs: number }>(key: (item: T) => string): (a: T, b: T) => number {
  return (a, b) => a.atMs - b.atMs || (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);
}
// --- end outcome item readers ---

/** The stored record: parsed JSON, or the raw text when it no longer parses (the verifier refuses it). */
function recordOf(item: Item): unknown {
  const text = str(item, 'record');
  if (text === undefined) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
