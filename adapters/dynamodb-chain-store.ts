import { type AttributeValue, PutItemCommand, TransactWriteItemsCommand } from '@aws-sdk/client-dynamodb';
import type { HexDigest } from '../shared/canonical/digest';
import {
  DuplicateResidualError,
  LineageInconsistentError,
  type ResidualLocation,
  StaleHeadError,
} from '../shared/errors';
import type { StoredLogHead } from '../shared/log/log-state';
import { lastLeafOf, type NodeRef } from '../shared/log/node-ref';
import type { AppendBatch, LineageStore } from '../shared/ports/lineage-store';
import type { LineageHead } from '../shared/seal/sealed-record';
import { type BatchGetOptions, batchGetItems } from './dynamodb-batch-get';
import {
  headItem,
  headOf,
  type Item,
  itemOf,
  locationOf,
  logHeadOf,
  ManifestReadBudget,
  manifestItem,
  manifestOf,
  markerItem,
  nodesOf,
  readBinary,
  readString,
  recordItem,
  recordOf,
  sharedManifestDigestOf,
  withSharedManifest,
} from './dynamodb-item-codec';
import type { LineageTable } from './dynamodb-table';
import { Keys } from './dynamodb-table-keys';

/** The chain half of the {@link LineageStore} port: records, head, residual-id markers, tree nodes. */
export type ChainStore = Pick<
  LineageStore,
  'head' | 'lastRecordSeq' | 'logHead' | 'appendEntries' | 'readNodes' | 'readRecord' | 'findByResidualId' | 'readChain'
>;

/**
 * Positions of the actions in the append transaction; cancellation reasons come back in this
 * order: the head first, then per entry its record and its residual-id marker.
 */
export const AppendAction = {
  HEAD: 0,
  recordOf: (entry: number) => 1 + 2 * entry,
  markerOf: (entry: number) => 2 + 2 * entry,
} as const;

/** Manifest digests a store remembers as put before it forgets them all (a bound on a warm sealer's memory). */
const MANIFEST_CACHE_LIMIT = 10_000;

/** The seq the first record sort key of `items` names, skipping keys that are not `RECORD#` and 16 digits (junk); `null` when none does. */
function firstRecordSeqOf(items: readonly Item[]): number | null {
  for (const item of items) {
    const match = /^RECORD#(\d{16})$/.exec(readString(item, 'sk') ?? '');
    const seq = match ? Number(match[1]) : Number.NaN;
    if (Number.isSafeInteger(seq)) return seq;
  }
  return null;
}

/**
 * The chain of each lineage in the table (docs/pipeline.md, "Data layout", "Append").
 *
 * `appendEntries` first puts each manifest of the batch it has not put since it was made, in its
 * content-addressed item (docs/sealing.md, "Stored items"), then makes one `TransactWriteItems`:
 * the head first, then per record its item and its residual-id marker ({@link AppendAction}):
 * - the head `LINEAGE#<id>` / `HEAD` only if absent (first record) or still the expected one (seq,
 *   record hash and epoch as read; the sealer fenced the epoch against its authenticated tip);
 * - each record `LINEAGE#<id>` / `RECORD#<seq:16>` only if absent, with the tree nodes it completes;
 * - each marker `LINEAGE#<id>` / `RESIDUAL#<residualId>` only if absent (idempotency, per lineage).
 * Each carries `ReturnValuesOnConditionCheckFailure: ALL_OLD`, and the cancellation reasons are
 * read by position: a marker failed → {@link DuplicateResidualError}; the head failed, or a
 * `TransactionConflict` → {@link StaleHeadError} (a newer epoch seen there included: the table's
 * word, not a fencing decision); only a record failed (the head held, so the head is behind the
 * records) → {@link LineageInconsistentError}. Any other failure is rethrown as is (transient:
 * the message is retried).
 */
export class DynamoDBChainStore implements ChainStore {
  readonly #table: LineageTable;
  /** Digests of the manifest items this store has put (a warm sealer reads them back instead of writing them again). */
  readonly #manifestsPut = new Set<string>();

  constructor(table: LineageTable) {
    this.#table = table;
  }

