import { type AttributeValue, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { canonicalJson } from '../shared/canonical/canonical-json';
import type { HexDigest } from '../shared/canonical/digest';
import { RecordSeqTakenError, type ResidualLocation, StaleHeadError } from '../shared/errors';
import { lastLeafOf } from '../shared/log/last-leaf';
import type { LogEntry } from '../shared/log/log-extension';
import type { StoredLogHead } from '../shared/log/log-state';
import type { NodeRef } from '../shared/log/node-ref';
import { DEFAULT_HEAD_LAYOUT, type HeadLayout } from '../shared/ports/head-layout';
import type { AppendBatch, LineageStore, ReadChainOptions } from '../shared/ports/lineage-store';
import { MAX_KEPT_MANIFEST_BYTES, type ManifestCache } from '../shared/ports/manifest-cache';
import type { LineageHead } from '../shared/seal/lineage-head';
import { manifestDigest } from '../shared/triage/manifest-digest';
import { type BatchGetOptions, batchGetItems } from './batch-get-items';
import { headItem, headOf, logHeadOf } from './head-item';
import { type Item, itemOf } from './item';
import { LineageKeys } from './lineage-keys';
import type { LineageTable } from './lineage-table';
import {
  ManifestReadBudget,
  manifestItem,
  manifestOf,
  sharedManifestDigestOf,
  withSharedManifest,
} from './manifest-item';
import { markerItem, markerLocationOf } from './marker-item';
import { readBinary, readString } from './read-attribute';
import { recordItem, recordNodesOf, recordOf } from './record-item';

/** The chain half of the {@link LineageStore} port: records, head, residual-id markers, tree nodes. */
export type ChainStore = Pick<
  LineageStore,
  | 'head'
  | 'lastRecordSeq'
  | 'logHead'
  | 'putRecords'
  | 'moveHead'
  | 'readNodes'
  | 'readRecord'
  | 'findByResidualId'
  | 'readChain'
>;

/** Options of {@link DynamoDBChainStore}. */
export interface ChainStoreOptions {
  /**
   * Where `readRecord` keeps the manifests it read (default none). A manifest item is
   * content-addressed and a record names its digest, so one kept only once it hashes to that
   * digest, and used only once it hashes to it again, is the item's bytes: a client proving one
   * write after another reads its agent's manifest once (docs/pipeline.md, "Learning the outcome
   * of a write"), and a CLI keeping them on disk once across runs; the integrator's `readChain`
   * asks for them too (`keptManifests`: it needs the records' hashes, once a lineage's manifest is
   * read). Walks, audits and the sealer read the table as it stands (`readChain`), so a deleted
   * manifest item still shows there.
   */
  readonly manifestCache?: ManifestCache;
}

/** Whether `manifest` is one a {@link ManifestCache} keeps for `digest`: an object hashing to it, at most {@link MAX_KEPT_MANIFEST_BYTES}. */
function keepableManifest(manifest: unknown, digest: string): boolean {
  if (manifest === null || typeof manifest !== 'object') return false;
  try {
    return (
      Buffer.byteLength(canonicalJson(manifest), 'utf8') <= MAX_KEPT_MANIFEST_BYTES &&
      manifestDigest(manifest) === digest
    );
  } catch {
    return false; // not a manifest the schema takes (the record's check refuses it): never kept
  }
}

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

/** Whether `items` hold a well-formed record key for every seq from `fromSeq` to `toSeq`. */
function coversSeqs(items: readonly Item[], fromSeq: number, toSeq: number): boolean {
  const seqs = new Set<number>();
  for (const item of items) {
    const match = /^RECORD#(\d{16})$/.exec(readString(item, 'sk') ?? '');
    const seq = match ? Number(match[1]) : Number.NaN;
    if (seq >= fromSeq && seq <= toSeq) seqs.add(seq);
  }
  return seqs.size === toSeq - fromSeq + 1;
}

/**
 * The chain of each lineage in the table (docs/pipeline.md, "Data layout"; docs/sealing.md, "The
 * write"). An append is two steps and no transaction:
 * - `putRecords`: each manifest of the run this store has not put since it was made, in its
 *   content-addressed item (docs/sealing.md, "Stored items"); then each record `LINEAGE#<id>` /
 *   `RECORD#<seq:16>` with the tree nodes it completes, one `PutItem` each, only if absent, in seq
 *   order after the previous one landed ({@link RecordSeqTakenError} names how many did);
 * - `moveHead`: the head `LINEAGE#<id>` / `HEAD` in the store's {@link HeadLayout}, only if absent
 *   (first record) or still the one read (seq, record hash and epoch; the sealer fenced the epoch
 *   against its authenticated tip), {@link StaleHeadError} otherwise; then each residual-id marker
 *   `LINEAGE#<id>` / `RESIDUAL#<residualId>`, a plain `PutItem`.
 * Any other failure is rethrown as is (transient: the message is retried).
 */
export class DynamoDBChainStore implements ChainStore {
  readonly #table: LineageTable;
  /** Digests of the manifest items this store has put (a warm sealer reads them back instead of writing them again). */
  readonly #manifestsPut = new Set<string>();

  readonly #headLayout: HeadLayout;
  /** Manifests `readRecord` read that hash to their digest, by item key ({@link ChainStoreOptions.manifestCache}); else `null`. */
  readonly #manifestsRead: ManifestCache | null;

  /**
   * @param headLayout - the head item's attributes the store writes (docs/sealing.md, "Migration")
   * @param options - see {@link ChainStoreOptions}
   */
  constructor(table: LineageTable, headLayout: HeadLayout = DEFAULT_HEAD_LAYOUT, options: ChainStoreOptions = {}) {
    this.#table = table;
    this.#headLayout = headLayout;
    this.#manifestsRead = options.manifestCache ?? null;
  }

  async head(lineageId: string): Promise<LineageHead | null> {
    return headOf(lineageId, await this.#table.get(LineageKeys.lineage(lineageId), LineageKeys.head));
  }

  async lastRecordSeq(lineageId: string): Promise<number | null> {
    // BETWEEN the first and last well-formed record keys: a junk `RECORD#…` key outside the seq
    // range (`RECORD#~`, 17 digits) is never read. One inside it that is not 16 digits
    // (`RECORD#5x`, `RECORD#2`) sorts among or after the real keys: it is skipped, so it can
    // neither end the scan nor hide the real last record (a head rewound below it stays visible).
    const query = {
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :first AND :last',
      ExpressionAttributeValues: itemOf({
        ':pk': LineageKeys.lineage(lineageId),
        ':first': LineageKeys.record(0),
        // The largest seq there can be (2^53 − 1): a junk key above it is outside the range.
        ':last': LineageKeys.record(Number.MAX_SAFE_INTEGER),
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

  async logHead(
    lineageId: string,
    { eventual = false }: { readonly eventual?: boolean } = {},
  ): Promise<StoredLogHead | null> {
    // An eventually consistent copy only when asked: the sealer's first read of a run, whose
    // conditional append catches an older head and which re-reads strongly before any refusal.
    const item = await this.#table.get(LineageKeys.lineage(lineageId), LineageKeys.head, { consistent: !eventual });
    return logHeadOf(lineageId, item);
  }

  async putRecords(lineageId: string, entries: readonly LogEntry[]): Promise<void> {
    if (entries.length === 0) throw new Error('putRecords: no entries');
    await this.#storeManifests(entries);
    const { client, tableName } = this.#table;
    // One after the other, in seq order: a crash leaves a prefix of the run, never a gap.
    for (const [landed, entry] of entries.entries()) {
      try {
        await client.send(
          new PutItemCommand({
            TableName: tableName,
            Item: recordItem(lineageId, entry),
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        );
      } catch (error) {
        if ((error as Error)?.name !== 'ConditionalCheckFailedException') throw error;
        const seq = entry.record.header.monotonicSequenceNumber;
        throw new RecordSeqTakenError(lineageId, seq, landed, { cause: error });
      }
    }
  }

  async moveHead(move: AppendBatch): Promise<void> {
    const { lineageId, entries, expectedHead } = move;
    const last = entries.at(-1)?.record;
    if (!last) throw new Error('moveHead: no entries');
    const { client, tableName } = this.#table;
    // The head as read, unchanged (seq, record hash and epoch): any change since is a race. The
    // epoch is not fenced here: the sealer fences against its authenticated tip, never against
    // this attribute, which the table writer can edit.
    const condition = expectedHead
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
    try {
      await client.send(
        new PutItemCommand({
          TableName: tableName,
          Item: headItem(move, last, this.#headLayout),
          ...condition,
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
    } catch (error) {
      if ((error as Error)?.name !== 'ConditionalCheckFailedException') throw error;
      // Emulators may omit the old item; then read the head. Whatever it says (a newer epoch
      // included) is the table's claim: the sealer re-reads and re-authenticates.
      const old = (error as { Item?: Item }).Item;
      const observed = old ? headOf(lineageId, old) : await this.head(lineageId);
      throw new StaleHeadError(lineageId, expectedHead?.seq ?? null, observed, { cause: error });
    }
    // Plain puts, after the head landed: a marker never names a record past the head's tree.
    await Promise.all(
      entries.map((entry) =>
        client.send(new PutItemCommand({ TableName: tableName, Item: markerItem(lineageId, entry) })),
      ),
    );
  }

  /**
   * Puts the manifest item of each distinct manifest of `entries`, outside the append's
   * transaction: content-addressed, so an item left by an append that then fails is the same bytes
   * any later append needs. The condition writes it when absent or when its bytes differ (an item
   * the table writer planted or edited is put back), and leaves an identical one alone; a failed
   * condition is that identical item, never an error. A digest this store has put before is not
   * taken on trust: its item is read back (one eventually consistent `BatchGetItem` for all of
   * them, billed as half reads) and put again only when it is gone or differs, so a deleted item
   * never stays missing behind a warm sealer's memory (docs/sealing.md, "Writing it"). A stale
   * copy is safe: content-addressed, a copy holding the item's bytes is the item; one that misses
   * it puts it again (the conditional put leaves an identical item alone); one that still shows an
   * item the table writer deleted in the last second leaves the table as his deleting it just
   * after this put would, which he can do at any time.
   */
  async #storeManifests(entries: readonly LogEntry[]): Promise<void> {
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
      const stored = await this.#batchGet(
        remembered.map((pk) => itemOf({ pk, sk: LineageKeys.manifestSk })),
        undefined,
        false,
      );
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
   * lineage's keys `MANIFEST#<lineageId>#<digest>`, eventually consistent first (strongly again for
   * a digest missed: an item is content-addressed, so a copy is the item or nothing; a repaired
   * item read in its first second may show the edit, which the record's digest check refuses); a
   * digest not found there is read once more under the earlier layout's `MANIFEST#<digest>` (records sealed before manifests were keyed by
   * lineage). Unverified, like the records.
   * @throws {ManifestReadBoundError} when their manifests inflate past `MAX_MANIFEST_BYTES_PER_READ` together
   */
  async #withManifests(
    lineageId: string,
    stored: readonly unknown[],
    { kept = false }: { readonly kept?: boolean } = {},
  ): Promise<unknown[]> {
    const digests = [...new Set(stored.map(sharedManifestDigestOf).filter((d): d is string => d !== undefined))];
    if (digests.length === 0) return [...stored];
    const manifests = new Map<string, unknown>();
    const cache = kept ? this.#manifestsRead : null;
    if (cache) {
      // A kept copy is used only once it hashes to the digest again: one edited where it is kept
      // (a file) is forgotten and the item read, never put into the record.
      await Promise.all(
        digests.map(async (digest) => {
          const pk = LineageKeys.manifest(lineageId, digest);
          const manifest = await cache.get(pk);
          if (manifest === undefined) return;
          if (keepableManifest(manifest, digest)) manifests.set(digest, manifest);
          else await cache.delete(pk);
        }),
      );
      if (manifests.size === digests.length) return stored.map((record) => withSharedManifest(record, manifests));
    }
    const budget = new ManifestReadBudget();
    const read = async (keys: readonly { digest: string; pk: string }[], consistent = true) => {
      const byPk = new Map(keys.map((k) => [k.pk, k.digest]));
      const items = await this.#batchGet(
        keys.map(({ pk }) => itemOf({ pk, sk: LineageKeys.manifestSk })),
        undefined,
        consistent,
      );
      for (const item of items) {
        const digest = byPk.get(readString(item, 'pk') ?? '');
        if (digest === undefined) continue;
        const manifest = manifestOf(item, budget);
        if (manifest !== undefined) manifests.set(digest, manifest);
      }
    };
    // Content-addressed: an eventually consistent copy (half the read units) is the item or nothing,
    // and one just written or missed is read again strongly before the earlier layout is tried.
    const keyed = digests
      .filter((digest) => !manifests.has(digest))
      .map((digest) => ({ digest, pk: LineageKeys.manifest(lineageId, digest) }));
    await read(keyed, false);
    const missed = keyed.filter(({ digest }) => !manifests.has(digest));
    if (missed.length > 0) await read(missed);
    if (cache) {
      await Promise.all(
        keyed.map(async ({ digest, pk }) => {
          const manifest = manifests.get(digest);
          if (keepableManifest(manifest, digest)) await cache.set(pk, manifest);
        }),
      );
    }
    const earlier = digests.filter((digest) => !manifests.has(digest));
    if (earlier.length > 0) await read(earlier.map((digest) => ({ digest, pk: LineageKeys.sharedManifest(digest) })));
    return stored.map((record) => withSharedManifest(record, manifests));
  }

  /** Every item of `keys` present in the table (consistent reads unless `consistent` is `false`, all batches, unprocessed keys retried: {@link batchGetItems}). */
  #batchGet(keys: readonly Item[], projection?: BatchGetOptions['projection'], consistent = true): Promise<Item[]> {
    const { client, tableName } = this.#table;
    return batchGetItems(client, tableName, keys, { consistentRead: consistent, projection });
  }

  async readNodes(lineageId: string, refs: readonly NodeRef[]): Promise<(HexDigest | null)[]> {
    const seqs = [...new Set(refs.map(lastLeafOf))].filter((seq) => Number.isSafeInteger(seq));
    const nodesBySeq = new Map<number, unknown>();
    const read = async (wanted: readonly number[], consistent: boolean) => {
      const items = await this.#batchGet(
        wanted.map((seq) => itemOf({ pk: LineageKeys.lineage(lineageId), sk: LineageKeys.record(seq) })),
        { expression: 'sk, #nodes', names: { '#nodes': 'nodes' } },
        consistent,
      );
      for (const item of items) {
        const seq = Number((readString(item, 'sk') ?? '').slice(LineageKeys.recordPrefix.length));
        nodesBySeq.set(seq, recordNodesOf(item));
      }
    };
    // A record is put once, before the head that names it, and every node read is hashed into a
    // root the reader checks: an eventually consistent copy (half the read units) is the item or
    // nothing, and a seq it misses is read again strongly, so no node is taken as absent from it.
    await read(seqs, false);
    const missed = seqs.filter((seq) => !nodesBySeq.has(seq));
    if (missed.length > 0) await read(missed, true);
    return refs.map((ref) => {
      const nodes = nodesBySeq.get(lastLeafOf(ref));
      const hash = Array.isArray(nodes) ? nodes[ref.level] : undefined;
      return typeof hash === 'string' ? hash : null;
    });
  }

  async readRecord(lineageId: string, seq: number): Promise<unknown | null> {
    // Put once and checked against the head's tree by every reader: eventually consistent first,
    // strongly again before answering "no record" (LineageTable.getWritten).
    const item = await this.#table.getWritten(LineageKeys.lineage(lineageId), LineageKeys.record(seq));
    if (!item) return null;
    const [record] = await this.#withManifests(lineageId, [recordOf(item)], { kept: true });
    return record;
  }

  async findByResidualId(
    lineageId: string,
    residualId: string,
    { eventual = false }: { readonly eventual?: boolean } = {},
  ): Promise<ResidualLocation | null> {
    const item = await this.#table.get(LineageKeys.lineage(lineageId), LineageKeys.residualSk(residualId), {
      consistent: !eventual,
    });
    return item ? markerLocationOf(item) : null;
  }

  async readChain(
    lineageId: string,
    fromSeq: number,
    toSeq: number,
    { eventual = false, recheck = true, keptManifests = false }: ReadChainOptions = {},
  ): Promise<unknown[]> {
    const query = {
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: itemOf({
        ':pk': LineageKeys.lineage(lineageId),
        ':from': LineageKeys.record(fromSeq),
        ':to': LineageKeys.record(toSeq),
      }),
    };
    // Records are written once: a stale copy holding every seq of the range is what a strong read
    // returns; one missing any (just written, or gone) is read again strongly, unless the caller
    // keeps the copy as it is (`recheck: false`: a missed record cannot mislead it).
    let items = eventual ? await this.#table.queryAll(query, { consistent: false }) : [];
    if (!eventual || (recheck && !coversSeqs(items, fromSeq, toSeq))) items = await this.#table.queryAll(query);
    return this.#withManifests(lineageId, items.map(recordOf), { kept: keptManifests });
  }
}
