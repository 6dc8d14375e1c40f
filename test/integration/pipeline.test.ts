import { createHash, randomUUID } from 'node:crypto';
import { DeleteItemCommand, PutItemCommand, QueryCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { PutEventsCommand, PutRuleCommand, PutTargetsCommand } from '@aws-sdk/client-eventbridge';
import {
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deduplicationIdOf } from '../../adapters/deduplication-id';
import { DynamoDBLineageStore } from '../../adapters/dynamodb-lineage-store';
import { EventBridgePublisher } from '../../adapters/eventbridge-publisher';
import { KMSNoteSigner } from '../../adapters/kms-note-signer';
import { KMSNoteVerifierKey } from '../../adapters/kms-note-verifier-key';
import { LineageKeys } from '../../adapters/lineage-keys';
import { ResealClient } from '../../client/reseal-client';
import { clientOutputsFrom } from '../../client/stack-outputs';
import { SealerService } from '../../functions/sealer/sealer-service';
import { OutcomeVerificationError } from '../../shared/errors';
import { evaluateWrite } from '../../shared/guard/evaluate-write';
import { sealerKeyName } from '../../shared/log/log-names';
import { openOutcome } from '../../shared/log/outcome-statement';
import { ResidualSealedDetailSchema } from '../../shared/pipeline/residual-sealed-detail';
import type { ResidualSealedRun } from '../../shared/pipeline/residual-sealed-run';
import type { SealRequest } from '../../shared/pipeline/seal-request';
import { sealedRunHead } from '../../shared/pipeline/sealed-run-head';
import { verifyChain } from '../../shared/seal/verify-chain';
import { buildManifest } from '../../shared/triage/build-manifest';
import type { ResidualWriteRequest } from '../../shared/write/write-request';
import { deployedStack } from '../helpers/deployed-stack';
import { FakeMetrics, fakeLogger } from '../helpers/factories';
import { expectGuarantee } from '../helpers/guarantees';
import { absentKeyManifest, unverifiedInheritedVariable, validWriteRequest } from '../helpers/guard-factories';
import { until } from '../helpers/until';
import { testLineageId } from '../helpers/writer-factories';

// The whole pipeline on the deployed stack: real SQS → guard Lambda → FIFO → sealer Lambda →
// DynamoDB + KMS → EventBridge, and RecallRequested → triage Lambda. Resources come from the
// stack outputs; every wait polls until a deadline.
const { stack, sqs, dynamodb, kms, events, store, anchor } = deployedStack();

const SEALED_ENV = { ARCH: 'arm64', HOSTNAME: 'runner-17', REGION: 'eu-west-1', TOOL_VERSION: '1.2.3' };
const manifest = buildManifest({
  env: SEALED_ENV,
  structuralKeys: ['ARCH'],
  claimDependencyMap: { 'claim-region': ['REGION'], 'claim-tooling': ['TOOL_VERSION'] },
});

interface CapturedEvent {
  'detail-type': string;
  detail: Record<string, unknown>;
}
const captured: CapturedEvent[] = [];
let captureQueueUrl = '';

async function drainCapture(): Promise<void> {
  const out = await sqs.send(
    new ReceiveMessageCommand({ QueueUrl: captureQueueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
  );
  const messages = out.Messages ?? [];
  for (const m of messages) captured.push(JSON.parse(m.Body ?? '{}') as CapturedEvent);
  if (messages.length > 0) {
    await sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: captureQueueUrl,
        Entries: messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle ?? '' })),
      }),
    );
  }
}

/**
 * The residuals a captured `ResidualSealed` event announces, each with its run (one event per
 * sealer invocation, docs/pipeline.md "Message shapes"); none for any other event. Parsed strictly.
 */
function sealedResiduals(e: CapturedEvent): { residualId: string; seq: number; run: ResidualSealedRun }[] {
  if (e['detail-type'] !== 'ResidualSealed') return [];
  return ResidualSealedDetailSchema.parse(e.detail).runs.flatMap((run) => run.residuals.map((r) => ({ ...r, run })));
}
/** Whether a captured event is a `ResidualSealed` announcing `residualId`. */
const seals = (residualId: string) => (e: CapturedEvent) => sealedResiduals(e).some((r) => r.residualId === residualId);

