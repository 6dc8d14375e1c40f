import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import type { TriageCompletedDetail } from '../shared/pipeline/triage-completed-detail';
import type { ConflictRecord, LineageStore, OutcomeFilter, RejectionRecord } from '../shared/ports/lineage-store';
import { conflictItem, conflictOf } from './conflict-item';
import { itemOf } from './item';
import { CONFLICT_SK_PREFIX, LineageKeys } from './lineage-keys';
import type { LineageTable } from './lineage-table';
import { rejectionItem, rejectionOf } from './rejection-item';
import { triageReportItem, triageReportOf } from './triage-report-item';

/** The outcome half of the {@link LineageStore} port: conflicts, rejections and triage reports. */
export type OutcomeStore = Pick<
  LineageStore,
  'recordConflict' | 'recordRejection' | 'putTriageReport' | 'getTriageReport' | 'listConflicts' | 'listRejections'
>;

/**
 * The outcomes of writes and recalls in the table (docs/pipeline.md, "Data layout"): conflict
 * records in the lineage's partition (`CONFLICT#…`), rejection records under
 * `REJECTION#<lineageId|~unparsed>`, triage reports under `TRIAGE#<lineageId>`. Conflicts and
 * rejections are never overwritten; a triage report is, by the retry of its own request. Lists are
 * every page of a strongly consistent `Query`, sorted as the port says.
 */
export class DynamoDBOutcomeStore implements OutcomeStore {
  readonly #table: LineageTable;

  constructor(table: LineageTable) {
    this.#table = table;
  }

  async recordConflict(conflict: ConflictRecord): Promise<void> {
    await this.#table.putIfAbsent(conflictItem(conflict));
  }

  async recordRejection(rejection: RejectionRecord): Promise<void> {
    await this.#table.putIfAbsent(rejectionItem(rejection));
  }

  async putTriageReport(report: TriageCompletedDetail): Promise<void> {
    const { client, tableName } = this.#table;
    await client.send(new PutItemCommand({ TableName: tableName, Item: triageReportItem(report) }));
  }

  async getTriageReport(lineageId: string, requestId: string): Promise<TriageCompletedDetail | null> {
    return triageReportOf(await this.#table.get(LineageKeys.triage(lineageId), requestId));
  }

  async listConflicts(lineageId: string, options: OutcomeFilter = {}): Promise<ConflictRecord[]> {
    const prefix = options.residualId === undefined ? CONFLICT_SK_PREFIX : LineageKeys.conflictsOf(options.residualId);
    const items = await this.#table.queryAll(
      {
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: itemOf({ ':pk': LineageKeys.lineage(lineageId), ':prefix': prefix }),
      },
      { consistent: !options.eventual },
    );
    return items.map((item) => conflictOf(lineageId, item)).sort(byTimeThen((c) => c.residualId));
  }

  async listRejections(lineageId: string, options: OutcomeFilter = {}): Promise<RejectionRecord[]> {
    // A key condition on the time, not a filter: DynamoDB bills every item a Query reads before
    // its filter, and anyone who can send to the queue can add rejections to a lineage.
    const floor = options.sinceMs === undefined ? null : LineageKeys.rejectionSkFloor(options.sinceMs);
    const values: Record<string, string> = { ':pk': LineageKeys.rejection(lineageId) };
    if (floor !== null) values[':since'] = floor;
    if (options.residualId !== undefined) values[':residualId'] = options.residualId;
    const items = await this.#table.queryAll(
      {
        KeyConditionExpression: floor === null ? 'pk = :pk' : 'pk = :pk AND sk >= :since',
        ...(options.residualId === undefined ? {} : { FilterExpression: 'residualId = :residualId' }),
        ExpressionAttributeValues: itemOf(values),
      },
      { consistent: !options.eventual },
    );
    return items.map((item) => rejectionOf(lineageId, item)).sort(byTimeThen((r) => r.messageId));
  }
}

/** Oldest first by `atMs`, ties by `key` in code-unit order (the in-memory store sorts the same way). */
function byTimeThen<T extends { atMs: number }>(key: (item: T) => string): (a: T, b: T) => number {
  return (a, b) => a.atMs - b.atMs || (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);
}
