/**
 * Counts of AWS calls by operation (`Service.Operation`, e.g. `KMS.GenerateMac`), with the bytes
 * each call carried and the DynamoDB capacity the service reported for it. Filled by the SDK
 * middleware (bench/stack/counting-middleware.ts) and the counting proxy
 * (bench/stack/counting-proxy.ts); read as differences between two snapshots.
 */

/** DynamoDB operations that take `ReturnConsumedCapacity` (and so report what they consumed). */
export const CAPACITY_OPERATIONS: ReadonlySet<string> = new Set([
  'GetItem',
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'Query',
  'Scan',
  'BatchGetItem',
  'BatchWriteItem',
  'TransactGetItems',
  'TransactWriteItems',
]);

/** What one operation added up to. */
export interface CallStats {
  readonly calls: number;
  /** Request body bytes (what SQS and EventBridge bill by the 64 KiB chunk). */
  readonly requestBytes: number;
  /** Response body bytes. */
  readonly responseBytes: number;
  /** Read capacity units DynamoDB reported (`ConsumedCapacity`). */
  readonly readUnits: number;
  /** Write capacity units DynamoDB reported (`ConsumedCapacity`). */
  readonly writeUnits: number;
  /** The largest request body, bytes. */
  readonly maxRequestBytes: number;
  /** Billing units of the requests, by {@link billedUnitsOf}. */
  readonly billedUnits: number;
  /** Entries of the calls (a batch call's messages or events; 1 for any other call); absent: one a call. */
  readonly entries?: number;
  /**
   * Read units of the items a `BatchGetItem` returned, by DynamoDB's rule (each item's size rounded
   * up to 4 KB, half for an eventually consistent read), for calls whose capacity the emulator does
   * not report ({@link itemReadUnits}); absent or 0 otherwise. An estimate: item sizes are taken
   * from the attributes returned.
   */
  readonly estimatedReadUnits?: number;
}

/** Counts by operation name. */
export type CallCounts = Readonly<Record<string, CallStats>>;

/** One observed call. */
export interface CallSample {
  readonly service: string;
  readonly operation: string;
  readonly requestBytes: number;
  readonly responseBytes: number;
  /** The response's `ConsumedCapacity` (DynamoDB), as returned: one object or a list. */
  readonly consumedCapacity?: unknown;
  /** Entries of a batch call (`PutEvents`, `SendMessageBatch`, …); 1 otherwise. */
  readonly entries?: number;
  /** {@link CallStats.estimatedReadUnits} of this call. */
  readonly estimatedReadUnits?: number;
}

/** Bytes of a DynamoDB attribute value as its item-size rule counts them (strings UTF-8, binary raw, numbers about half their digits). */
function attributeBytes(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  const [type, inner] = Object.entries(value as Record<string, unknown>)[0] ?? [];
  if (type === 'S' && typeof inner === 'string') return Buffer.byteLength(inner);
  if (type === 'B' && inner instanceof Uint8Array) return inner.byteLength;
  if (type === 'N' && typeof inner === 'string') return Math.ceil(inner.length / 2) + 1;
  if (type === 'BOOL' || type === 'NULL') return 1;
  if (type === 'M' && typeof inner === 'object' && inner !== null)
    return 3 + itemBytes(inner as Record<string, unknown>);
  if (type === 'L' && Array.isArray(inner)) return 3 + inner.reduce((sum: number, v) => sum + 1 + attributeBytes(v), 0);
  return Buffer.byteLength(JSON.stringify(inner ?? null));
}

/** An item's size by DynamoDB's rule: its attribute names and values. */
function itemBytes(item: Record<string, unknown>): number {
  return Object.entries(item).reduce((sum, [name, value]) => sum + Buffer.byteLength(name) + attributeBytes(value), 0);
}

/**
 * The read units the items of a `BatchGetItem` output would cost (`Responses`, as the low-level
 * client returns them): each item's size rounded up to 4 KB, one unit each, half when `consistent`
 * is `false`. For an emulator that reports no `ConsumedCapacity` for this operation.
 */
export function itemReadUnits(responses: unknown, consistent: boolean): number {
  if (typeof responses !== 'object' || responses === null) return 0;
  let units = 0;
  for (const items of Object.values(responses as Record<string, unknown>)) {
    if (!Array.isArray(items)) continue;
    for (const item of items) units += Math.max(1, Math.ceil(itemBytes(item as Record<string, unknown>) / 4096));
  }
  return consistent ? units : units / 2;
}

/** The 64 KiB chunk SQS and EventBridge bill by. */
export const BILLING_CHUNK_BYTES = 64 * 1024;

/**
 * Billing units of one call: SQS bills a request, batch or not, by its payload's 64 KiB chunks (a
 * `SendMessageBatch` of ten small messages is one request); EventBridge bills each entry of a
 * `PutEvents` as an event (and each 64 KiB chunk of one): the larger of its entries and its body's
 * chunks. Other services: one a call (their units are counted apart).
 */
export function billedUnitsOf(sample: Pick<CallSample, 'service' | 'requestBytes' | 'entries'>): number {
  const chunks = Math.max(1, Math.ceil(sample.requestBytes / BILLING_CHUNK_BYTES));
  if (sample.service === 'SQS' || sample.service === 'SQS-FIFO') return chunks;
  if (sample.service === 'EventBridge') return Math.max(sample.entries ?? 1, chunks);
  return 1;
}

/**
 * Service name of a call: `SQS-FIFO` for an SQS call on a FIFO queue (its URL ends in `.fifo`),
 * priced apart from the standard queue's.
 */
export function serviceOf(service: string, queueUrl: unknown): string {
  return service === 'SQS' && typeof queueUrl === 'string' && queueUrl.endsWith('.fifo') ? 'SQS-FIFO' : service;
}