/** Waits until `count` captured events match. */
async function eventsMatching(what: string, match: (e: CapturedEvent) => boolean, count = 1): Promise<CapturedEvent[]> {
  return until(what, async () => {
    await drainCapture();
    const found = captured.filter(match);
    return found.length >= count ? found : undefined;
  });
}

const write = (lineageId: string, residualId: string, overrides: Partial<ResidualWriteRequest> = {}) =>
  validWriteRequest({ lineageId, residualId, manifest, ...overrides }, { nowMs: Date.now() });

async function sendWrite(request: ResidualWriteRequest): Promise<void> {
  await sqs.send(
    new SendMessageCommand({ QueueUrl: stack.ResidualWritesQueueUrl, MessageBody: JSON.stringify(request) }),
  );
}

async function conflictsOf(lineageId: string) {
  const out = await dynamodb.send(
    new QueryCommand({
      TableName: stack.TableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :c)',
      ExpressionAttributeValues: { ':pk': { S: LineageKeys.lineage(lineageId) }, ':c': { S: 'CONFLICT#' } },
      ConsistentRead: true,
    }),
  );
  return out.Items ?? [];
}

beforeAll(async () => {
  const name = `pipeline-capture-${randomUUID().slice(0, 8)}`;
  captureQueueUrl = (await sqs.send(new CreateQueueCommand({ QueueName: name }))).QueueUrl ?? '';
  const arn = (
    await sqs.send(new GetQueueAttributesCommand({ QueueUrl: captureQueueUrl, AttributeNames: ['QueueArn'] }))
  ).Attributes?.QueueArn;
  await events.send(
    new PutRuleCommand({
      Name: name,
      EventBusName: stack.EventBusName,
      EventPattern: JSON.stringify({
        source: ['reseal'],
        'detail-type': ['ResidualSealed', 'ResidualRejected', 'TriageCompleted'],
      }),
    }),
  );
  await events.send(
    new PutTargetsCommand({ Rule: name, EventBusName: stack.EventBusName, Targets: [{ Id: 'capture', Arn: arn }] }),
  );
});

afterAll(() => {
  sqs.destroy();
  dynamodb.destroy();
  kms.destroy();
  events.destroy();
});

