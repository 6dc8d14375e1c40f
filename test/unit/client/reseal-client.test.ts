import type { DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it, vi } from 'vitest';
import { PublishError, StackOutputsError, TimeoutError } from '../../../client/errors';
import { StackPublisher } from '../../../client/publisher';
import { ResealClient } from '../../../client/reseal-client';
import { clientOutputsFrom, resolveStackOutputs } from '../../../client/stack-outputs';
import { UnavailableMacAnchor } from '../../../client/unavailable-mac-anchor';
import { canonicalJson } from '../../../shared/canonical/canonical-json';
import { InvalidInputError, TenantMismatchError, TenantRequiredError } from '../../../shared/errors';
import { eventEntryBytes, MAX_EVENT_ENTRY_BYTES } from '../../../shared/pipeline/event-entry-bytes';
import type { SealedRecord } from '../../../shared/seal/sealed-record';
import { refusedTriageAnswer, TEST_CLIENT_OUTPUTS } from '../../helpers/factories';
import { FACTORY_NOW_MS, validWriteRequest } from '../../helpers/guard-factories';
import { InMemoryLineageStore } from '../../helpers/in-memory-lineage-store';
import { appendSealed, TEST_CLIENT_KEYS } from '../../helpers/pipeline-keys';
import { buildChain, cloneRecord, TEST_LINEAGE_ID, testAnchor } from '../../helpers/seal-factories';

const OUTPUTS = TEST_CLIENT_OUTPUTS;

/** A fake SDK client: records commands, answers with `reply(command)`. */
function fakeClient(reply: (command: unknown) => unknown) {
  const sent: unknown[] = [];
  return {
    sent,
    send: vi.fn(async (command: unknown) => {
      sent.push(command);
      return reply(command);
    }),
  };
}

async function storeWithChain(length: number): Promise<{ store: InMemoryLineageStore; records: SealedRecord[] }> {
  const store = new InMemoryLineageStore();
  const { records } = await buildChain(length);
  await appendSealed(store, records);
  return { store, records };
}

function client(deps: ConstructorParameters<typeof ResealClient>[1] = {}) {
  return new ResealClient(OUTPUTS, {
    ...TEST_CLIENT_KEYS,
    store: new InMemoryLineageStore(),
    anchor: testAnchor(),
    ...deps,
  });
}

describe('ResealClient.publishWrite', () => {
  it('sends the validated request to the residual-writes queue as canonical JSON', async () => {
    const sqs = fakeClient(() => ({ MessageId: 'm-1' }));
    // Signed by the test writer at FACTORY_NOW_MS: the client's clock reads the same, as SQS would.
    const request = validWriteRequest();
    await expect(client({ sqs, nowMs: () => FACTORY_NOW_MS }).publishWrite(request)).resolves.toEqual({
      messageId: 'm-1',
      publishedAtMs: FACTORY_NOW_MS,
      request,
    });
    const command = sqs.sent[0] as SendMessageCommand;
    expect(command).toBeInstanceOf(SendMessageCommand);
    expect(command.input).toEqual({ QueueUrl: OUTPUTS.residualWritesQueueUrl, MessageBody: canonicalJson(request) });
  });

  it('docs/guard.md: refuses a malformed request before sending anything', async () => {
    const sqs = fakeClient(() => ({ MessageId: 'm-1' }));
    const bad = { ...validWriteRequest(), priority: 'high' } as never;
    await expect(client({ sqs }).publishWrite(bad)).rejects.toThrow(/invalid residual write request/);
    expect(sqs.send).not.toHaveBeenCalled();
  });
});

