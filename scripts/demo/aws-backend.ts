import {
  type AttributeValue,
  BatchWriteItemCommand,
  type BatchWriteItemCommandOutput,
  DynamoDBClient,
  GetItemCommand,
  paginateQuery,
  QueryCommand,
  UpdateItemCommand,
  type WriteRequest,
} from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { KMSClient } from '@aws-sdk/client-kms';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { LineageKeys } from '../../adapters/lineage-keys';
import { recordOf } from '../../adapters/record-item';
import { NotIntegratedError } from '../../client/errors';
import { MemoryCheckpointStore } from '../../client/memory-checkpoint-store';
import { readLineageReport } from '../../client/read-lineage-report';
import { ResealClient } from '../../client/reseal-client';
import type { ResealStackOutputs } from '../../client/stack-outputs';
import { writtenByOf } from '../../client/written-by';
import type { DemoBackend, DemoRecall, LineageItems, RejectionFound, TamperEdit } from './backend';
import type { LineageReportReader } from './demo-report';

/** One stored item as DynamoDB returns it. */
type Item = Record<string, AttributeValue>;

/** SDK client settings shared by every client the demo makes. */
export interface AwsClientConfig {
  /** Endpoint of the emulator; absent for real AWS. */
  readonly endpoint?: string;
  readonly region?: string;
  readonly credentials?: { readonly accessKeyId: string; readonly secretAccessKey: string };
}

/** Options of {@link awsBackend}. */
export interface AwsBackendOptions {
  readonly outputs: ResealStackOutputs;
  readonly clientConfig?: AwsClientConfig;
  /** How long to wait for a triage report, in milliseconds. @default 60_000 */
  readonly recallTimeoutMs?: number;
  /** How often to poll for it, in milliseconds. @default 200 */
  readonly pollIntervalMs?: number;
}

/** How long a sealed write may wait to be integrated, ms (the stack integrates every few seconds; the emulator box is slow). */
const INTEGRATION_WAIT_MS = 120_000;

/**
 * {@link DemoBackend} over a deployed stack: writes through `ResealClient.publishWrite` (SQS),
 * recalls through `ResealClient.recall` (EventBridge, then the answer proven by the client against
 * the signed checkpoint it keeps), format-2 receipts through `ResealClient.chainReceipt`, rejection records and
 * the tamper edit straight on the DynamoDB table.
 */
