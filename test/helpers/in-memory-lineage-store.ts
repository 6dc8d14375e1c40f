import { canonicalJson } from '../../shared/canonical/canonical-json';
import type { HexDigest } from '../../shared/canonical/digest';
import { RecordSeqTakenError, type ResidualLocation, StaleHeadError } from '../../shared/errors';
import { isHeadKeyMac } from '../../shared/log/head-key-mac';
import { lastLeafOf } from '../../shared/log/last-leaf';
import type { LogEntry } from '../../shared/log/log-extension';
import type { StoredLogHead } from '../../shared/log/log-state';
import type { NodeRef } from '../../shared/log/node-ref';
import type { TriageCompletedDetail } from '../../shared/pipeline/triage-completed-detail';
import { HeadLayout } from '../../shared/ports/head-layout';
import type {
  AppendBatch,
  ConflictRecord,
  LineageStore,
  OutcomeFilter,
  ReadChainOptions,
  RejectionRecord,
} from '../../shared/ports/lineage-store';
import { type LineageHead, lineageHeadOf } from '../../shared/seal/lineage-head';

/**
 * {@link LineageStore} in memory with the DynamoDB adapter's conditional semantics: `putRecords`
 * puts each record in seq order only if its seq is new (taken → {@link RecordSeqTakenError} with
 * how many landed), `moveHead` moves the head only as read (seq, record hash and epoch; else stale
 * head) and then puts the markers. Records are kept as canonical JSON text, so tests can tamper with them as an attacker
 * with table access would ({@link tamperRecord}, {@link deleteRecord}, {@link setHead}).
 */
export class InMemoryLineageStore implements LineageStore {
  readonly records = new Map<string, Map<number, string>>();
  readonly heads = new Map<string, LineageHead>();
  /** The log state of each head item (header, head-state MAC or checkpoint, frontier), as the DynamoDB head item holds it. */
  readonly logHeads = new Map<string, Omit<StoredLogHead, 'head'>>();
  /** Tree nodes stored with each record (lineage → seq → hex hashes by level). */
  readonly nodes = new Map<string, Map<number, unknown>>();
  /** Residual-id markers, keyed by {@link markerKey} (lineage id and residual id). */
  readonly markers = new Map<string, ResidualLocation>();
  readonly conflicts: ConflictRecord[] = [];
  readonly rejections: RejectionRecord[] = [];
  readonly triageReports = new Map<string, TriageCompletedDetail>();
  /**
   * Called inside `putRecords` just before its conditions are checked (simulate a racing writer);
   * the batch carries the records only (no head fields).
   */
  beforeAppend: ((batch: AppendBatch) => Promise<void> | void) | null = null;
  /** Called inside `moveHead` just before its condition is checked (a writer racing the head move). */
  beforeMoveHead: ((move: AppendBatch) => Promise<void> | void) | null = null;
  /** Number of `putRecords` calls (one per append). */
  appendCalls = 0;
  /** Number of `moveHead` calls (one per append, one per roll-forward). */
  headMoves = 0;
  /**
   * When set, the next `putRecords` stores this many of its records and then throws (the sealer
   * crashed between its record puts and its head move: docs/sealing.md, "The write").
   */
  crashAfterRecords: number | null = null;
  /** The head item's attributes `moveHead` writes (docs/sealing.md, "Migration"). */
  headLayout: HeadLayout = HeadLayout.COMPATIBLE;
  /** Number of item reads served (GetItem, Query pages and BatchGetItem keys), for cost assertions. */
  itemReads = 0;

  async head(lineageId: string): Promise<LineageHead | null> {
    const head = this.heads.get(lineageId);
    return head ? { ...head } : null;
  }

  async lastRecordSeq(lineageId: string): Promise<number | null> {
    const seqs = [...(this.records.get(lineageId)?.keys() ?? [])];
    return seqs.length === 0 ? null : Math.max(...seqs);
  }

  /** Always the head as it stands (`options.eventual` asks for a copy, which a test may serve stale). */
  async logHead(lineageId: string, _options?: { readonly eventual?: boolean }): Promise<StoredLogHead | null> {
    this.itemReads++;
    const head = this.heads.get(lineageId);
    if (!head) return null;
    const log = this.logHeads.get(lineageId);
    return structuredClone({
      head,
      header: log?.header ?? null,
      checkpoint: log?.checkpoint ?? null,
      frontier: log?.frontier ?? null,
      policy: log?.policy ?? null,
      headMac: log?.headMac ?? null,
      headKeyMac: log?.headKeyMac ?? null,
    });
  }

  async putRecords(lineageId: string, entries: readonly LogEntry[]): Promise<void> {
    this.appendCalls++;
    await this.beforeAppend?.({
      lineageId,
      entries,
      expectedHead: null,
      headMac: null,
      frontier: [],
    });
    if (entries.length === 0) throw new Error('putRecords: no entries');
    const chain = this.#chain(lineageId);
    for (const [landed, { record, nodes }] of entries.entries()) {
      const seq = record.header.monotonicSequenceNumber;
      if (chain.has(seq)) throw new RecordSeqTakenError(lineageId, seq, landed);
      chain.set(seq, canonicalJson(record));
      this.#nodes(lineageId).set(seq, [...nodes]);
      if (this.crashAfterRecords !== null && landed + 1 >= this.crashAfterRecords) {
        this.crashAfterRecords = null;
        throw new Error('the sealer crashed after storing its records (test)');
      }
    }
  }