const EMPTY: CallStats = {
  calls: 0,
  requestBytes: 0,
  responseBytes: 0,
  readUnits: 0,
  writeUnits: 0,
  maxRequestBytes: 0,
  billedUnits: 0,
  entries: 0,
};

// DynamoDB operations whose `CapacityUnits` are write units when the response does not split them.
const DYNAMODB_WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems']);

/**
 * Read and write units of a DynamoDB `ConsumedCapacity` (one entry or a list, as the operation
 * returns it): `ReadCapacityUnits` / `WriteCapacityUnits` when the service splits them, else
 * `CapacityUnits` attributed by the operation's kind.
 */
export function capacityOf(operation: string, consumed: unknown): { readUnits: number; writeUnits: number } {
  const entries = Array.isArray(consumed) ? consumed : consumed === undefined || consumed === null ? [] : [consumed];
  let readUnits = 0;
  let writeUnits = 0;
  for (const entry of entries) {
    if (typeof entry !== 'object' || entry === null) continue;
    const { CapacityUnits, ReadCapacityUnits, WriteCapacityUnits } = entry as Record<string, unknown>;
    const num = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);
    const read = num(ReadCapacityUnits);
    const write = num(WriteCapacityUnits);
    if (read !== undefined || write !== undefined) {
      readUnits += read ?? 0;
      writeUnits += write ?? 0;
    } else if (DYNAMODB_WRITES.has(operation)) {
      writeUnits += num(CapacityUnits) ?? 0;
    } else {
      readUnits += num(CapacityUnits) ?? 0;
    }
  }
  return { readUnits, writeUnits };
}

/** A running count of AWS calls by operation. */
export class CallTally {
  readonly #by = new Map<string, CallStats>();

  /** Adds one call. */
  record(sample: CallSample): void {
    const key = `${sample.service}.${sample.operation}`;
    const before = this.#by.get(key) ?? EMPTY;
    const { readUnits, writeUnits } = capacityOf(sample.operation, sample.consumedCapacity);
    this.#by.set(key, {
      calls: before.calls + 1,
      requestBytes: before.requestBytes + sample.requestBytes,
      responseBytes: before.responseBytes + sample.responseBytes,
      readUnits: before.readUnits + readUnits,
      writeUnits: before.writeUnits + writeUnits,
      maxRequestBytes: Math.max(before.maxRequestBytes, sample.requestBytes),
      billedUnits: before.billedUnits + billedUnitsOf(sample),
      entries: (before.entries ?? before.calls) + (sample.entries ?? 1),
      estimatedReadUnits: (before.estimatedReadUnits ?? 0) + (sample.estimatedReadUnits ?? 0),
    });
  }

  /** The counts so far (a copy). */
  snapshot(): CallCounts {
    return Object.fromEntries(this.#by);
  }
}

/**
 * What happened between two snapshots of one tally: `after` minus `before`, by operation
 * (operations with no call in between are left out; `maxRequestBytes` is `after`'s).
 */
export function countsSince(after: CallCounts, before: CallCounts): CallCounts {
  const out: Record<string, CallStats> = {};
  for (const [key, stats] of Object.entries(after)) {
    const base = before[key] ?? EMPTY;
    const calls = stats.calls - base.calls;
    if (calls === 0) continue;
    out[key] = {
      calls,
      requestBytes: stats.requestBytes - base.requestBytes,
      responseBytes: stats.responseBytes - base.responseBytes,
      readUnits: stats.readUnits - base.readUnits,
      writeUnits: stats.writeUnits - base.writeUnits,
      maxRequestBytes: stats.maxRequestBytes,
      billedUnits: stats.billedUnits - base.billedUnits,
      estimatedReadUnits: (stats.estimatedReadUnits ?? 0) - (base.estimatedReadUnits ?? 0),
      entries: (stats.entries ?? stats.calls) - (base.entries ?? base.calls),
    };
  }
  return out;
}

/** Two sets of counts added up, by operation. */
export function addCounts(a: CallCounts, b: CallCounts): CallCounts {
  const out: Record<string, CallStats> = { ...a };
  for (const [key, stats] of Object.entries(b)) {
    const base = out[key] ?? EMPTY;
    out[key] = {
      calls: base.calls + stats.calls,
      requestBytes: base.requestBytes + stats.requestBytes,
      responseBytes: base.responseBytes + stats.responseBytes,
      readUnits: base.readUnits + stats.readUnits,
      writeUnits: base.writeUnits + stats.writeUnits,
      maxRequestBytes: Math.max(base.maxRequestBytes, stats.maxRequestBytes),
      billedUnits: base.billedUnits + stats.billedUnits,
      estimatedReadUnits: (base.estimatedReadUnits ?? 0) + (stats.estimatedReadUnits ?? 0),
      entries: (base.entries ?? base.calls) + (stats.entries ?? stats.calls),
    };
  }
  return out;
}

/** Counts of several parties (e.g. each function's), by party name. */
export type PartyCounts = Readonly<Record<string, CallCounts>>;

/** Snapshots of a tally per party (a party's tally may appear with its first call). */
export function snapshotParties(tallies: ReadonlyMap<string, CallTally>): PartyCounts {
  return Object.fromEntries([...tallies].map(([party, tally]) => [party, tally.snapshot()]));
}

/**
 * {@link countsSince} per party: a party absent from `before` counts from nothing, one with no
 * call in between is left out.
 */
export function partyCountsSince(after: PartyCounts, before: PartyCounts): PartyCounts {
  const out: Record<string, CallCounts> = {};
  for (const [party, counts] of Object.entries(after)) {
    const since = countsSince(counts, before[party] ?? {});
    if (Object.keys(since).length > 0) out[party] = since;
  }
  return out;
}
