import { canonicalJson } from '../../shared/canonical/canonical-json';
import type { HexDigest } from '../../shared/canonical/digest';
import {
  DuplicateResidualError,
  LineageInconsistentError,
  type ResidualLocation,
  StaleHeadError,
} from '../../shared/errors';
import type { StoredLogHead } from '../../shared/log/log-state';
import { lastLeafOf, type NodeRef } from '../../shared/log/node-ref';
import type { TriageCompletedDetail } from '../../shared/pipeline/messages';
import type {
  AppendBatch,
  ConflictRecord,
  LineageStore,
  OutcomeFilter,
  RejectionRecord,
} from '../../shared/ports/lineage-store';
import { type LineageHead, lineageHeadOf } from '../../shared/seal/sealed-record';

/**
 * {@link LineageStore} in memory with the DynamoDB adapter's conditional semantics: `appendEntries`
 * is all-or-nothing and checks the residual markers first (duplicate, per lineage), then the head
 * (changed since read: seq, record hash or epoch → stale head), then the record seqs (taken while the head
 * held → lineage inconsistent). Records are kept as canonical JSON text, so tests can tamper with them as an attacker
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
  /** Called inside `appendEntries` just before the conditions are checked (simulate a racing writer). */
  beforeAppend: ((batch: AppendBatch) => Promise<void> | void) | null = null;
  /** Number of `appendEntries` calls. */
  appendCalls = 0;
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

  async logHead(lineageId: string): Promise<StoredLogHead | null> {
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
    });
  }

  async appendEntries(batch: AppendBatch): Promise<void> {
    this.appendCalls++;
    await this.beforeAppend?.(batch);
    const { lineageId, entries, expectedHead } = batch;
    const last = entries.at(-1)?.record;
    if (!last) throw new Error('appendEntries: no entries');
    for (const { record } of entries) {
      const marker = this.markers.get(markerKey(lineageId, record.header.residualId));
      if (marker) throw new DuplicateResidualError(record.header.residualId, { ...marker });
    }
    const head = this.heads.get(lineageId) ?? null;
    const headMatches = expectedHead
      ? head !== null &&
        head.seq === expectedHead.seq &&
        head.recordHash === expectedHead.recordHash &&
        head.generationEpoch === expectedHead.generationEpoch
      : head === null;
    if (!headMatches) throw new StaleHeadError(lineageId, expectedHead?.seq ?? null, head ? { ...head } : null);
    const chain = this.#chain(lineageId);
    const taken = entries.find(({ record }) => chain.has(record.header.monotonicSequenceNumber));
    if (taken) throw new LineageInconsistentError(lineageId, taken.record.header.monotonicSequenceNumber, expectedHead);
    for (const { record, nodes } of entries) {
      const { monotonicSequenceNumber: seq, residualId } = record.header;
      chain.set(seq, canonicalJson(record));
      this.#nodes(lineageId).set(seq, [...nodes]);
      this.markers.set(markerKey(lineageId, residualId), { lineageId, seq });
    }
    this.heads.set(lineageId, lineageHeadOf(last));
    this.logHeads.set(lineageId, {
      header: structuredClone(last.header),
      checkpoint: batch.checkpoint ?? null,
      frontier: [...batch.frontier],
      policy: batch.policy ? structuredClone(batch.policy) : null,
      headMac: batch.headMac ? structuredClone(batch.headMac) : null,
    });
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

  async findByResidualId(lineageId: string, residualId: string): Promise<ResidualLocation | null> {
    const marker = this.markers.get(markerKey(lineageId, residualId));
    return marker ? { ...marker } : null;
  }

  async readChain(lineageId: string, fromSeq: number, toSeq: number): Promise<unknown[]> {
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
        (r) => r.lineageId === lineageId && (options.residualId === undefined || r.residualId === options.residualId),
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