  async moveHead(move: AppendBatch): Promise<void> {
    this.headMoves++;
    await this.beforeMoveHead?.(move);
    const { lineageId, entries, expectedHead } = move;
    const last = entries.at(-1)?.record;
    if (!last) throw new Error('moveHead: no entries');
    const head = this.heads.get(lineageId) ?? null;
    const headMatches = expectedHead
      ? head !== null &&
        head.seq === expectedHead.seq &&
        head.recordHash === expectedHead.recordHash &&
        head.generationEpoch === expectedHead.generationEpoch
      : head === null;
    if (!headMatches) throw new StaleHeadError(lineageId, expectedHead?.seq ?? null, head ? { ...head } : null);
    this.heads.set(lineageId, lineageHeadOf(last));
    // As `headItem` writes it: a small head only with a head MAC, and then with no signed checkpoint;
    // a head-key MAC as `headKeyMac` and `headDataKey`, a KMS head-state MAC as `headMac`.
    const small = this.headLayout === HeadLayout.SMALL && move.headMac !== null;
    const keyMac = move.headMac !== null && isHeadKeyMac(move.headMac) ? move.headMac : null;
    this.logHeads.set(lineageId, {
      header: small ? null : structuredClone(last.header),
      checkpoint: small ? null : (move.checkpoint ?? null),
      frontier: [...move.frontier],
      policy: move.policy ? structuredClone(move.policy) : null,
      headMac: move.headMac && keyMac === null ? structuredClone(move.headMac) : null,
      headKeyMac: keyMac ? { mac: Uint8Array.from(keyMac.mac), keyBlob: keyMac.keyBlob } : null,
    });
    for (const { record } of entries) {
      const { monotonicSequenceNumber: seq, residualId } = record.header;
      this.markers.set(markerKey(lineageId, residualId), { lineageId, seq });
    }
  }

  async readNodes(lineageId: string, refs: readonly NodeRef[]): Promise<(HexDigest | null)[]> {
    const stored = this.nodes.get(lineageId);
    this.itemReads += new Set(refs.map(lastLeafOf)).size;
    return refs.map((ref) => {
      const nodes = stored?.get(lastLeafOf(ref));
      const hash = Array.isArray(nodes) ? nodes[ref.level] : undefined;
      return typeof hash === 'string' ? hash : null;
    });
  }

  /** Overwrites the log state of a head item (checkpoint, frontier, header), as a table writer could. */
  setLogHead(lineageId: string, edit: (log: Omit<StoredLogHead, 'head'>) => Omit<StoredLogHead, 'head'>): void {
    const log = this.logHeads.get(lineageId) ?? { header: null, checkpoint: null, frontier: null };
    this.logHeads.set(lineageId, edit(structuredClone(log)));
  }

  /** A copy of a lineage's head item (head fields and log state), as a backup of the table holds it. */
  headSnapshot(lineageId: string): StoredLogHead | null {
    const head = this.heads.get(lineageId);
    if (!head) return null;
    const log = this.logHeads.get(lineageId) ?? { header: null, checkpoint: null, frontier: null };
    return structuredClone({ head, ...log });
  }

  /**
   * Lineage `lineageId`'s items now (records, head, log head, tree nodes, residual-id markers), and
   * a function that puts them back as they were: the table writer's restore of a snapshot.
   */
  lineageSnapshot(lineageId: string): () => void {
    const copy = {
      records: structuredClone(this.records.get(lineageId)),
      heads: structuredClone(this.heads.get(lineageId)),
      logHeads: structuredClone(this.logHeads.get(lineageId)),
      nodes: structuredClone(this.nodes.get(lineageId)),
      markers: [...this.markers].filter(([, v]) => v.lineageId === lineageId).map(([k, v]) => [k, { ...v }] as const),
    };
    return () => {
      const put = <V>(map: Map<string, V>, value: V | undefined) =>
        value === undefined ? map.delete(lineageId) : map.set(lineageId, structuredClone(value));
      put(this.records, copy.records);
      put(this.heads, copy.heads);
      put(this.logHeads, copy.logHeads);
      put(this.nodes, copy.nodes);
      for (const [k, v] of [...this.markers]) if (v.lineageId === lineageId) this.markers.delete(k);
      for (const [k, v] of copy.markers) this.markers.set(k, { ...v });
    };
  }

  /** Puts an earlier head item back (a rollback of the head, e.g. from a backup), as a table writer could. */
  restoreHead(lineageId: string, snapshot: StoredLogHead): void {
    const { head, ...log } = structuredClone(snapshot);
    this.heads.set(lineageId, head);
    this.logHeads.set(lineageId, log);
  }