describe('ResealClient.requestRecall', () => {
  it('puts RecallRequested (source reseal) on the stack bus and returns a generated request id', async () => {
    const eventBridge = fakeClient(() => ({ FailedEntryCount: 0, Entries: [{ EventId: 'e-1' }] }));
    const requestId = await client({ eventBridge }).requestRecall({
      lineageId: 'lineage-1',
      target: { latest: true },
      currentEnv: { ARCH: 'x86_64' },
    });
    expect(requestId).toMatch(/^recall-[0-9a-f-]{36}$/);
    const entry = (eventBridge.sent[0] as PutEventsCommand).input.Entries?.[0];
    expect(eventBridge.sent[0]).toBeInstanceOf(PutEventsCommand);
    expect(entry).toMatchObject({ Source: 'reseal', DetailType: 'RecallRequested', EventBusName: 'reseal-bus' });
    expect(JSON.parse(entry?.Detail as string)).toEqual({
      requestId,
      lineageId: 'lineage-1',
      target: { latest: true },
      currentEnv: { ARCH: 'x86_64' },
    });
  });

  it('throws PublishError with the AWS error code when EventBridge refuses the entry', async () => {
    const eventBridge = fakeClient(() => ({
      FailedEntryCount: 1,
      Entries: [{ ErrorCode: 'InternalFailure', ErrorMessage: 'try later' }],
    }));
    const recall = client({ eventBridge }).requestRecall({
      requestId: 'req-1',
      lineageId: 'lineage-1',
      target: { seq: 0 },
      currentEnv: {},
    });
    await expect(recall).rejects.toBeInstanceOf(PublishError);
    await expect(recall).rejects.toMatchObject({ errorCode: 'InternalFailure' });
  });
});

describe('ResealClient.requestRecall with a tenant (docs/triage.md, "Tenants")', () => {
  it("puts the recall with the tenant's source, the one IAM lets its principals put", async () => {
    const eventBridge = fakeClient(() => ({ FailedEntryCount: 0, Entries: [{ EventId: 'e-1' }] }));
    await client({ eventBridge, tenantId: 'acme' }).requestRecall({
      lineageId: 'acme/agent-1',
      target: { latest: true },
      currentEnv: {},
    });
    expect((eventBridge.sent[0] as PutEventsCommand).input.Entries?.[0]).toMatchObject({
      Source: 'reseal.tenant.acme',
      DetailType: 'RecallRequested',
    });
  });

  it('refuses a lineage outside its tenant TENANT_MISMATCH before putting anything (triage would refuse it)', async () => {
    const eventBridge = fakeClient(() => ({ FailedEntryCount: 0, Entries: [{ EventId: 'e-1' }] }));
    const recall = client({ eventBridge, tenantId: 'acme' }).requestRecall({
      lineageId: 'beta/agent-1',
      target: { latest: true },
      currentEnv: {},
    });
    await expect(recall).rejects.toBeInstanceOf(TenantMismatchError);
    await expect(recall).rejects.toMatchObject({
      code: 'TENANT_MISMATCH',
      lineageId: 'beta/agent-1',
      tenantId: 'acme',
      message: expect.stringMatching(/^TENANT_MISMATCH: lineage beta\/agent-1 is not of tenant acme/),
    });
    expect(eventBridge.send).not.toHaveBeenCalled();
  });

  it('refuses recall and its report wait outside its tenant TENANT_MISMATCH, before reading or putting anything', async () => {
    const eventBridge = fakeClient(() => ({ FailedEntryCount: 0, Entries: [{ EventId: 'e-1' }] }));
    const tenantClient = client({ eventBridge, tenantId: 'acme' });
    const recall = tenantClient.recall({ lineageId: 'beta/agent-1', target: { latest: true }, currentEnv: {} });
    await expect(recall).rejects.toBeInstanceOf(TenantMismatchError);
    await expect(tenantClient.waitForTriageReport('beta/agent-1', 'recall-1')).rejects.toBeInstanceOf(
      TenantMismatchError,
    );
    expect(eventBridge.send).not.toHaveBeenCalled();
  });

  it('refuses a tenant id that is not one', () => {
    expect(() => client({ tenantId: 'Acme Corp' })).toThrow(/tenantId/);
  });
});

