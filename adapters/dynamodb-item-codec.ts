import { gunzipSync, gzipSync } from 'node:zlib';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { convertToNative, marshall } from '@aws-sdk/util-dynamodb';
import { z } from 'zod';
import { canonicalJson } from '../shared/canonical/canonical-json';
import { parseStrictJson } from '../shared/canonical/strict-json';
import { ManifestReadBoundError, type ResidualLocation, StrictJsonError } from '../shared/errors';
import type { LogEntry } from '../shared/log/log-extension';
import type { StoredLogHead } from '../shared/log/log-state';
import type { RejectionReason, RejectionStage, TriageCompletedDetail } from '../shared/pipeline/messages';
import { HeadLayout } from '../shared/ports/head-layout';
import type { AppendBatch, ConflictReason, ConflictRecord, RejectionRecord } from '../shared/ports/lineage-store';
import type { LineageHead, SealedRecord } from '../shared/seal/sealed-record';
import { Keys } from './dynamodb-table-keys';
import { smallHeadItem } from './small-head-item';

/**
 * The items of the lineage table, to and from DynamoDB's `AttributeValue` form, through the SDK's
 * own `marshall` / `convertToNative` (`@aws-sdk/util-dynamodb`).
 *
 * Writing: plain objects of strings, numbers and bytes, marshalled in their key order, so the
 * bytes on the wire are the ones hand-built `{ S }` / `{ N }` / `{ B }` values gave. JSON-valued
 * attributes are stored as strings (canonical JSON for headers), never as maps; the binary
 * attributes are a manifest item's gzip-compressed manifest and a record item's gzip-compressed
 * record (text when compression does not pay).
 *
 * Reading: the table is not trusted (the table writer of the threat model can put any attribute
 * of any type). Each attribute is read as an own property of the item and converted by the SDK,
 * then kept only when it has the type the field needs: a string field holding a number, a set,
 * a map or a binary reads as absent, and a number field holding a string reads as absent: junk
 * is refused, never coerced. Numbers convert with `Number`, as DynamoDB numbers always did here
 * (no BigInt, no throw on an imprecise number: the verifier judges the value). Stored JSON is
 * read with the strict parser ({@link parseStrictJson}): text that repeats a member name, like
 * text that does not parse, reads as the field's fallback, never as whichever value a parser kept
 * (the Python reader refuses it the same way; docs/canonical-form.md, "Hostile-input policy:
 * duplicate member names").
 */

/** One DynamoDB item. */
export type Item = Record<string, AttributeValue>;

/** Native attribute values the table's items are built of (optional ones may be `undefined`: left out). */
type Attributes = Record<string, string | number | Uint8Array | undefined>;

/** `attributes` as a DynamoDB item; `undefined` values are left out. */
export function itemOf(attributes: Attributes): Item {
  return marshall(attributes, { removeUndefinedValues: true });
}

/** The native value of attribute `name`, as the SDK converts it; `undefined` when the item lacks it. */
function attribute(item: Item | undefined, name: string): unknown {
  if (!item || !Object.hasOwn(item, name)) return undefined;
  const value = item[name];
  if (value === null || typeof value !== 'object') return undefined;
  try {
    return convertToNative(value, { wrapNumbers: Number });
  } catch {
    return undefined; // an AttributeValue of no type the SDK knows
  }
}

/** String attribute `name`, or `undefined` when absent or of another type. */
export function readString(item: Item | undefined, name: string): string | undefined {
  const value = attribute(item, name);
  return typeof value === 'string' ? value : undefined;
}

/** Binary attribute `name`, or `undefined` when absent or of another type. */
export function readBinary(item: Item | undefined, name: string): Uint8Array | undefined {
  const value = attribute(item, name);
  return value instanceof Uint8Array ? value : undefined;
}

/** Number attribute `name` (`Number` of its text), or `undefined` when absent or of another type. */
export function readNumber(item: Item | undefined, name: string): number | undefined {
  const value = attribute(item, name);
  return typeof value === 'number' ? value : undefined;
}

/**
 * Number attribute `name` when it is a sequence number (a safe integer ≥ 0), else `undefined`: a
 * seq such as `1e100` or `-3` is malformed, never a bound a reader walks towards.
 */