describe('pipeline on the deployed stack', () => {
  it('an accepted write is sealed as seq 0; its MAC verifies through KMS; ResidualSealed carries the head', async () => {
    const lineageId = testLineageId(`lin-${randomUUID()}`);
    await sendWrite(write(lineageId, 'r-accepted'));
    const record = await until('record 0', async () => (await store.readRecord(lineageId, 0)) ?? undefined);
    const verification = await verifyChain([record], { lineageId, anchor });
    expect(verification.verdict).toBe('VERIFIED_INTACT');
    const [event] = await eventsMatching('ResidualSealed', seals('r-accepted'));
    const head = await store.head(lineageId);
    expect(event?.['detail-type']).toBe('ResidualSealed');
    // The small head item stores no tip anchor (docs/sealing.md, "The append's layout"): the
    // run's `mac` and `keyId` are the record's own.
    const run = sealedResiduals(event as CapturedEvent).find((r) => r.run.lineageId === lineageId)?.run;
    expect(run).toMatchObject({
      ...head,
      mac: (record as { anchor: { mac: string } }).anchor.mac,
      keyId: (record as { anchor: { keyId: string } }).anchor.keyId,
      seq: 0,
      residuals: [{ residualId: 'r-accepted', seq: 0, recordHash: head?.recordHash }],
    });
  });

  it('docs/guard.md: a stale write leaves a rejection record and a ResidualRejected event; nothing is sealed', async () => {
    const lineageId = testLineageId(`lin-${randomUUID()}`);
    await sendWrite(
      write(lineageId, 'r-stale', { variablesUsed: [unverifiedInheritedVariable('targetResourceId', 'i-1')] }),
    );
    const [event] = await eventsMatching('ResidualRejected', (e) => e.detail.lineageId === lineageId);
    expect(event?.detail).toMatchObject({ stage: 'GUARD', reason: 'STALE_STATE', residualId: 'r-stale' });
    const rejections = await dynamodb.send(
      new QueryCommand({
        TableName: stack.TableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': { S: LineageKeys.rejection(lineageId) } },
        ConsistentRead: true,
      }),
    );
    expect(rejections.Items).toHaveLength(1);
    expect(rejections.Items?.[0]?.verdictDigest?.S).toBe(event?.detail.verdictDigest);
    expect(await store.head(lineageId)).toBeNull();
    expect(await store.findByResidualId(lineageId, 'r-stale')).toBeNull();
  });

  it('guard bypass: a forged seal request sent straight to seal-requests is refused by the sealer, recorded, never sealed', async () => {
    // The reviewer's reproduction: skip the guard and put a "safe" verdict with a made-up digest
    // on a stale write (UNVERIFIED_INHERITED), straight onto the FIFO queue. A second message
    // carries a made-up digest on a write the guard would accept. The emulator enforces neither
    // IAM nor queue policies, so the send succeeds here (on AWS the queue policy denies it to
    // anyone but the guard's role): this test proves the sealer's own check (re-running the guard).
    const forged = (lineageId: string, residualId: string, overrides: Partial<ResidualWriteRequest>) => {
      const body = {
        formatVersion: 1,
        request: write(lineageId, residualId, overrides),
        verdict: { isSafe: true, rejectedVariables: [], requestViolations: [], verdictDigest: 'a'.repeat(64) },
        acceptedAtMs: Date.now(),
      };
      return sqs.send(
        new SendMessageCommand({
          QueueUrl: stack.SealRequestsQueueUrl,
          MessageBody: JSON.stringify(body),
          MessageGroupId: lineageId,
          MessageDeduplicationId: residualId,
        }),
      );
    };
    const stale = { lineageId: testLineageId(`lin-${randomUUID()}`), residualId: `r-forged-stale-${randomUUID()}` };
    const digest = { lineageId: testLineageId(`lin-${randomUUID()}`), residualId: `r-forged-digest-${randomUUID()}` };
    await forged(stale.lineageId, stale.residualId, {
      variablesUsed: [unverifiedInheritedVariable('targetResourceId', 'i-1')],
    });
    await forged(digest.lineageId, digest.residualId, {});

    for (const { lineageId, residualId } of [stale, digest]) {
      const [event] = await eventsMatching(
        `ResidualRejected for ${residualId}`,
        (e) => e.detail.residualId === residualId,
      );
      expect(event?.detail).toMatchObject({ stage: 'SEALER', reason: 'VERDICT_MISMATCH', lineageId });
      const rejections = await until(`rejection record for ${residualId}`, async () => {
        const out = await dynamodb.send(
          new QueryCommand({
            TableName: stack.TableName,
            KeyConditionExpression: 'pk = :pk',
            ExpressionAttributeValues: { ':pk': { S: LineageKeys.rejection(lineageId) } },
            ConsistentRead: true,
          }),
        );
        return (out.Items ?? []).length > 0 ? out.Items : undefined;
      });
      expect(rejections?.map((item) => [item.stage?.S, item.reason?.S])).toEqual([['SEALER', 'VERDICT_MISMATCH']]);
      expect(await store.head(lineageId)).toBeNull();
      expect(await store.readRecord(lineageId, 0)).toBeNull();
      expect(await store.findByResidualId(lineageId, residualId)).toBeNull();
      expect(captured.some(seals(residualId))).toBe(false);
    }
  });

  it('malformed JSON is recorded and announced (bodyDigest), not retried', async (context) => {
    const body = `{"garbage-${randomUUID()}":`;
    const bodyDigest = createHash('sha256').update(body).digest('hex');
    await sqs.send(new SendMessageCommand({ QueueUrl: stack.ResidualWritesQueueUrl, MessageBody: body }));
    const [event] = await eventsMatching('ResidualRejected (malformed)', (e) => e.detail.bodyDigest === bodyDigest);
    expectGuarantee(
      context,
      {
        section: 'faults',
        target: 'residual-writes',
        attack: 'poison message: a body that is not JSON',
        reader: 'ResidualRejected (deployed)',
        expected: 'ResidualRejected MALFORMED_JSON, unattributed (lineage null)',
      },
      `ResidualRejected ${event?.detail.reason}, ${event?.detail.lineageId === null ? 'unattributed (lineage null)' : 'attributed'}`,
    );
    expect(event?.detail).toMatchObject({ reason: 'MALFORMED_JSON', lineageId: null, residualId: null });
  });

  it('docs/pipeline.md "Outcomes and retries", redelivery: a redelivered residual id (guard twice, then straight to FIFO) yields exactly one record', async (context) => {
    const lineageId = testLineageId(`lin-${randomUUID()}`);
    const residualId = `r-redelivered-${randomUUID()}`;
    const request = write(lineageId, residualId);
    await sendWrite(request);
    await sendWrite(request);
    await eventsMatching('first ResidualSealed', seals(residualId));
    // A redelivery after the FIFO deduplication window: another dedup id, same residual id.
    const body: SealRequest = {
      formatVersion: 1,
      request,
      verdict: evaluateWrite(request, { nowMs: Date.now(), maxReceiptAgeSeconds: 3600 }),
      acceptedAtMs: Date.now(),
    };
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: stack.SealRequestsQueueUrl,
        MessageBody: JSON.stringify(body),
        MessageGroupId: lineageId,
        MessageDeduplicationId: `${deduplicationIdOf(request)}-late`,
      }),
    );
    const sealedEvents = await eventsMatching('re-emitted ResidualSealed', seals(residualId), 2);
    const seqs = new Set(
      sealedEvents.flatMap((e) => sealedResiduals(e).flatMap((r) => (r.residualId === residualId ? [r.seq] : []))),
    );
    const chain = await store.readChain(lineageId, 0, 10);
    expectGuarantee(
      context,
      {
        section: 'faults',
        target: 'residual write',
        attack: 'the same message twice (guard twice; seal request again past the dedup window)',
        reader: 'ResidualSealed and the table (deployed)',
        expected: 'every ResidualSealed names seq 0; 1 record',
      },
      `every ResidualSealed names seq ${[...seqs].join(' or ')}; ${chain.length} record${chain.length === 1 ? '' : 's'}`,
    );
    expect(seqs).toEqual(new Set([0]));
    expect(chain).toHaveLength(1);
    expect(await store.findByResidualId(lineageId, residualId)).toEqual({ lineageId, seq: 0 });
  });

  it('docs/pipeline.md "Append", lost race: eight concurrent writers on one lineage leave a linear chain; each write sealed or in conflict', async (context) => {
    const lineageId = testLineageId(`lin-${randomUUID()}`);
    const publisher = new EventBridgePublisher(events, stack.EventBusName);
    const writers = Array.from({ length: 8 }, (_, i) => {
      const request = write(lineageId, `r-race-${i}`);
      const body: SealRequest = {
        formatVersion: 1,
        request,
        verdict: evaluateWrite(request, { nowMs: Date.now(), maxReceiptAgeSeconds: 3600 }),
        acceptedAtMs: Date.now(),
      };
      // Eight independent sealers (as if eight Lambda instances) against the real table and key.
      const sealer = new SealerService({
        store: new DynamoDBLineageStore(dynamodb, stack.TableName),
        publisher,
        anchor,
        signer: new KMSNoteSigner(kms, stack.LogKeyArn, stack.LogName),
        refusalSigner: new KMSNoteSigner(kms, stack.SealerKeyArn, sealerKeyName(stack.LogName)),
        metrics: new FakeMetrics(),
        logger: fakeLogger(),
        clock: Date.now,
      });
      return sealer.handle({ messageId: `race-${i}`, body: JSON.stringify(body), sentAtMs: Date.now() + i });
    });
    const outcomes = await Promise.all(writers);
    const sealed = outcomes.filter((o) => o.kind === 'SEALED').length;
    const conflicts = outcomes.filter((o) => o.kind === 'CONFLICT').length;
    const chain = await store.readChain(lineageId, 0, 100);
    const recorded = (await conflictsOf(lineageId)).length;
    expectGuarantee(
      context,
      {
        section: 'faults',
        target: 'lineage',
        attack: 'eight concurrent sealers outside the FIFO queue (real table and KMS)',
        reader: 'the table (deployed)',
        expected: '8 of 8 sealed or a recorded conflict; one record per seal; chain VERIFIED_INTACT',
      },
      `${sealed + conflicts} of 8 sealed or a ${recorded === conflicts ? 'recorded ' : 'missing '}conflict; ${chain.length === sealed ? 'one record per seal' : `${chain.length} records for ${sealed} seals`}; chain ${(await verifyChain(chain, { lineageId, anchor })).verdict}`,
    );
    expect(sealed + conflicts).toBe(8);
    expect(sealed).toBeGreaterThanOrEqual(1);
    expect(chain).toHaveLength(sealed);
    const verification = await verifyChain(chain, { lineageId, anchor });
    expect(verification.verdict).toBe('VERIFIED_INTACT');
    expect(verification.head?.seq).toBe(sealed - 1);
    expect(await conflictsOf(lineageId)).toHaveLength(conflicts);
  });

  it('eight writes on one lineage through the queues are sealed in one linear chain (FIFO group = lineage)', async (context) => {
    const lineageId = testLineageId(`lin-${randomUUID()}`);
    await Promise.all(Array.from({ length: 8 }, (_, i) => sendWrite(write(lineageId, `r-q-${lineageId}-${i}`))));
    const chain = await until('eight records', async () => {
      const records = await store.readChain(lineageId, 0, 100);
      return records.length + (await conflictsOf(lineageId)).length >= 8 ? records : undefined;
    });
    const verdict = (await verifyChain(chain, { lineageId, anchor })).verdict;
    expectGuarantee(
      context,
      {
        section: 'faults',
        target: 'lineage',
        attack: 'eight concurrent writers through the queues (FIFO group = lineage)',
        reader: 'the table (deployed)',
        expected: '8 records; chain VERIFIED_INTACT',
      },
      `${chain.length} records; chain ${verdict}`,
    );
    expect(verdict).toBe('VERIFIED_INTACT');
  });

  describe('lineage integrity: the stored HEAD is a claim; residual ids are scoped to the lineage', () => {
    const client = new ResealClient(clientOutputsFrom({ ...stack }), { store, anchor });

    /** Four writes through the queues, sealed as seq 0–3 of a fresh lineage. */
    async function fourRecords(): Promise<string> {
      const lineageId = testLineageId(`lin-${randomUUID()}`);
      for (let i = 0; i < 4; i++) await sendWrite(write(lineageId, `r-${i}`));
      await until('four records', async () =>
        (await store.readChain(lineageId, 0, 10)).length === 4 ? true : undefined,
      );
      await until('head at seq 3', async () => ((await store.head(lineageId))?.seq === 3 ? true : undefined));
      return lineageId;
    }

    async function rejectionsOf(lineageId: string) {
      const out = await dynamodb.send(
        new QueryCommand({
          TableName: stack.TableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': { S: LineageKeys.rejection(lineageId) } },
          ConsistentRead: true,
        }),
      );
      return out.Items ?? [];
    }

    it('the last record deleted directly in DynamoDB (HEAD left at seq 3) → verifyLineage TRUNCATION_DETECTED', async () => {
      const lineageId = await fourRecords();
      expect((await client.verifyLineage(lineageId)).verdict).toBe('VERIFIED_INTACT');
      await dynamodb.send(
        new DeleteItemCommand({
          TableName: stack.TableName,
          Key: { pk: { S: LineageKeys.lineage(lineageId) }, sk: { S: LineageKeys.record(3) } },
        }),
      );
      const result = await client.verifyLineage(lineageId);
      expect(result.verdict).toBe('TRUNCATION_DETECTED');
      expect(result.firstFailure?.reason).toContain('stored HEAD claims seq 3');
      await expect(client.verifyLineage(`never-existed-${randomUUID()}`)).rejects.toThrow(/not found/);
    });

    it('HEAD rewound to seq 1 → LINEAGE_BROKEN, and the next write is a LINEAGE_INCONSISTENT conflict (not LOST_RACE)', async () => {
      const lineageId = await fourRecords();
      const record1 = (await store.readRecord(lineageId, 1)) as { recordHash: string };
      await dynamodb.send(
        new UpdateItemCommand({
          TableName: stack.TableName,
          Key: { pk: { S: LineageKeys.lineage(lineageId) }, sk: { S: LineageKeys.head } },
          UpdateExpression: 'SET #seq = :seq, #hash = :hash',
          ExpressionAttributeNames: { '#seq': 'seq', '#hash': 'recordHash' },
          ExpressionAttributeValues: { ':seq': { N: '1' }, ':hash': { S: record1.recordHash } },
        }),
      );
      const result = await client.verifyLineage(lineageId);
      expect(result.verdict).toBe('LINEAGE_BROKEN');
      expect(result.records).toHaveLength(4);
      expect(result.firstFailure?.reason).toContain('records past the HEAD');
      // A junk item under a RECORD# sort key must not hide the records past the rewound head.
      await dynamodb.send(
        new PutItemCommand({
          TableName: stack.TableName,
          Item: { pk: { S: LineageKeys.lineage(lineageId) }, sk: { S: `${LineageKeys.recordPrefix}~` } },
        }),
      );
      expect((await client.verifyLineage(lineageId)).verdict).toBe('LINEAGE_BROKEN');
      await dynamodb.send(
        new DeleteItemCommand({
          TableName: stack.TableName,
          Key: { pk: { S: LineageKeys.lineage(lineageId) }, sk: { S: `${LineageKeys.recordPrefix}~` } },
        }),
      );

      await sendWrite(write(lineageId, 'r-after-rewind'));
      const conflicts = await until('a conflict record', async () => {
        const items = await conflictsOf(lineageId);
        return items.length > 0 ? items : undefined;
      });
      expect(conflicts.map((c) => c.reason?.S)).toEqual(['LINEAGE_INCONSISTENT']);
      const [event] = await eventsMatching(
        'ResidualRejected r-after-rewind',
        (e) => e['detail-type'] === 'ResidualRejected' && e.detail.lineageId === lineageId,
      );
      expect(event?.detail).toMatchObject({ reason: 'LINEAGE_INCONSISTENT', residualId: 'r-after-rewind' });
      expect(await store.readChain(lineageId, 0, 10)).toHaveLength(4);
    });

    it('the same residual id on two lineages is two residuals: both sealed', async () => {
      const lineageA = testLineageId(`lin-${randomUUID()}`);
      const lineageZ = testLineageId(`lin-${randomUUID()}`);
      await sendWrite(write(lineageA, 'r-1'));
      await until('r-1 on lineage A', async () => (await store.readRecord(lineageA, 0)) ?? undefined);
      await sendWrite(write(lineageZ, 'r-1'));
      await until('r-1 on lineage Z', async () => (await store.readRecord(lineageZ, 0)) ?? undefined);
      expect(await store.findByResidualId(lineageA, 'r-1')).toEqual({ lineageId: lineageA, seq: 0 });
      expect(await store.findByResidualId(lineageZ, 'r-1')).toEqual({ lineageId: lineageZ, seq: 0 });
      expect((await client.verifyLineage(lineageZ)).verdict).toBe('VERIFIED_INTACT');
      expect(await rejectionsOf(lineageZ)).toEqual([]);
    });

    it('a residual id reused on one lineage with another payload → RESIDUAL_ID_REUSED rejection, one record', async (context) => {
      const lineageId = testLineageId(`lin-${randomUUID()}`);
      await sendWrite(write(lineageId, 'r-1'));
      await until('r-1 sealed', async () => (await store.readRecord(lineageId, 0)) ?? undefined);
      await sendWrite(write(lineageId, 'r-1', { payload: { conclusion: 'a different conclusion' } }));
      const rejections = await until('a rejection record', async () => {
        const items = await rejectionsOf(lineageId);
        return items.length > 0 ? items : undefined;
      });
      expect(rejections.map((r) => [r.stage?.S, r.reason?.S, r.residualId?.S])).toEqual([
        ['SEALER', 'RESIDUAL_ID_REUSED', 'r-1'],
      ]);
      const [event] = await eventsMatching(
        'ResidualRejected r-1',
        (e) => e['detail-type'] === 'ResidualRejected' && e.detail.lineageId === lineageId,
      );
      const chain = await store.readChain(lineageId, 0, 10);
      expectGuarantee(
        context,
        {
          section: 'faults',
          target: 'residual write',
          attack: 'one residual id in two messages with different content',
          reader: 'rejection record and ResidualRejected (deployed)',
          expected: 'rejection SEALER RESIDUAL_ID_REUSED; ResidualRejected RESIDUAL_ID_REUSED; 1 record',
        },
        `rejection ${rejections.map((r) => `${r.stage?.S} ${r.reason?.S}`).join(', ')}; ResidualRejected ${event?.detail.reason}; ${chain.length} record${chain.length === 1 ? '' : 's'}`,
      );
      expect(event?.detail).toMatchObject({ reason: 'RESIDUAL_ID_REUSED', residualId: 'r-1' });
      expect(chain).toHaveLength(1);
      // docs/verifiable-log.md "Keys": the deployed sealer signs it with the sealer key (SEALER_KEY_ID), not the log key.
      const note = rejections[0]?.statement?.S as string;
      const sealerKey = await new KMSNoteVerifierKey(kms, stack.SealerKeyArn, sealerKeyName(stack.LogName)).get();
      expect(openOutcome(note, sealerKey, stack.LogName)).toMatchObject({
        stage: 'SEALER',
        reason: 'RESIDUAL_ID_REUSED',
      });
      const logKey = await new KMSNoteVerifierKey(kms, stack.LogKeyArn, stack.LogName).get();
      expect(() => openOutcome(note, logKey, stack.LogName)).toThrow(OutcomeVerificationError);
    });
  });

  describe('recall and triage', () => {
    const lineageId = testLineageId(`lin-${randomUUID()}`);
    /** A lineage whose record is sealed with a format-2 manifest (keys declared absent). */
    const absentLineageId = testLineageId(`lin-${randomUUID()}`);
    const recall = async (
      currentEnv: Record<string, string>,
      target: Record<string, unknown> = { latest: true },
      ofLineage = lineageId,
    ) => {
      const requestId = `req-${randomUUID()}`;
      await events.send(
        new PutEventsCommand({
          Entries: [
            {
              EventBusName: stack.EventBusName,
              Source: 'reseal',
              DetailType: 'RecallRequested',
              Detail: JSON.stringify({ requestId, lineageId: ofLineage, target, currentEnv }),
            },
          ],
        }),
      );
      const [event] = await eventsMatching(`TriageCompleted ${requestId}`, (e) => e.detail.requestId === requestId);
      return event?.detail ?? {};
    };

    beforeAll(async () => {
      await sendWrite(write(lineageId, `r-t0-${lineageId}`));
      await sendWrite(write(lineageId, `r-t1-${lineageId}`));
      await sendWrite(write(absentLineageId, 'r-absent', { manifest: absentKeyManifest() }));
      await until('two records', async () =>
        (await store.readChain(lineageId, 0, 5)).length === 2 ? true : undefined,
      );
      await until('the format-2 record', async () => (await store.readRecord(absentLineageId, 0)) ?? undefined);
    });

    it('a write with a format-2 manifest is accepted, sealed as sent, and a declared-absent key appearing quarantines the claim resting on it', async () => {
      const record = (await store.readRecord(absentLineageId, 0)) as { manifest: unknown };
      expect(record.manifest).toEqual(absentKeyManifest());
      const detail = await recall({ ...SEALED_ENV, HTTP_PROXY: 'http://10.0.0.1:3128' }, { seq: 0 }, absentLineageId);
      expect(detail).toMatchObject({ outcome: 'TRIAGED', verification: { verdict: 'VERIFIED_INTACT' } });
      expect(detail.report).toMatchObject({
        verdict: 'PARTIAL_REPROBE_REQUIRED',
        invalidatedClaims: ['claim-no-proxy'],
        retainedClaims: ['claim-instance-healthy'],
      });
    });

    it.each([
      ['NO_DRIFT', SEALED_ENV],
      ['AMBIENT_DRIFT_ONLY', { ...SEALED_ENV, HOSTNAME: 'runner-99' }],
      ['PARTIAL_REPROBE_REQUIRED', { ...SEALED_ENV, REGION: 'us-east-1' }],
      ['FULL_RECONSTRUCTION_REQUIRED', { ...SEALED_ENV, ARCH: 'x86_64' }],
    ])(
      'docs/triage.md: a recall against a drifted environment returns %s, stored under TRIAGE#',
      async (verdict, env) => {
        const detail = await recall(env, { seq: 1 });
        expect(detail).toMatchObject({
          outcome: 'TRIAGED',
          seq: 1,
          verification: { verdict: 'VERIFIED_INTACT' },
          refusalCode: null,
        });
        expect((detail.report as { verdict: string }).verdict).toBe(verdict);
        const stored = await store.getTriageReport(lineageId, detail.requestId as string);
        expect(stored?.report?.verdict).toBe(verdict);
      },
    );

    it('docs/sealing.md verification step 15 (hash-with-payload forgery): a record edited directly in DynamoDB makes triage refuse (tamper verdict)', async () => {
      const original = (await store.readRecord(lineageId, 0)) as Record<string, unknown>;
      const forged = { ...original, payload: { conclusion: 'nothing went wrong' } };
      await dynamodb.send(
        new UpdateItemCommand({
          TableName: stack.TableName,
          Key: { pk: { S: LineageKeys.lineage(lineageId) }, sk: { S: LineageKeys.record(0) } },
          UpdateExpression: 'SET #r = :r',
          ExpressionAttributeNames: { '#r': 'record' },
          ExpressionAttributeValues: { ':r': { S: JSON.stringify(forged) } },
        }),
      );
      const detail = await recall(SEALED_ENV, { seq: 0 });
      expect(detail).toMatchObject({
        outcome: 'REFUSED',
        report: null,
        verification: { verdict: 'HASH_MISMATCH', firstFailure: { seq: 0 } },
        refusalCode: 'VERIFICATION_FAILED',
      });
    });
  });
});