// docs/authorship.md, "Tenancy", "Refused at the caller": a write the guard would refuse
// TENANT_MISMATCH (unsigned, filed in a partition the writer may not read) is refused here instead.
describe('ResealClient writes with a tenant (docs/authorship.md, "Tenancy")', () => {
  it("refuses a write into another tenant's lineage TENANT_MISMATCH, before anything is read, signed or sent", async () => {
    const sqs = fakeClient(() => ({ MessageId: 'm-1' }));
    const request = validWriteRequest({ lineageId: 'beta/agent-1' });
    const tenantClient = client({ sqs, tenantId: 'acme', nowMs: () => FACTORY_NOW_MS });
    await expect(tenantClient.publishWrite(request)).rejects.toBeInstanceOf(TenantMismatchError);
    await expect(tenantClient.publishWrite(request)).rejects.toMatchObject({
      code: 'TENANT_MISMATCH',
      lineageId: 'beta/agent-1',
      tenantId: 'acme',
    });
    await expect(tenantClient.waitForOutcome('beta/agent-1', request.residualId)).rejects.toBeInstanceOf(
      TenantMismatchError,
    );
    expect(sqs.send).not.toHaveBeenCalled();
  });

  it("its publisher sends a write into its own tenant's lineage, and refuses another tenant's", async () => {
    const sqs = fakeClient(() => ({ MessageId: 'm-1' }));
    const publisher = new StackPublisher({
      outputs: OUTPUTS,
      sqs,
      eventBridge: fakeClient(() => ({})),
      nowMs: () => FACTORY_NOW_MS,
      tenantId: 'acme',
    });
    await publisher.publishSigned(validWriteRequest({ lineageId: 'acme/agent-1' }));
    expect(sqs.send).toHaveBeenCalledTimes(1);
    const foreign = validWriteRequest({ lineageId: 'beta/agent-1' });
    await expect(publisher.publishSigned(foreign)).rejects.toBeInstanceOf(TenantMismatchError);
    await expect(publisher.signedRequest(foreign)).rejects.toBeInstanceOf(TenantMismatchError);
    expect(sqs.send).toHaveBeenCalledTimes(1);
  });
});

// docs/authorship.md, "Tenancy", "Refused at the caller": on a stack with tenants (its
// `TenantQueueUrls` output), a write or recall of no tenant of the stack would be refused where
// its caller cannot look (IAM, or the guard's unsigned refusal and triage's log behind it).
describe('ResealClient on a stack with tenants (docs/authorship.md, "Tenancy")', () => {
  const TENANTED = {
    ...OUTPUTS,
    tenantQueueUrls: { acme: 'https://sqs.example/acme-writes', beta: 'https://sqs.example/beta-writes' },
  };
  const tenantedClient = (deps: ConstructorParameters<typeof ResealClient>[1]) =>
    new ResealClient(TENANTED, {
      ...TEST_CLIENT_KEYS,
      store: new InMemoryLineageStore(),
      anchor: testAnchor(),
      nowMs: () => FACTORY_NOW_MS,
      ...deps,
    });

  it('refuses a write and a recall of a caller naming no tenant TENANT_REQUIRED, before anything is signed, sent or put', async () => {
    const sqs = fakeClient(() => ({ MessageId: 'm-1' }));
    const eventBridge = fakeClient(() => ({ FailedEntryCount: 0, Entries: [{ EventId: 'e-1' }] }));
    // `constructor` is an own key of no tenant map: Object.prototype's names no tenant.
    for (const tenantId of [undefined, 'gamma', 'constructor']) {
      const caller = tenantedClient({ sqs, eventBridge, ...(tenantId ? { tenantId } : {}) });
      const lineageId = `${tenantId ?? 'acme'}/agent-1`;
      const write = caller.publishWrite(validWriteRequest({ lineageId }));
      await expect(write).rejects.toBeInstanceOf(TenantRequiredError);
      await expect(write).rejects.toMatchObject({
        code: 'TENANT_REQUIRED',
        stackTenants: ['acme', 'beta'],
        tenantId: tenantId ?? null,
      });
      const recall = caller.requestRecall({
        lineageId,
        target: { latest: true },
        currentEnv: { A: '1' },
      });
      await expect(recall).rejects.toBeInstanceOf(TenantRequiredError);
    }
    // An InvalidInputError at tenantId: the CLI's exit 2 and the MCP tools' INVALID_INPUT.
    await expect(tenantedClient({ sqs }).publishWrite(validWriteRequest())).rejects.toThrow(
      /invalid tenant at tenantId: TENANT_REQUIRED: the stack has tenants \(acme, beta\)/,
    );
    expect(sqs.send).not.toHaveBeenCalled();
    expect(eventBridge.send).not.toHaveBeenCalled();
  });

  it("sends a tenant's write to its tenant's queue, not to residual-writes", async () => {
    const sqs = fakeClient(() => ({ MessageId: 'm-1' }));
    const publisher = new StackPublisher({
      outputs: TENANTED,
      sqs,
      eventBridge: fakeClient(() => ({})),
      nowMs: () => FACTORY_NOW_MS,
      tenantId: 'beta',
    });
    await publisher.publishSigned(validWriteRequest({ lineageId: 'beta/agent-1' }));
    expect((sqs.sent[0] as SendMessageCommand).input.QueueUrl).toBe('https://sqs.example/beta-writes');
  });

  it('reads the tenants from the TenantQueueUrls output; refuses one that is not tenant id → URL JSON', async () => {
    const outputsWith = (tenants: string) => ({
      TableName: 't',
      ResidualWritesQueueUrl: 'q',
      EventBusName: 'b',
      MacKeyArn: 'k',
      LogKeyArn: 'lk',
      GuardKeyArn: 'gk',
      SealerKeyArn: 'sk',
      LogName: 'reseal/ResealStack',
      TenantQueueUrls: tenants,
    });
    expect(clientOutputsFrom(outputsWith('{"acme":"https://sqs.example/acme"}')).tenantQueueUrls).toEqual({
      acme: 'https://sqs.example/acme',
    });
    for (const bad of ['{}', '{"Acme Corp":"u"}', 'not json', '["acme"]']) {
      expect(() => clientOutputsFrom(outputsWith(bad))).toThrow(StackOutputsError);
    }
  });
});