  async head(lineageId: string): Promise<LineageHead | null> {
    return headOf(lineageId, await this.#table.get(Keys.lineage(lineageId), Keys.head));
  }

  async lastRecordSeq(lineageId: string): Promise<number | null> {
    // BETWEEN the first and last well-formed record keys: a junk `RECORD#…` key outside the seq
    // range (`RECORD#~`, 17 digits) is never read. One inside it that is not 16 digits
    // (`RECORD#5x`, `RECORD#2`) sorts among or after the real keys: it is skipped, so it can
    // neither end the scan nor hide the real last record (a head rewound below it stays visible).
    const query = {
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :first AND :last',
      ExpressionAttributeValues: itemOf({
        ':pk': Keys.lineage(lineageId),
        ':first': Keys.record(0),
        // The largest seq there can be (2^53 − 1): a junk key above it is outside the range.
        ':last': Keys.record(Number.MAX_SAFE_INTEGER),
      }),
      ProjectionExpression: 'pk, sk',
      ScanIndexForward: false,
    };
    let startingToken: Item | undefined;
    // The common case: the last key is a real record's, one page of one key.
    for await (const probe of this.#table.queryPages(query, { pageSize: 1 })) {
      const seq = firstRecordSeqOf(probe.Items ?? []);
      if (seq !== null) return seq;
      startingToken = probe.LastEvaluatedKey;
      break;
    }
    if (startingToken === undefined) return null;
    // Junk keys at the end of the range: on after them, 100 keys a page.
    for await (const page of this.#table.queryPages(query, { pageSize: 100, startingToken })) {
      const seq = firstRecordSeqOf(page.Items ?? []);
      if (seq !== null) return seq;
    }
    return null;
  }

  async logHead(lineageId: string): Promise<StoredLogHead | null> {
    return logHeadOf(lineageId, await this.#table.get(Keys.lineage(lineageId), Keys.head));
  }

  async appendEntries(batch: AppendBatch): Promise<void> {
    const { lineageId, entries, expectedHead } = batch;
    const last = entries.at(-1)?.record;
    if (!last) throw new Error('appendEntries: no entries');
    await this.#storeManifests(entries);
    const { tableName } = this.#table;
    // The head as read, unchanged (seq, record hash and epoch): any change since is a race. The
    // epoch is not fenced here: the sealer fences against its authenticated tip (the signed head
    // record's epoch), never against this attribute, which the table writer can edit.
    const headCondition = expectedHead
      ? {
          ConditionExpression: '#seq = :expectedSeq AND #recordHash = :expectedHash AND #epoch = :expectedEpoch',
          ExpressionAttributeNames: { '#seq': 'seq', '#recordHash': 'recordHash', '#epoch': 'generationEpoch' },
          ExpressionAttributeValues: itemOf({
            ':expectedSeq': expectedHead.seq,
            ':expectedHash': expectedHead.recordHash,
            ':expectedEpoch': expectedHead.generationEpoch,
          }),
        }
      : { ConditionExpression: 'attribute_not_exists(pk)' };
    const ifAbsent = {
      ConditionExpression: 'attribute_not_exists(pk)',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
    };
    const headPut = {
      Put: {
        TableName: tableName,
        Item: headItem(batch, last),
        ...headCondition,
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
      },
    };
    const entryPuts = entries.flatMap((entry) => [
      { Put: { TableName: tableName, Item: recordItem(lineageId, entry), ...ifAbsent } },
      { Put: { TableName: tableName, Item: markerItem(lineageId, entry), ...ifAbsent } },
    ]);
    try {
      await this.#table.client.send(new TransactWriteItemsCommand({ TransactItems: [headPut, ...entryPuts] }));
    } catch (error) {
      throw await this.#mapCancellation(error, batch);
    }
  }

  async #mapCancellation(error: unknown, batch: AppendBatch): Promise<unknown> {
    if ((error as Error)?.name !== 'TransactionCanceledException') return error;
    const { lineageId, entries, expectedHead } = batch;
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
      // Emulators may omit ALL_OLD items; then read the head. Whatever it says (a newer epoch
      // included) is the table's claim: the sealer re-reads and re-authenticates.
      const observed = old ? headOf(lineageId, old) : await this.head(lineageId);
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

  /**
   * Puts the manifest item of each distinct manifest of `entries`, outside the append's
   * transaction: content-addressed, so an item left by an append that then fails is the same bytes
   * any later append needs. The condition writes it when absent or when its bytes differ (an item
   * the table writer planted or edited is put back), and leaves an identical one alone; a failed
   * condition is that identical item, never an error. A digest this store has put before is not
   * taken on trust: its item is read back (one consistent `BatchGetItem` for all of them, billed
   * as reads) and put again only when it is gone or differs, so a deleted item never stays missing
   * behind a warm sealer's memory (docs/sealing.md, "Writing it").
   */
  async #storeManifests(entries: AppendBatch['entries']): Promise<void> {
    const { client, tableName } = this.#table;
    // Keyed by partition key: one item per lineage and digest (`MANIFEST#<lineageId>#<digest>`).
    const wanted = new Map<string, Item>();
    for (const { record } of entries) {
      const item = manifestItem(record);
      const pk = readString(item, 'pk') ?? '';
      if (!wanted.has(pk)) wanted.set(pk, item);
    }
    const remembered = [...wanted.keys()].filter((pk) => this.#manifestsPut.has(pk));
    if (remembered.length > 0) {
      const stored = await this.#batchGet(remembered.map((pk) => itemOf({ pk, sk: Keys.manifestSk })));
      for (const item of stored) {
        const pk = readString(item, 'pk') ?? '';
        const expected = wanted.get(pk)?.manifest?.B;
        const bytes = readBinary(item, 'manifest');
        if (expected && bytes && Buffer.from(bytes).equals(Buffer.from(expected))) wanted.delete(pk);
      }
    }
    for (const [pk, item] of wanted) {
      try {
        await client.send(
          new PutItemCommand({
            TableName: tableName,
            Item: item,
            ConditionExpression: 'attribute_not_exists(pk) OR #manifest <> :manifest',
            ExpressionAttributeNames: { '#manifest': 'manifest' },
            ExpressionAttributeValues: { ':manifest': item.manifest as AttributeValue },
          }),
        );
      } catch (error) {
        if ((error as Error)?.name !== 'ConditionalCheckFailedException') throw error;
      }
      if (this.#manifestsPut.size >= MANIFEST_CACHE_LIMIT) this.#manifestsPut.clear();
      this.#manifestsPut.add(pk);
    }
  }

  /**
   * `stored` records of `lineageId` with the manifests of their shared items put back
   * ({@link withSharedManifest}), read with `BatchGetItem` (each distinct digest once) under the
   * lineage's keys `MANIFEST#<lineageId>#<digest>`; a digest not found there is read once more
   * under the earlier layout's `MANIFEST#<digest>` (records sealed before manifests were keyed by
   * lineage). Unverified, like the records.
   * @throws {ManifestReadBoundError} when their manifests inflate past `MAX_MANIFEST_BYTES_PER_READ` together
   */
  async #withManifests(lineageId: string, stored: readonly unknown[]): Promise<unknown[]> {
    const digests = [...new Set(stored.map(sharedManifestDigestOf).filter((d): d is string => d !== undefined))];
    if (digests.length === 0) return [...stored];
    const manifests = new Map<string, unknown>();
    const budget = new ManifestReadBudget();
    const read = async (keys: readonly { digest: string; pk: string }[]) => {
      const byPk = new Map(keys.map((k) => [k.pk, k.digest]));
      for (const item of await this.#batchGet(keys.map(({ pk }) => itemOf({ pk, sk: Keys.manifestSk })))) {
        const digest = byPk.get(readString(item, 'pk') ?? '');
        if (digest === undefined) continue;
        const manifest = manifestOf(item, budget);
        if (manifest !== undefined) manifests.set(digest, manifest);
      }
    };
    await read(digests.map((digest) => ({ digest, pk: Keys.manifest(lineageId, digest) })));
    const earlier = digests.filter((digest) => !manifests.has(digest));
    if (earlier.length > 0) await read(earlier.map((digest) => ({ digest, pk: Keys.sharedManifest(digest) })));
    return stored.map((record) => withSharedManifest(record, manifests));
  }

  /** Every item of `keys` present in the table (consistent reads, all batches, unprocessed keys retried: {@link batchGetItems}). */
  #batchGet(keys: readonly Item[], projection?: BatchGetOptions['projection']): Promise<Item[]> {
    const { client, tableName } = this.#table;
    return batchGetItems(client, tableName, keys, { consistentRead: true, projection });
  }

  async readNodes(lineageId: string, refs: readonly NodeRef[]): Promise<(HexDigest | null)[]> {
    const seqs = [...new Set(refs.map(lastLeafOf))].filter((seq) => Number.isSafeInteger(seq));
    const nodesBySeq = new Map<number, unknown>();
    const items = await this.#batchGet(
      seqs.map((seq) => itemOf({ pk: Keys.lineage(lineageId), sk: Keys.record(seq) })),
      { expression: 'sk, #nodes', names: { '#nodes': 'nodes' } },
    );
    for (const item of items) {
      const seq = Number((readString(item, 'sk') ?? '').slice(Keys.recordPrefix.length));
      nodesBySeq.set(seq, nodesOf(item));
    }
    return refs.map((ref) => {
      const nodes = nodesBySeq.get(lastLeafOf(ref));
      const hash = Array.isArray(nodes) ? nodes[ref.level] : undefined;
      return typeof hash === 'string' ? hash : null;
    });
  }

  async readRecord(lineageId: string, seq: number): Promise<unknown | null> {
    const item = await this.#table.get(Keys.lineage(lineageId), Keys.record(seq));
    if (!item) return null;
    const [record] = await this.#withManifests(lineageId, [recordOf(item)]);
    return record;
  }

  async findByResidualId(lineageId: string, residualId: string): Promise<ResidualLocation | null> {
    const item = await this.#table.get(Keys.lineage(lineageId), Keys.residualSk(residualId));
    return item ? locationOf(item) : null;
  }

  async readChain(lineageId: string, fromSeq: number, toSeq: number): Promise<unknown[]> {
    const items = await this.#table.queryAll({
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: itemOf({
        ':pk': Keys.lineage(lineageId),
        ':from': Keys.record(fromSeq),
        ':to': Keys.record(toSeq),
      }),
    });
    return this.#withManifests(lineageId, items.map(recordOf));
  }
}