export function awsBackend(options: AwsBackendOptions): DemoBackend {
  const config = { ...options.clientConfig, maxAttempts: 5 };
  const dynamodb = new DynamoDBClient(config);
  // The agent keeps the checkpoints it verified, so every recall is also checked for a rollback.
  // On an emulator, send to the configured endpoint, not to the host named in the queue URL.
  const sqs = new SQSClient({ ...config, ...(options.clientConfig?.endpoint ? { useQueueUrlAsEndpoint: false } : {}) });
  const client = new ResealClient(options.outputs, {
    checkpointStore: new MemoryCheckpointStore(),
    sqs,
    eventBridge: new EventBridgeClient(config),
    dynamodb,
    kms: new KMSClient(config),
  });
  // A successor session with no local state: no checkpoint store, freshness from the deployment log alone.
  const coldClient = new ResealClient(options.outputs, {
    sqs,
    eventBridge: new EventBridgeClient(config),
    dynamodb,
    kms: new KMSClient(config),
  });
  const tableName = options.outputs.tableName;
  const copies = new WeakMap<LineageItems, Item[]>();
  // Every item of a partition, page by page (the SDK's own paginator).
  const queryAll = async (pk: string): Promise<Item[]> => {
    const items: Item[] = [];
    const pages = paginateQuery(
      { client: dynamodb },
      {
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': { S: pk } },
        ConsistentRead: true,
      },
    );
    for await (const page of pages) items.push(...(page.Items ?? []));
    return items;
  };
  const recallWith = async (
    via: ResealClient,
    lineageId: string,
    currentEnv: Record<string, string>,
    checkpoint: { seq: number; recordHash: string } | undefined,
  ): Promise<DemoRecall> => {
    const recall = await via.recall(
      {
        lineageId,
        target: { latest: true },
        currentEnv,
        ...(checkpoint ? { checkpoint: { seq: checkpoint.seq, recordHash: checkpoint.recordHash } } : {}),
      },
      wait,
    );
    return {
      end: recall.end,
      verdict: recall.verdict,
      reason: recall.reason,
      delta: recall.delta,
      seq: recall.record?.header.monotonicSequenceNumber ?? recall.report.seq,
      proven: recall.record !== null && recall.checkpoint !== null,
      freshness: recall.freshness
        ? {
            state: recall.freshness.state,
            checkpointSize: recall.freshness.checkpointSize,
            witnessing: recall.freshness.witnessing,
          }
        : null,
    };
  };
  const wait = { timeoutMs: options.recallTimeoutMs ?? 60_000, pollIntervalMs: options.pollIntervalMs ?? 200 };

  return {
    endpoint: options.clientConfig?.endpoint ?? 'aws',

    async publishWrite(request) {
      await client.publishWrite(request);
    },

    async untilIntegrated(lineageId, residualId) {
      const outcome = await client.waitForOutcome(lineageId, residualId, {
        untilProven: true,
        timeoutMs: INTEGRATION_WAIT_MS,
      });
      // No deployment log (`freshness: null`): nothing to wait for.
      if (outcome.kind === 'SEALED' && (outcome.freshness === null || outcome.freshness.state === 'PROVEN')) return;
      throw new Error(
        `write ${residualId} of ${lineageId} is not proven through the deployment log within ${INTEGRATION_WAIT_MS} ms: ${outcome.kind}${outcome.kind === 'SEALED' ? ` ${outcome.freshness?.state}: ${outcome.freshness?.reason}` : ''}`,
      );
    },

    async publishUnchecked(request) {
      await sqs.send(
        new SendMessageCommand({
          QueueUrl: options.outputs.residualWritesQueueUrl,
          MessageBody: JSON.stringify(request),
        }),
      );
    },

    async readRefusal(lineageId, residualId) {
      const { rejections } = await client.readRefusals(lineageId);
      const found = rejections.find((r) => r.residualId === residualId);
      return found ? { stage: found.stage, reason: found.reason, signatureVerified: found.signatureVerified } : null;
    },

    async writers(lineageId) {
      const { verification } = await client.verifyStoredLineage(lineageId, { authentication: 'signed-tree' });
      return {
        verdict: verification.verdict,
        records: verification.records.map((r) => ({ seq: r.seq, writtenBy: writtenByOf(r) })),
      };
    },

    readHead: (lineageId) => client.readHead(lineageId),

    async findRejection(lineageId, residualId): Promise<RejectionFound | null> {
      const out = await dynamodb.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': { S: LineageKeys.rejection(lineageId) } },
          ConsistentRead: true,
        }),
      );
      const item = (out.Items ?? []).find((i) => i.residualId?.S === residualId);
      if (!item) return null;
      return {
        stage: item.stage?.S ?? '?',
        reason: item.reason?.S ?? '?',
        residualId: item.residualId?.S ?? null,
        rejectedVariables: JSON.parse(item.rejectedVariables?.S ?? '[]'),
      };
    },

    recall: (lineageId, currentEnv, checkpoint) => recallWith(client, lineageId, currentEnv, checkpoint),

    recallCold: (lineageId, currentEnv) => recallWith(coldClient, lineageId, currentEnv, undefined),

    async copyLineage(lineageId) {
      const head = await client.readHead(lineageId);
      if (head === null) throw new Error(`no head for ${lineageId} in ${tableName}`);
      const copy: LineageItems = { lineageId, headSeq: head.seq };
      copies.set(copy, await queryAll(LineageKeys.lineage(lineageId)));
      return copy;
    },

    async putLineageBack(copy) {
      const items = copies.get(copy);
      if (!items) throw new Error(`not a copy this backend made of ${copy.lineageId}`);
      const kept = new Set(items.map((item) => item.sk?.S));
      const writes: WriteRequest[] = [];
      for (const item of await queryAll(LineageKeys.lineage(copy.lineageId))) {
        if (!kept.has(item.sk?.S)) {
          writes.push({ DeleteRequest: { Key: { pk: item.pk as AttributeValue, sk: item.sk as AttributeValue } } });
        }
      }
      for (const item of items) writes.push({ PutRequest: { Item: item } });
      for (let from = 0; from < writes.length; from += 25) {
        let pending: WriteRequest[] | undefined = writes.slice(from, from + 25);
        while (pending && pending.length > 0) {
          const out: BatchWriteItemCommandOutput = await dynamodb.send(
            new BatchWriteItemCommand({ RequestItems: { [tableName]: pending } }),
          );
          pending = out.UnprocessedItems?.[tableName];
        }
      }
    },

    async receipt(lineageId, seq) {
      try {
        // Format 2, as `reseal export --receipt` writes it: the sealer signs no lineage checkpoint.
        const receipt = await client.chainReceipt(lineageId, seq);
        return { receipt, policy: (await client.freshnessPolicy()).text };
      } catch (error) {
        if (error instanceof NotIntegratedError) return null;
        throw error;
      }
    },

    async tamperWithPayload(lineageId, seq): Promise<TamperEdit> {
      const key = { pk: { S: LineageKeys.lineage(lineageId) }, sk: { S: LineageKeys.record(seq) } };
      const out = await dynamodb.send(new GetItemCommand({ TableName: tableName, Key: key, ConsistentRead: true }));
      // Text or gzip (docs/sealing.md, "Stored items"): the codec reads both; the edit is written back as text.
      const record = out.Item ? recordOf(out.Item) : null;
      if (record === null || typeof record !== 'object')
        throw new Error(`no record ${lineageId} seq ${seq} in ${tableName}`);
      const edit = forgeClaim(record);
      await dynamodb.send(
        new UpdateItemCommand({
          TableName: tableName,
          Key: key,
          UpdateExpression: 'SET #record = :record',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: { '#record': 'record' },
          ExpressionAttributeValues: { ':record': { S: JSON.stringify(record) } },
        }),
      );
      return edit;
    },
  };
}