// docs/cli.md, "Input limits": a RecallRequested entry over EventBridge's PutEvents limit is
// refused before anything is sent, naming the limit, instead of failing at EventBridge.
describe('ResealClient.requestRecall: the PutEvents entry limit (256 KiB)', () => {
  /** Four 60,000-character values (240,000 bytes) and a `PAD` value of `pad` characters. */
  const envWith = (pad: number) => ({
    ...Object.fromEntries(['A', 'B', 'C', 'D'].map((key) => [key, 'x'.repeat(60_000)])),
    PAD: 'p'.repeat(pad),
  });
  const recall = { requestId: 'req-1', lineageId: 'lineage-1', target: { latest: true } as const };
  /** The PAD length that makes the entry exactly `MAX_EVENT_ENTRY_BYTES`, counted as EventBridge counts. */
  const padToLimit = () => {
    const detail = canonicalJson({ ...recall, currentEnv: envWith(0) });
    return MAX_EVENT_ENTRY_BYTES - eventEntryBytes({ source: 'reseal', detailType: 'RecallRequested', detail });
  };

  it('an entry of exactly the limit is sent, and its size is what EventBridge counts (Source + DetailType + Detail)', async () => {
    const eventBridge = fakeClient(() => ({ FailedEntryCount: 0, Entries: [{ EventId: 'e-1' }] }));
    await client({ eventBridge }).requestRecall({ ...recall, currentEnv: envWith(padToLimit()) });
    const entry = (eventBridge.sent[0] as PutEventsCommand).input.Entries?.[0];
    const size = ['Source', 'DetailType', 'Detail'].reduce(
      (sum, field) => sum + Buffer.byteLength(String(entry?.[field as 'Detail']), 'utf8'),
      0,
    );
    expect(size).toBe(MAX_EVENT_ENTRY_BYTES);
  });

  it('one byte more is refused as bad input at currentEnv, naming the limit and the size, and nothing is sent', async () => {
    const eventBridge = fakeClient(() => ({ FailedEntryCount: 0, Entries: [{ EventId: 'e-1' }] }));
    const sent = client({ eventBridge }).requestRecall({ ...recall, currentEnv: envWith(padToLimit() + 1) });
    await expect(sent).rejects.toBeInstanceOf(InvalidInputError);
    await expect(sent).rejects.toMatchObject({
      issues: [
        {
          path: 'currentEnv',
          message: expect.stringContaining(
            "the RecallRequested event would be 262,145 bytes (a current environment of 5 keys), more than EventBridge's PutEvents entry limit of 262,144 bytes",
          ),
        },
      ],
    });
    expect(eventBridge.send).not.toHaveBeenCalled();
  });
});

