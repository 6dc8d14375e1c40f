import { canonicalJson } from '../../shared/canonical/canonical-json';
import {
  type ConflictRecord,
  DuplicateResidualError,
  LineageInconsistentError,
  type LineageStore,
  type OutcomeFilter,
  type RejectionRecord,
  type ResidualLocation,
  StaleEpochError,
  StaleHeadError,
} from '../../shared/ports/lineage-store';
import type { TriageCompletedDetail } from '../../shared/schemas/messages';
import { type LineageHead, lineageHeadOf, type SealedRecord } from '../../shared/seal/sealed-record';

/**
 * {@link LineageStore} in memory with the DynamoDB adapter's conditional semantics: `append` is
 * all-or-nothing and checks, like the transaction's positions, the residual marker first
 * (duplicate, per lineage), then the head (newer epoch → stale epoch; moved → stale head), then
 * the record seq (taken while the head held → lineage inconsistent). Records are kept as canonical JSON text, so tests can tamper with them as an attacker
 * with table access would ({@link tamperRecord}, {@link deleteRecord}, {@link setHead}).
 */
export class InMemoryLineageStore implements LineageStore {
  readonly records = new Map<string, Map<number, string>>();
  readonly heads = new Map<string, LineageHead>();
  /** Residual-id markers, keyed by {@link markerKey} (lineage id and residual id). */
  readonly markers = new Map<string, ResidualLocation>();
  readonly conflicts: ConflictRecord[] = [];
  readonly rejections: RejectionRecord[] = [];
  readonly triageReports = new Map<string, TriageCompletedDetail>();
  /** Called inside `append` just before the conditions are checked (simulate a racing writer). */
  beforeAppend: ((sealed: SealedRecord) => Promise<void> | void) | null = null;
  /** Number of `append` calls. */
  appendCalls = 0;

  async head(lineageId: string): Promise<LineageHead | null> {
    const head = this.heads.get(lineageId);
    return head ? { ...head } : null;
  }

  async lastRecordSeq(lineageId: string): Promise<number | null> {
    const seqs = [...(this.records.get(lineageId)?.keys() ?? [])];
    return seqs.length === 0 ? null : Math.max(...seqs);
  }

  async append(sealed: SealedRecord, expectedHead: LineageHead | null): Promise<void> {
    this.appendCalls++;
    await this.beforeAppend?.(sealed);
    const { lineageId, monotonicSequenceNumber: seq, residualId, generationEpoch } = sealed.header;
    const marker = this.markers.get(markerKey(lineageId, residualId));
    if (marker) throw new DuplicateResidualError(residualId, { ...marker });
    const head = this.heads.get(lineageId) ?? null;
    const headMatches = expectedHead
      ? head !== null &&
        head.seq === expectedHead.seq &&
        head.recordHash === expectedHead.recordHash &&
        head.generationEpoch <= generationEpoch
      : head === null;
    if (!headMatches) {
      if (head && head.generationEpoch > generationEpoch) {
        throw new StaleEpochError(lineageId, head.generationEpoch, generationEpoch);
      }
      throw new StaleHeadError(lineageId, expectedHead?.seq ?? null, head ? { ...head } : null);
    }
    const chain = this.#chain(lineageId);
    if (chain.has(seq)) throw new LineageInconsistentError(lineageId, seq, expectedHead);
    chain.set(seq, canonicalJson(sealed));
    this.heads.set(lineageId, lineageHeadOf(sealed));
    this.markers.set(markerKey(lineageId, residualId), { lineageId, seq });
  }

  async readRecord(lineageId: string, seq: number): Promise<unknown | null> {
    const text = this.records.get(lineageId)?.get(seq);
    return text === undefined ? null : parse(text);
  }

  async findByResidualId(lineageId: string, residualId: string): Promise<ResidualLocation | null> {
    const marker = this.markers.get(markerKey(lineageId, residualId));
    return marker ? { ...marker } : null;
  }

  async readChain(lineageId: string, fromSeq: number, toSeq: number): Promise<unknown[]> {
    const chain = this.records.get(lineageId) ?? new Map<number, string>();
    return [...chain.entries()]
      .filter(([seq]) => seq >= fromSeq && seq <= toSeq)
      .sort(([a], [b]) => a - b)
      .map(([, text]) => parse(text));
  }

  async recordConflict(conflict: ConflictRecord): Promise<void> {
    const same = this.conflicts.some((c) => c.residualId === conflict.residualId && c.atMs === conflict.atMs);
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