/**
 * Rewrites one observed value of the first claim in a stored record's payload, in place, the
 * way someone hiding drift would (the header, its hashes and the MAC are left as they were).
 *
 * @throws {Error} when the record has no claim with an observed value
 */
export function forgeClaim(record: {
  payload?: { claims?: Record<string, { observed?: Record<string, string> }> };
}): TamperEdit {
  for (const [claimId, claim] of Object.entries(record.payload?.claims ?? {})) {
    for (const [key, before] of Object.entries(claim.observed ?? {})) {
      const after = `${before}+patched`;
      (claim.observed as Record<string, string>)[key] = after;
      return { path: `record.payload.claims.${claimId}.observed.${key}`, before, after };
    }
  }
  throw new Error('the record has no claim with an observed value to edit');
}

/**
 * Reads a lineage's report from the deployed stack with a client of its own (docs/demo.md, "The
 * report"): records walked and tied to the signed log, refusals with their statements checked.
 */
export function awsReportReader(options: AwsBackendOptions): LineageReportReader {
  const config = { ...options.clientConfig, maxAttempts: 5 };
  const client = new ResealClient(options.outputs, {
    dynamodb: new DynamoDBClient(config),
    kms: new KMSClient(config),
  });
  return (lineageId, readOptions) => readLineageReport(client, lineageId, readOptions);
}