describe('ResealClient.waitForTriageReport', () => {
  it('polls until the report is stored, then returns it', async () => {
    const store = new InMemoryLineageStore();
    const report = refusedTriageAnswer({
      requestId: 'req-1',
      lineageId: 'lineage-1',
      refusalCode: 'NOT_FOUND',
      refusalReason: 'no such lineage',
      completedAtMs: 1,
    });
    let polls = 0;
    const sleep = vi.fn(async () => {
      polls++;
      // First something that is not a report (garbage under the id): waited past, not returned.
      if (polls === 2) store.triageReports.set('lineage-1#req-1', 'garbage' as never);
      if (polls === 3) await store.putTriageReport(report);
    });
    const found = await client({ store, sleep }).waitForTriageReport('lineage-1', 'req-1', { pollIntervalMs: 10 });
    expect(found).toEqual(report);
    expect(sleep).toHaveBeenCalledTimes(3);
  });

  it('throws a TimeoutError naming the recall it waited for', async () => {
    let now = 0;
    const sleep = async (ms: number) => {
      now += ms;
    };
    const wait = client({ nowMs: () => now, sleep }).waitForTriageReport('lineage-1', 'req-9', {
      timeoutMs: 1000,
      pollIntervalMs: 300,
    });
    await expect(wait).rejects.toBeInstanceOf(TimeoutError);
    await expect(wait).rejects.toMatchObject({ timeoutMs: 1000, waitedFor: expect.stringContaining('req-9') });
  });
});

describe('ResealClient.exportLineage and verifyLineage', () => {
  it('exports every record page by page with the head', async () => {
    const { store, records } = await storeWithChain(5);
    const progress: number[] = [];
    const exported = await client({ store, nowMs: () => 42 }).exportLineage(TEST_LINEAGE_ID, {
      pageSize: 2,
      onProgress: (p) => progress.push(p.done),
    });
    expect(exported).toMatchObject({ formatVersion: 1, lineageId: TEST_LINEAGE_ID, exportedAtMs: 42 });
    expect(exported.head?.seq).toBe(4);
    expect(exported.records).toEqual(records.map((r) => cloneRecord(r)));
    expect(progress).toEqual([2, 4, 5]);
  });

  it('docs/sealing.md: a stored chain verified in pages is VERIFIED_INTACT, with progress after each page', async () => {
    const { store, records } = await storeWithChain(5);
    const progress: [number, number][] = [];
    const result = await client({ store }).verifyLineage(TEST_LINEAGE_ID, {
      pageSize: 2,
      checkpoint: { seq: 4, recordHash: (records[4] as SealedRecord).recordHash },
      onProgress: (p) => progress.push([p.done, p.total]),
    });
    expect(result.verdict).toBe('VERIFIED_INTACT');
    expect(result.records).toHaveLength(5);
    expect(result.head).toEqual({ seq: 4, recordHash: (records[4] as SealedRecord).recordHash });
    expect(progress).toEqual([
      [2, 5],
      [4, 5],
      [5, 5],
    ]);
  });

  it('docs/sealing.md: a checkpoint inside an earlier page is still compared (rewrite → LINEAGE_BROKEN)', async () => {
    const { store } = await storeWithChain(5);
    const result = await client({ store }).verifyLineage(TEST_LINEAGE_ID, {
      pageSize: 2,
      checkpoint: { seq: 1, recordHash: 'f'.repeat(64) },
    });
    expect(result.verdict).toBe('LINEAGE_BROKEN');
    expect(result.firstFailure?.seq).toBe(1);
  });

  it('docs/sealing.md "Verification", truncation: a tail cut from the table, head included, is TRUNCATION_DETECTED against a kept checkpoint', async () => {
    const { store, records } = await storeWithChain(5);
    store.records.get(TEST_LINEAGE_ID)?.delete(4);
    const head = await store.head(TEST_LINEAGE_ID);
    if (!head) throw new Error('no head');
    store.heads.set(TEST_LINEAGE_ID, { ...head, seq: 3, recordHash: (records[3] as SealedRecord).recordHash });
    const result = await client({ store }).verifyLineage(TEST_LINEAGE_ID, {
      pageSize: 2,
      checkpoint: { seq: 4, recordHash: (records[4] as SealedRecord).recordHash },
    });
    expect(result.verdict).toBe('TRUNCATION_DETECTED');
  });

  it('docs/sealing.md verification step 15′ (fail closed): with the key unreachable an intact chain is UNVERIFIED_TAMPER_RISK, but a broken hash is still HASH_MISMATCH', async () => {
    const { store } = await storeWithChain(3);
    const anchor = new UnavailableMacAnchor('test-key-1', 'KMS unreachable');
    expect((await client({ store, anchor }).verifyLineage(TEST_LINEAGE_ID)).verdict).toBe('UNVERIFIED_TAMPER_RISK');
    const chain = store.records.get(TEST_LINEAGE_ID) as Map<number, string>;
    const tampered = JSON.parse(chain.get(2) as string);
    tampered.payload = { edited: true };
    chain.set(2, JSON.stringify(tampered));
    const result = await client({ store, anchor }).verifyLineage(TEST_LINEAGE_ID);
    expect(result.verdict).toBe('HASH_MISMATCH');
    expect(result.firstFailure?.seq).toBe(2);
  });
  it('docs/sealing.md verification step 15′ (fail closed): paged, an unverifiable MAC on an early page never hides a break on a later page', async () => {
    const { store } = await storeWithChain(6);
    const anchor = new UnavailableMacAnchor('test-key-1', 'KMS unreachable');
    const chain = store.records.get(TEST_LINEAGE_ID) as Map<number, string>;
    const tampered = JSON.parse(chain.get(4) as string);
    tampered.payload = { edited: true };
    chain.set(4, JSON.stringify(tampered));
    for (const pageSize of [1, 2, 500]) {
      const result = await client({ store, anchor }).verifyLineage(TEST_LINEAGE_ID, { pageSize });
      expect(result.verdict, `pageSize ${pageSize}`).toBe('HASH_MISMATCH');
      expect(result.firstFailure?.seq, `pageSize ${pageSize}`).toBe(4);
      expect(result.records.slice(0, 4).map((r) => r.verdict)).toEqual(Array(4).fill('UNVERIFIED_TAMPER_RISK'));
    }
  });

  it('docs/sealing.md: paged with the key unreachable, an intact chain is UNVERIFIED_TAMPER_RISK from its first record and has no verified head', async () => {
    const { store } = await storeWithChain(5);
    const anchor = new UnavailableMacAnchor('test-key-1', 'KMS unreachable');
    const result = await client({ store, anchor }).verifyLineage(TEST_LINEAGE_ID, { pageSize: 2 });
    expect(result.verdict).toBe('UNVERIFIED_TAMPER_RISK');
    expect(result.firstFailure?.seq).toBe(0);
    expect(result.records).toHaveLength(5);
    expect(result.head).toBeNull();
  });
});