export function readSeq(item: Item | undefined, name: string): number | undefined {
  const value = readNumber(item, name);
  return value !== undefined && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

/** Marks stored text that is not strict JSON (it does not parse, or it repeats a member name). */
const NOT_JSON: unique symbol = Symbol('not strict JSON');

/** The strict JSON of stored `text`, or {@link NOT_JSON}. */
function parseStored(text: string): unknown {
  try {
    return parseStrictJson(text, 'stored JSON');
  } catch (error) {
    if (!(error instanceof StrictJsonError)) throw error;
    return NOT_JSON;
  }
}

/** The JSON held by string attribute `name`, or `fallback` when absent, of another type or not strict JSON. */
export function readJson<T>(item: Item, name: string, fallback: T): T {
  const text = readString(item, name);
  if (text === undefined) return fallback;
  const value = parseStored(text);
  return value === NOT_JSON ? fallback : (value as T);
}

// --- The chain: records, head, residual-id markers ---------------------------------------------

/**
 * The head item of an append: the batch's last record's seq, record hash and epoch, its head-state
 * MAC, the frontier and the policy, in `layout` ({@link HeadLayout}): `small` is `smallHeadItem`
 * (adapters/small-head-item.ts: the frontier binary, no signed checkpoint; a batch without a
 * head-state MAC, a test's old head, is written compatible); `compatible` also with the tip record's
 * header copy, `mac`, `keyId`, `residualId` (and a signed checkpoint, when the batch carries one)
 * and the frontier as JSON hex, as every head was stored before (docs/sealing.md, "Migration").
 */
export function headItem(batch: AppendBatch, last: SealedRecord, layout: HeadLayout): Item {
  const claims = {
    pk: Keys.lineage(batch.lineageId),
    sk: Keys.head,
    seq: last.header.monotonicSequenceNumber,
    recordHash: last.recordHash,
    generationEpoch: last.header.generationEpoch,
    ...(batch.headMac ? { headMac: canonicalJson(batch.headMac) } : {}),
    ...(batch.policy ? { policy: canonicalJson(batch.policy) } : {}),
  };
  if (layout === HeadLayout.SMALL && batch.headMac) {
    // The tip's header, MAC, key id and residual id are the tip record's own; the head-state MAC
    // covers seq, record hash, epoch, tree and policy digest without them (docs/sealing.md, "The head item").
    return smallHeadItem({
      lineageId: batch.lineageId,
      tip: {
        seq: last.header.monotonicSequenceNumber,
        recordHash: last.recordHash,
        generationEpoch: last.header.generationEpoch,
      },
      headMac: batch.headMac,
      frontier: batch.frontier,
      policy: batch.policy ?? null,
    });
  }
  return itemOf({
    ...claims,
    mac: last.anchor.mac,
    keyId: last.anchor.keyId,
    residualId: last.header.residualId,
    header: canonicalJson(last.header),
    ...(batch.checkpoint ? { checkpoint: batch.checkpoint } : {}),
    frontier: JSON.stringify(batch.frontier),
  });
}

/**
 * Most a stored record may inflate to, as a multiple of its compressed bytes. The writer
 * compresses a record only when it stays within this ratio ({@link storedRecordBytes}), so an
 * honest item always reads; a planted one (a "zip bomb") makes a reader allocate at most this
 * multiple of what it read, per item (docs/sealing.md, "Stored items").
 */
export const MAX_RECORD_INFLATION = 16;

/**
 * A record's canonical JSON as the record item stores it: gzip-compressed (binary) when that is
 * smaller and inflates at most {@link MAX_RECORD_INFLATION} times, else the text itself. Its hex
 * digests, key ARNs and JSON names are about half redundant, so a 1 KiB write's record drops from
 * about 3 KB to under 2 KB: 2 WCU instead of 3 or 4, twice over in the append's transaction.
 */
export function storedRecordBytes(text: string): string | Uint8Array {
  const compressed = gzipSync(text);
  const size = Buffer.byteLength(text);
  return compressed.byteLength < size && size <= MAX_RECORD_INFLATION * compressed.byteLength ? compressed : text;
}

/**
 * The record item of a log entry: the record as canonical JSON without its manifest, which is
 * stored once in the manifest item its header names ({@link manifestItem}), compressed when that
 * pays ({@link storedRecordBytes}), with the tree nodes it completes, binary ({@link nodesOf};
 * docs/pipeline.md, "Data layout").
 */
export function recordItem(lineageId: string, { record, nodes }: LogEntry): Item {
  // The nodes in binary, 32 bytes each: half the bytes of their hex text (a few dozen per record).
  const seq = record.header.monotonicSequenceNumber;
  const { manifest: _stored, ...withoutManifest } = record;
  return itemOf({
    pk: Keys.lineage(lineageId),
    sk: Keys.record(seq),
    record: storedRecordBytes(canonicalJson(withoutManifest)),
    nodes: Buffer.concat(nodes.map((hash) => Buffer.from(hash, 'hex'))),
  });
}

/**
 * The tree nodes a record item stores, `nodes[level]` as hex (docs/verifiable-log.md, "Stored
 * state"): binary, 32 bytes a node (the layout since records were compressed), or a JSON array of
 * hex text (items written before; read as they stand). `null` when absent or malformed (binary not
 * a whole number of nodes, text that is not a list): a proof needing it then fails.
 */
export function nodesOf(item: Item): unknown[] | null {
  const bytes = readBinary(item, 'nodes');
  if (bytes !== undefined) return bytes.byteLength % 32 === 0 ? hashesOf(bytes) : null;
  const text = readJson<unknown>(item, 'nodes', null);
  return Array.isArray(text) ? text : null;
}

/** `bytes` (a whole number of 32-byte hashes) as hex hashes, in order. */
function hashesOf(bytes: Uint8Array): string[] {
  const hashes: string[] = [];
  for (let at = 0; at < bytes.byteLength; at += 32)
    hashes.push(Buffer.from(bytes.subarray(at, at + 32)).toString('hex'));
  return hashes;
}

/**
 * The content-addressed item of a record's manifest: keyed by the record's lineage and the digest
 * its header names (`MANIFEST#<lineageId>#<manifestDigest>`), the manifest's canonical JSON
 * gzip-compressed in binary attribute `manifest` (its baseline hashes are hex text, about half of
 * which gzip takes back). Every record of the lineage naming that digest shares it; the reader
 * reattaches it and the verifier recomputes the digest (docs/sealing.md, "Stored items"). Keyed
 * by lineage so that a tenant's manifests are its own partitions (docs/authorship.md, "Tenancy", "Reads").
 */
export function manifestItem(record: SealedRecord): Item {
  return itemOf({
    pk: Keys.manifest(record.header.lineageId, record.header.manifestDigest),
    sk: Keys.manifestSk,
    manifest: gzipSync(canonicalJson(record.manifest)),
  });
}

/**
 * Most bytes a stored manifest may inflate to: a manifest item holds at most 400 KB compressed,
 * and this bounds what a planted one (a "zip bomb") can make a reader allocate.
 */
export const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;

/**
 * Most bytes the manifests of one read (`readRecord`, one `readChain` page) may inflate to
 * together: N planted items of {@link MAX_MANIFEST_BYTES} each would otherwise cost N × 4 MiB of
 * inflation and memory (docs/sealing.md, "Stored items").
 */
export const MAX_MANIFEST_BYTES_PER_READ = 64 * 1024 * 1024;

/** What is left of one read's {@link MAX_MANIFEST_BYTES_PER_READ}; {@link manifestOf} spends it. */
export class ManifestReadBudget {
  /** Bytes the manifests of this read may still inflate to. */
  remaining: number;
  constructor(bytes: number = MAX_MANIFEST_BYTES_PER_READ) {
    this.remaining = bytes;
  }
}

/**
 * The stored manifest of a manifest item: the parsed JSON; the text when it does not parse, or
 * `null` when the attribute is not binary, not gzip, or inflates past {@link MAX_MANIFEST_BYTES}
 * (either way the verifier refuses the record); `undefined` when the item has no `manifest`. What
 * it inflates is taken from `budget` (a fresh one by default: one item read alone).
 * @throws {ManifestReadBoundError} naming the item's digest when it would take the read's
 *   manifests past the budget's bound: the read stops there, never holding more
 */
export function manifestOf(item: Item, budget: ManifestReadBudget = new ManifestReadBudget()): unknown {
  if (attribute(item, 'manifest') === undefined) return undefined;
  const bytes = readBinary(item, 'manifest');
  if (!bytes) return null;
  const limit = Math.min(MAX_MANIFEST_BYTES, budget.remaining);
  const overBudget = () =>
    new ManifestReadBoundError(Keys.manifestDigestOf(readString(item, 'pk') ?? ''), MAX_MANIFEST_BYTES_PER_READ);
  if (limit < 1) throw overBudget();
  let text: string;
  try {
    const inflated = gunzipSync(bytes, { maxOutputLength: limit });
    budget.remaining -= inflated.byteLength;
    text = inflated.toString('utf8');
  } catch (error) {
    // Past the budget but maybe within the per-item cap: the read stops, whichever it was.
    if ((error as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE' && limit < MAX_MANIFEST_BYTES) throw overBudget();
    return null;
  }
  const value = parseStored(text);
  return value === NOT_JSON ? text : value;
}

const HEX_DIGEST = /^[0-9a-f]{64}$/;

/**
 * The manifest digest a stored record names when its item carries no manifest of its own (the
 * content-addressed layout), else `undefined`: a format-1 item, which embeds its manifest, or a
 * record too malformed to name a well-formed digest (the verifier refuses it as it stands).
 */
export function sharedManifestDigestOf(stored: unknown): string | undefined {
  if (stored === null || typeof stored !== 'object' || Array.isArray(stored)) return undefined;
  if (Object.hasOwn(stored, 'manifest')) return undefined;
  const header = (stored as { header?: unknown }).header;
  if (header === null || typeof header !== 'object') return undefined;
  const digest = (header as { manifestDigest?: unknown }).manifestDigest;
  return typeof digest === 'string' && HEX_DIGEST.test(digest) ? digest : undefined;
}

/**
 * `stored` with the manifest of its shared item put back, as the record was sealed; unchanged when
 * it embeds one, names none, or its manifest item is missing (the record then fails the strict
 * record schema: tampering, never a pass).
 */
export function withSharedManifest(stored: unknown, manifests: ReadonlyMap<string, unknown>): unknown {
  const digest = sharedManifestDigestOf(stored);
  if (digest === undefined || !manifests.has(digest)) return stored;
  return { ...(stored as object), manifest: manifests.get(digest) };
}

/** The residual-id marker of a log entry (idempotency, per lineage). */
export function markerItem(lineageId: string, { record }: LogEntry): Item {
  return itemOf({
    pk: Keys.lineage(lineageId),
    sk: Keys.residualSk(record.header.residualId),
    lineageId,
    seq: record.header.monotonicSequenceNumber,
  });
}

/**
 * A head item as a {@link LineageHead} claim (unverified; missing fields read as `-1` / `''` /
 * `0`, and so does a seq that is not a sequence number: {@link readSeq}).
 */
export function headOf(lineageId: string, item: Item | undefined): LineageHead | null {
  if (!item) return null;
  return {
    lineageId,
    seq: readSeq(item, 'seq') ?? -1,
    recordHash: readString(item, 'recordHash') ?? '',
    generationEpoch: readNumber(item, 'generationEpoch') ?? 0,
    mac: readString(item, 'mac') ?? '',
    keyId: readString(item, 'keyId') ?? '',
  };
}

/**
 * The stored frontier of a head item, hex: binary, 32 bytes a hash (the small head,
 * docs/sealing.md, "The append's layout"), or a JSON array of strings (heads stored before; each
 * checked by the log state); `null` when absent or malformed (binary not a whole number of hashes,
 * text that is not a list of strings), as {@link nodesOf} reads a record's nodes.
 */
export function frontierOf(item: Item): string[] | null {
  const bytes = readBinary(item, 'frontier');
  if (bytes !== undefined) return bytes.byteLength % 32 === 0 ? hashesOf(bytes) : null;
  const frontier = readJson<unknown>(item, 'frontier', null);
  return Array.isArray(frontier) && frontier.every((h) => typeof h === 'string') ? frontier : null;
}

/**
 * A head item as the log state it claims (unverified; {@link headOf}, {@link frontierOf}, the
 * stored JSON of `header`, `policy` and `headMac`, `null` when absent or unreadable): the legacy
 * head with its tip `header` and the small head without one (docs/sealing.md, "The append's
 * layout") read alike; `claimedLogState` (shared/log/log-state.ts) tells them apart.
 */
export function logHeadOf(lineageId: string, item: Item | undefined): StoredLogHead | null {
  const head = headOf(lineageId, item);
  if (!item || !head) return null;
  return {
    head,
    header: readJson<unknown>(item, 'header', null),
    checkpoint: readString(item, 'checkpoint') ?? null,
    frontier: frontierOf(item),
    policy: readJson<unknown>(item, 'policy', null),
    headMac: readJson<unknown>(item, 'headMac', null),
  };
}

/**
 * A residual-id marker as a location (unverified). A `seq` that is not a safe integer ≥ 0 (above
 * 2^53, negative, fractional) is not a seq: it reads as `-1`, like a missing one, so no reader
 * mistakes its rounded value for a record's.
 */
export function locationOf(item: Item): ResidualLocation {
  return { lineageId: readString(item, 'lineageId') ?? '', seq: readSeq(item, 'seq') ?? -1 };
}

/**
 * The stored record: parsed JSON, or the raw text when it is not strict JSON (the verifier refuses
 * it); `null` when the item has no `record`, or one that is neither text nor gzip that inflates
 * within {@link MAX_RECORD_INFLATION} times its size. Both forms read: text (items written before
 * records were compressed, and records compression does not shrink) and gzip (docs/sealing.md,
 * "Stored items").
 */
export function recordOf(item: Item): unknown {
  const value = attribute(item, 'record');
  let text: string;
  if (typeof value === 'string') text = value;
  else if (value instanceof Uint8Array && value.byteLength > 0) {
    try {
      text = gunzipSync(value, { maxOutputLength: MAX_RECORD_INFLATION * value.byteLength }).toString('utf8');
    } catch {
      return null; // not gzip, cut short, or past the ratio: refused, never inflated further
    }
  } else return null;
  const parsed = parseStored(text);
  return parsed === NOT_JSON ? text : parsed;
}

// --- Outcomes: conflicts, rejections, triage reports --------------------------------------------

/** The item of a conflict record (JSON fields as JSON text). */
export function conflictItem(conflict: ConflictRecord): Item {
  return itemOf({
    pk: Keys.lineage(conflict.lineageId),
    sk: Keys.conflict(conflict.residualId, conflict.atMs, conflict.messageId),
    residualId: conflict.residualId,
    reason: conflict.reason,
    detail: conflict.detail,
    attemptedHeader: JSON.stringify(conflict.attemptedHeader),
    expectedHead: JSON.stringify(conflict.expectedHead),
    observedHead: JSON.stringify(conflict.observedHead),
    atMs: conflict.atMs,
    messageId: conflict.messageId,
    requestDigest: conflict.requestDigest || undefined,
    statement: conflict.statement || undefined,
  });
}

/** The item of a rejection record (JSON fields as JSON text; empty optional fields left out). */
export function rejectionItem(rejection: RejectionRecord): Item {
  return itemOf({
    pk: Keys.rejection(rejection.lineageId),
    sk: Keys.rejectionSk(rejection.atMs, rejection.messageId),
    stage: rejection.stage,
    reason: rejection.reason,
    messageId: rejection.messageId,
    bodyDigest: rejection.bodyDigest,
    bodyPreview: rejection.bodyPreview,
    issues: JSON.stringify(rejection.issues),
    rejectedVariables: JSON.stringify(rejection.rejectedVariables),
    requestViolations: JSON.stringify(rejection.requestViolations),
    atMs: rejection.atMs,
    residualId: rejection.residualId || undefined,
    verdictDigest: rejection.verdictDigest || undefined,
    requestDigest: rejection.requestDigest || undefined,
    statement: rejection.statement || undefined,
  });
}

/** The item of a triage report: the report as JSON text, with its outcome and verdicts beside it. */
export function triageReportItem(report: TriageCompletedDetail): Item {
  return itemOf({
    pk: Keys.triage(report.lineageId),
    sk: report.requestId,
    report: JSON.stringify(report),
    outcome: report.outcome,
    verification: report.verification?.verdict,
    verdict: report.report?.verdict,
  });
}

const IssueListSchema = z.array(z.looseObject({ path: z.string(), message: z.string() }));
const VariableListSchema = z.array(z.looseObject({ name: z.string(), reason: z.string(), detail: z.string() }));
const ViolationListSchema = z.array(z.looseObject({ field: z.string(), reason: z.string(), detail: z.string() }));
const StoredHeadSchema = z
  .looseObject({
    lineageId: z.string(),
    seq: z.number().int().min(0),
    recordHash: z.string(),
    generationEpoch: z.number().int().min(0),
    mac: z.string(),
    keyId: z.string(),
  })
  .nullable();

/**
 * The JSON list or object of attribute `name` read with `schema`: its value, or `fallback` with
 * the reason pushed onto `unreadable` when the attribute is there but does not parse or fit. Junk
 * in a refusal item is named once here, so no formatter ever walks it.
 */
function readJsonAs<T>(item: Item, name: string, schema: z.ZodType<T>, fallback: T, unreadable: string[]): T {
  if (attribute(item, name) === undefined) return fallback;
  const text = readString(item, name);
  const stored = text === undefined ? undefined : parseStored(text);
  const parsed = schema.safeParse(stored === NOT_JSON ? undefined : stored);
  if (parsed.success) return parsed.data;
  unreadable.push(name);
  return fallback;
}

/** `{ unreadable }` naming the attributes that could not be read, or nothing when all could. */
const unreadableOf = (names: readonly string[]) =>
  names.length === 0 ? {} : { unreadable: `unreadable ${names.join(', ')}` };

/**
 * A conflict item as a {@link ConflictRecord} (unverified; absent fields read as empty / null).
 * A JSON field that is present but malformed reads as `null` and is named in `unreadable`.
 */
export function conflictOf(lineageId: string, item: Item): ConflictRecord {
  const unreadable: string[] = [];
  const record: ConflictRecord = {
    lineageId,
    residualId: readString(item, 'residualId') ?? '',
    reason: (readString(item, 'reason') ?? '') as ConflictReason,
    detail: readString(item, 'detail') ?? '',
    attemptedHeader: readJson<unknown>(item, 'attemptedHeader', null),
    expectedHead: readJsonAs<LineageHead | null>(item, 'expectedHead', StoredHeadSchema, null, unreadable),
    observedHead: readJsonAs<LineageHead | null>(item, 'observedHead', StoredHeadSchema, null, unreadable),
    atMs: readNumber(item, 'atMs') ?? 0,
    messageId: readString(item, 'messageId') ?? '',
    requestDigest: readString(item, 'requestDigest') ?? null,
    statement: readString(item, 'statement') ?? null,
  };
  return { ...record, ...unreadableOf(unreadable) };
}

/**
 * A rejection item as a {@link RejectionRecord} (unverified; absent fields read as empty / null).
 * A list field that is present but not a list of the right shape reads as `[]` and is named in `unreadable`.
 */
export function rejectionOf(lineageId: string, item: Item): RejectionRecord {
  const unreadable: string[] = [];
  const record: RejectionRecord = {
    stage: (readString(item, 'stage') ?? '') as RejectionStage,
    reason: (readString(item, 'reason') ?? '') as RejectionReason,
    lineageId,
    residualId: readString(item, 'residualId') ?? null,
    messageId: readString(item, 'messageId') ?? '',
    verdictDigest: readString(item, 'verdictDigest') ?? null,
    bodyDigest: readString(item, 'bodyDigest') ?? '',
    bodyPreview: readString(item, 'bodyPreview') ?? '',
    issues: readJsonAs<RejectionRecord['issues']>(item, 'issues', IssueListSchema, [], unreadable),
    rejectedVariables: readJsonAs(item, 'rejectedVariables', VariableListSchema, [], unreadable),
    requestViolations: readJsonAs(item, 'requestViolations', ViolationListSchema, [], unreadable),
    atMs: readNumber(item, 'atMs') ?? 0,
    requestDigest: readString(item, 'requestDigest') ?? null,
    statement: readString(item, 'statement') ?? null,
  };
  return { ...record, ...unreadableOf(unreadable) };
}

/** A stored triage report as stored (unverified: parse it with `TriageCompletedDetailSchema`); text that does not parse stays text. */
export function triageReportOf(item: Item | undefined): TriageCompletedDetail | null {
  const text = readString(item, 'report');
  if (text === undefined) return null;
  const value = parseStored(text);
  return (value === NOT_JSON ? text : value) as TriageCompletedDetail;
}