// --- waitForOutcome / publish --wait: the writer learns the outcome from the table ---
describe('ResealClient.waitForOutcome on the deployed stack', () => {
  const client = new ResealClient(clientOutputsFrom({ ...stack }), { sqs, dynamodb, kms, eventBridge: events });

  it('docs/guard.md: a stale write published through the real queue is REJECTED by the guard with UNVERIFIED_INHERITED', async () => {
    const lineageId = testLineageId(`lin-${randomUUID()}`);
    const residualId = `r-wait-stale-${randomUUID()}`;
    await client.publishWrite(
      write(lineageId, residualId, { variablesUsed: [unverifiedInheritedVariable('targetResourceId', 'i-1')] }),
    );
    const outcome = await client.waitForOutcome(lineageId, residualId, { timeoutMs: 90_000 });
    expect(outcome).toMatchObject({
      kind: 'REJECTED',
      rejection: {
        stage: 'GUARD',
        reason: 'STALE_STATE',
        lineageId,
        residualId,
        rejectedVariables: [{ name: 'targetResourceId', reason: 'UNVERIFIED_INHERITED' }],
      },
    });
  });

  it('a good write is SEALED with the head the ResidualSealed event carries, which verifyLineage accepts as a checkpoint', async () => {
    const lineageId = testLineageId(`lin-${randomUUID()}`);
    const residualId = `r-wait-good-${randomUUID()}`;
    await client.publishWrite(write(lineageId, residualId));
    const outcome = await client.waitForOutcome(lineageId, residualId, { timeoutMs: 90_000 });
    if (outcome.kind !== 'SEALED') throw new Error(`expected SEALED, got ${JSON.stringify(outcome)}`);
    expect(outcome.head).toMatchObject({ lineageId, seq: 0 });
    const [event] = await eventsMatching('ResidualSealed', seals(residualId));
    // The trusted-head use: the run's head taken out of the event.
    const held = sealedRunHead(ResidualSealedDetailSchema.parse(event?.detail), lineageId);
    expect(held).toEqual(outcome.head);
    const checkpoint = { seq: held?.seq ?? -1, recordHash: held?.recordHash ?? '' };
    expect((await client.verifyLineage(lineageId, { checkpoint })).verdict).toBe('VERIFIED_INTACT');
  });
});
// --- end waitForOutcome ---
