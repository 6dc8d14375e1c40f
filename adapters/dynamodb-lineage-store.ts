import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { HexDigest } from '../shared/canonical/digest';
import type { ResidualLocation } from '../shared/errors';
import type { LogEntry } from '../shared/log/log-extension';
import type { StoredLogHead } from '../shared/log/log-state';
import type { NodeRef } from '../shared/log/node-ref';
import type { TriageCompletedDetail } from '../shared/pipeline/triage-completed-detail';
import { DEFAULT_HEAD_LAYOUT, type HeadLayout } from '../shared/ports/head-layout';
import type {
  AppendBatch,
  ConflictRecord,
  LineageStore,
  OutcomeFilter,
  ReadChainOptions,
  RejectionRecord,
} from '../shared/ports/lineage-store';
import type { LineageHead } from '../shared/seal/lineage-head';
import { type ChainStoreOptions, DynamoDBChainStore } from './dynamodb-chain-store';
import { DynamoDBOutcomeStore } from './dynamodb-outcome-store';
import { LineageTable } from './lineage-table';

/**
 * {@link LineageStore} over one DynamoDB table (docs/pipeline.md, "Data layout"): the chain of
 * each lineage ({@link DynamoDBChainStore}) and the outcomes of its writes and recalls
 * ({@link DynamoDBOutcomeStore}), which share the table, its keys (adapters/lineage-keys.ts)
 * and its items (adapters/record-item.ts, head-item.ts, …).
 */
export class DynamoDBLineageStore implements LineageStore {
  readonly #chain: DynamoDBChainStore;
  readonly #outcomes: DynamoDBOutcomeStore;

  /**
   * @param headLayout - the head item's attributes the sealer writes (docs/sealing.md, "Migration"); readers need none
   * @param options - the chain's ({@link ChainStoreOptions}: a client keeps the manifests it proved records with)
   */
  constructor(
    client: DynamoDBClient,
    tableName: string,
    headLayout: HeadLayout = DEFAULT_HEAD_LAYOUT,
    options: ChainStoreOptions = {},
  ) {
    const table = new LineageTable(client, tableName);
    this.#chain = new DynamoDBChainStore(table, headLayout, options);
    this.#outcomes = new DynamoDBOutcomeStore(table);
  }

  head(lineageId: string): Promise<LineageHead | null> {
    return this.#chain.head(lineageId);
  }
  lastRecordSeq(lineageId: string): Promise<number | null> {
    return this.#chain.lastRecordSeq(lineageId);
  }
  logHead(lineageId: string, options?: { readonly eventual?: boolean }): Promise<StoredLogHead | null> {
    return this.#chain.logHead(lineageId, options);
  }
  putRecords(lineageId: string, entries: readonly LogEntry[]): Promise<void> {
    return this.#chain.putRecords(lineageId, entries);
  }
  moveHead(move: AppendBatch): Promise<void> {
    return this.#chain.moveHead(move);
  }
  readNodes(lineageId: string, refs: readonly NodeRef[]): Promise<(HexDigest | null)[]> {
    return this.#chain.readNodes(lineageId, refs);
  }
  readRecord(lineageId: string, seq: number): Promise<unknown | null> {
    return this.#chain.readRecord(lineageId, seq);
  }
  findByResidualId(
    lineageId: string,
    residualId: string,
    options?: { readonly eventual?: boolean },
  ): Promise<ResidualLocation | null> {
    return this.#chain.findByResidualId(lineageId, residualId, options);
  }
  readChain(lineageId: string, fromSeq: number, toSeq: number, options?: ReadChainOptions): Promise<unknown[]> {
    return this.#chain.readChain(lineageId, fromSeq, toSeq, options);
  }

  recordConflict(conflict: ConflictRecord): Promise<void> {
    return this.#outcomes.recordConflict(conflict);
  }
  recordRejection(rejection: RejectionRecord): Promise<void> {
    return this.#outcomes.recordRejection(rejection);
  }
  putTriageReport(report: TriageCompletedDetail): Promise<void> {
    return this.#outcomes.putTriageReport(report);
  }
  getTriageReport(lineageId: string, requestId: string): Promise<TriageCompletedDetail | null> {
    return this.#outcomes.getTriageReport(lineageId, requestId);
  }
  listConflicts(lineageId: string, options?: OutcomeFilter): Promise<ConflictRecord[]> {
    return this.#outcomes.listConflicts(lineageId, options);
  }
  listRejections(lineageId: string, options?: OutcomeFilter): Promise<RejectionRecord[]> {
    return this.#outcomes.listRejections(lineageId, options);
  }
}