  /** Overwrites the tree nodes stored with a record, as a table writer could. */
  setNodes(lineageId: string, seq: number, nodes: unknown): void {
    this.#nodes(lineageId).set(seq, nodes);
  }

  #nodes(lineageId: string): Map<number, unknown> {
    let nodes = this.nodes.get(lineageId);
    if (!nodes) {
      nodes = new Map();
      this.nodes.set(lineageId, nodes);
    }
    return nodes;
  }

  async readRecord(lineageId: string, seq: number): Promise<unknown | null> {
    this.itemReads++;
    const text = this.records.get(lineageId)?.get(seq);
    return text === undefined ? null : parse(text);
  }

  async findByResidualId(
    lineageId: string,
    residualId: string,
    _options?: { readonly eventual?: boolean },
  ): Promise<ResidualLocation | null> {
    const marker = this.markers.get(markerKey(lineageId, residualId));
    return marker ? { ...marker } : null;
  }

  /** Always the records as they stand (`options.eventual` asks for a copy, which a test may serve stale). */
  async readChain(lineageId: string, fromSeq: number, toSeq: number, _options?: ReadChainOptions): Promise<unknown[]> {
    const chain = this.records.get(lineageId) ?? new Map<number, string>();
    const found = [...chain.keys()].filter((seq) => seq >= fromSeq && seq <= toSeq).length;
    this.itemReads += found;
    return [...chain.entries()]
      .filter(([seq]) => seq >= fromSeq && seq <= toSeq)
      .sort(([a], [b]) => a - b)
      .map(([, text]) => parse(text));
  }

  async recordConflict(conflict: ConflictRecord): Promise<void> {
    const same = this.conflicts.some(
      (c) => c.residualId === conflict.residualId && c.atMs === conflict.atMs && c.messageId === conflict.messageId,
    );
    if (!same) this.conflicts.push(structuredClone(conflict));
  }

  async recordRejection(rejection: RejectionRecord): Promise<void> {
    const same = this.rejections.some(
      (r) => r.lineageId === rejection.lineageId && r.atMs === rejection.atMs && r.messageId === rejection.messageId,
    );
    if (!same) this.rejections.push(structuredClone(rejection));
  }

  async putTriageReport(report: TriageCompletedDetail): Promise<void> {
    this.triageReports.set(`${report.lineageId}#${report.requestId}`, structuredClone(report));
  }

  async getTriageReport(lineageId: string, requestId: string): Promise<TriageCompletedDetail | null> {
    const report = this.triageReports.get(`${lineageId}#${requestId}`);
    return report ? structuredClone(report) : null;
  }

  // --- Outcome reads (same order and filters as DynamoDBLineageStore) ---
  async listConflicts(lineageId: string, options: OutcomeFilter = {}): Promise<ConflictRecord[]> {
    return this.conflicts
      .filter(
        (c) => c.lineageId === lineageId && (options.residualId === undefined || c.residualId === options.residualId),
      )
      .sort(byTimeThen((c) => c.residualId))
      .map((c) => structuredClone(c));
  }

  async listRejections(lineageId: string, options: OutcomeFilter = {}): Promise<RejectionRecord[]> {
    return this.rejections
      .filter(
        (r) =>
          r.lineageId === lineageId &&
          (options.residualId === undefined || r.residualId === options.residualId) &&
          (options.sinceMs === undefined || r.atMs >= options.sinceMs),
      )
      .sort(byTimeThen((r) => r.messageId))
      .map((r) => structuredClone(r));
  }
  // --- end outcome reads ---

  /** Rewrites a stored record in place, as someone with table write access could. */
  tamperRecord(lineageId: string, seq: number, edit: (record: Record<string, unknown>) => void): void {
    const chain = this.#chain(lineageId);
    const text = chain.get(seq);
    if (text === undefined) throw new Error(`no record ${seq} in ${lineageId}`);
    const record = JSON.parse(text) as Record<string, unknown>;
    edit(record);
    chain.set(seq, JSON.stringify(record));
  }

  /** Deletes a stored record (and nothing else). */
  deleteRecord(lineageId: string, seq: number): void {
    this.#chain(lineageId).delete(seq);
  }

  /** Overwrites the head item directly. */
  setHead(head: LineageHead): void {
    this.heads.set(head.lineageId, { ...head });
  }

  /** Deletes the head item (and nothing else). */
  deleteHead(lineageId: string): void {
    this.heads.delete(lineageId);
    this.logHeads.delete(lineageId);
  }

  #chain(lineageId: string): Map<number, string> {
    let chain = this.records.get(lineageId);
    if (!chain) {
      chain = new Map();
      this.records.set(lineageId, chain);
    }
    return chain;
  }
}

/** Oldest first by `atMs`, ties by `key` in code-unit order (the DynamoDB adapter sorts the same way). */
function byTimeThen<T extends { atMs: number }>(key: (item: T) => string): (a: T, b: T) => number {
  return (a, b) => a.atMs - b.atMs || (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);
}

/** Key of a residual-id marker: ids are scoped to their lineage (JSON, so no separator can collide). */
export function markerKey(lineageId: string, residualId: string): string {
  return JSON.stringify([lineageId, residualId]);
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