describe('resolveStackOutputs', () => {
  it('maps the stack outputs the client needs', async () => {
    const cfn = fakeClient(() => ({
      Stacks: [
        {
          Outputs: [
            { OutputKey: 'TableName', OutputValue: 't' },
            { OutputKey: 'ResidualWritesQueueUrl', OutputValue: 'q' },
            { OutputKey: 'EventBusName', OutputValue: 'b' },
            { OutputKey: 'MacKeyArn', OutputValue: 'k' },
            { OutputKey: 'LogKeyArn', OutputValue: 'lk' },
            { OutputKey: 'GuardKeyArn', OutputValue: 'gk' },
            { OutputKey: 'SealerKeyArn', OutputValue: 'sk' },
            { OutputKey: 'LogName', OutputValue: 'reseal/ResealStack' },
            { OutputKey: 'Other', OutputValue: 'x' },
          ],
        },
      ],
    }));
    await expect(resolveStackOutputs('ResealStack', cfn)).resolves.toEqual({
      tableName: 't',
      residualWritesQueueUrl: 'q',
      eventBusName: 'b',
      macKeyArn: 'k',
      logKeyArn: 'lk',
      guardKeyArn: 'gk',
      sealerKeyArn: 'sk',
      logName: 'reseal/ResealStack',
    });
    expect((cfn.sent[0] as DescribeStacksCommand).input).toEqual({ StackName: 'ResealStack' });
  });

  it('names the missing outputs', async () => {
    const cfn = fakeClient(() => ({ Stacks: [{ Outputs: [{ OutputKey: 'TableName', OutputValue: 't' }] }] }));
    const resolved = resolveStackOutputs('ResealStack', cfn);
    await expect(resolved).rejects.toBeInstanceOf(StackOutputsError);
    await expect(resolved).rejects.toThrow(
      'missing outputs ResidualWritesQueueUrl, EventBusName, MacKeyArn, LogKeyArn, GuardKeyArn, SealerKeyArn, LogName',
    );
  });
});
