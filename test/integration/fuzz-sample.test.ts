import { createHash, randomUUID } from 'node:crypto';
import { QueryCommand } from '@aws-sdk/client-dynamodb';
import { PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { KMSNoteVerifierKey } from '../../adapters/kms-note-verifier-key';
import { LineageKeys } from '../../adapters/lineage-keys';
import { GuardService } from '../../functions/guard/guard-service';
import { SealerService } from '../../functions/sealer/sealer-service';
import { TriageService } from '../../functions/triage/triage-service';
import { DEFAULT_MAX_RECEIPT_AGE_SECONDS } from '../../shared/guard/policy';
import type { TriageCompletedDetail } from '../../shared/pipeline/triage-completed-detail';
import type { LineageStore } from '../../shared/ports/lineage-store';
import { Identifier } from '../../shared/schemas/identifier';
import { deployedStack } from '../helpers/deployed-stack';
import { FakeMetrics, FakePublisher, FakeSealQueue, fakeLogger } from '../helpers/factories';
import {
  HOSTILE_STRINGS,
  hostileNodeArb,
  type JNode,
  mutate,
  mutateText,
  mutationArb,
  render,
  textMutationArb,
  toAst,
  writeRequestArb,
} from '../helpers/fuzz-arbitraries';
import { expectGuarantee, type Guarantee } from '../helpers/guarantees';
import { InMemoryLineageStore } from '../helpers/in-memory-lineage-store';
import { testGuardSigner, testLogSigner, testSealerSigner } from '../helpers/pipeline-keys';
import { testAnchor } from '../helpers/seal-factories';
import { until } from '../helpers/until';
import { testLineageId } from '../helpers/writer-factories';

// docs/guarantees.md "Fuzzing", "a sample through the deployed stack": a few dozen generated residual-writes
// bodies and RecallRequested details sent through the real queues and bus on the emulator, each
// checked against what the same handlers decide in process (the oracle) and found where its
// writer looks. The volume (1,000 per handler) runs in process: test/unit/fuzz/.
const { stack, sqs, dynamodb, kms, events, store } = deployedStack();
// A fixed seed by default, so each run sends the same sample and docs/guarantees.md is reproducible;
// FUZZ_SEED=<n> explores another.
const SEED = Number(process.env.FUZZ_SEED ?? 20261201);
/** Every wait here names the seed, so a time-out can be replayed. */
/**
 * The outcome of a detail holding a number beyond double range (`1e400`): the emulator's EventBridge
 * decodes it to infinity and re-encodes it as `Infinity`, which is not JSON, so the triage function
 * is never invoked and the requester's wait times out (docs/triage.md, "Repeated member names in a
 * recall detail" and what follows). Not an answer Reseal gives: one the bus never delivers.
 */
const UNDELIVERABLE = 'not delivered by the bus (a number beyond double range)';

/** Whether a parsed JSON value holds a number JSON.parse turned into ±Infinity. */
function overflowsDouble(value: unknown): boolean {
  if (typeof value === 'number') return !Number.isFinite(value);
  if (value === null || typeof value !== 'object') return false;
  return Object.values(value).some(overflowsDouble);
}

const fuzzWait = { timeoutMs: 60_000, state: () => `FUZZ_SEED=${SEED}` };

afterAll(() => {
  sqs.destroy();
  dynamodb.destroy();
  kms.destroy();
  events.destroy();
});

const digestOf = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** The top-level ids a body names, when they are identifiers (`JSON.parse`, the last of a repeated name). */
function namedIds(text: string): { lineageId: string | null; residualId: string | null } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { lineageId: null, residualId: null };
  }
  const pick = (key: string) => {
    if (json === null || typeof json !== 'object' || Array.isArray(json)) return null;
    const value = (json as Record<string, unknown>)[key];
    return Identifier.safeParse(value).success ? (value as string) : null;
  };
  return { lineageId: pick('lineageId'), residualId: pick('residualId') };
}

/** What the guard and then the sealer decide for `body` in process, on a fresh table: `sealed`, `guard <reason>`, `sealer <reason>`, `conflict <reason>`. */
async function predictWrite(body: string, nowMs: number): Promise<string> {
  const queue = new FakeSealQueue();
  const common = { store: new InMemoryLineageStore(), publisher: new FakePublisher(), metrics: new FakeMetrics() };
  const guard = new GuardService({
    ...common,
    queue,
    signer: testGuardSigner(),
    logName: stack.LogName,
    logger: fakeLogger(),
    clock: () => nowMs,
    maxReceiptAgeSeconds: DEFAULT_MAX_RECEIPT_AGE_SECONDS,
  });
  const judged = await guard.handle({ messageId: 'oracle', body, sentAtMs: nowMs });
  if (judged.kind !== 'ACCEPTED') return `guard ${judged.reason}`;
  const sealer = new SealerService({
    ...common,
    anchor: testAnchor(),
    signer: testLogSigner(),
    refusalSigner: testSealerSigner(),
    logger: fakeLogger(),
    clock: () => nowMs,
  });
  const sealed = await sealer.handle({
    messageId: 'oracle-seal',
    body: JSON.stringify(queue.sent[0]),
    sentAtMs: nowMs,
  });
  if (sealed.kind === 'SEALED' || sealed.kind === 'DUPLICATE') return 'sealed';
  return `${sealed.kind === 'CONFLICT' ? 'conflict' : 'sealer'} ${sealed.reason}`;
}

/** Where the body's writer looks: its record, its sealer refusal, or its guard rejection (by body digest), or `undefined` while none exists. */
async function observeWrite(body: string): Promise<string | undefined> {
  const { lineageId, residualId } = namedIds(body);
  if (lineageId && residualId) {
    if (await store.findByResidualId(lineageId, residualId)) return 'sealed';
    const sealerRefusal = (await store.listRejections(lineageId, { residualId })).find((r) => r.stage === 'SEALER');
    if (sealerRefusal) return `sealer ${sealerRefusal.reason}`;
    const [conflict] = await store.listConflicts(lineageId, { residualId });
    if (conflict) return `conflict ${conflict.reason}`;
  }
  const digest = digestOf(body);
  for (const partition of [lineageId, null]) {
    const out = await dynamodb.send(
      new QueryCommand({
        TableName: stack.TableName,
        KeyConditionExpression: 'pk = :pk',
        FilterExpression: 'bodyDigest = :d',
        ExpressionAttributeValues: { ':pk': { S: LineageKeys.rejection(partition) }, ':d': { S: digest } },
        ConsistentRead: true,
      }),
    );
    const item = out.Items?.[0];
    if (item) return `guard ${item.reason?.S}`;
    if (partition === null) break;
  }
  return undefined;
}

/** Bodies of every input class the in-process fuzz uses, each naming its own lineage. */
function bodyArb(nowMs: number, lineageIds: readonly string[]): fc.Arbitrary<string> {
  const request = writeRequestArb({ lineageIds, nowMs });
  return fc.oneof(
    { weight: 3, arbitrary: request.map((ast) => render(ast)) },
    {
      weight: 5,
      arbitrary: fc
        .tuple(request, fc.array(mutationArb, { minLength: 1, maxLength: 3 }))
        .map(([ast, mutations]) => render(mutations.reduce<JNode>(mutate, ast))),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(request, fc.array(textMutationArb, { minLength: 1, maxLength: 2 }))
        .map(([ast, edits]) => edits.reduce(mutateText, render(ast))),
    },
    { weight: 1, arbitrary: hostileNodeArb.map((n) => render(n)) },
  );
}

/** Bodies SQS takes: non-empty, no characters outside its allowed set (#x9 #xA #xD #x20–#xD7FF #xE000–#xFFFD, well-formed). */
const sqsAccepts = (body: string) =>
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the characters SQS refuses are the point
  body.length > 0 && body.isWellFormed() && !/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/.test(body);

console.info(`fuzz sample through the deployed stack: FUZZ_SEED=${SEED}`);

describe('fuzz sample through the deployed stack (docs/guarantees.md "Fuzzing")', () => {
  it('40 generated residual-writes bodies: each outcome where its writer looks is the one the handlers give in process; nothing sealed from invalid input; no dead letter', async (context) => {
    const nowMs = Date.now();
    const pool = Array.from({ length: 80 }, () => `lin-fz-${randomUUID()}`);
    const sampled = fc.sample(bodyArb(nowMs, pool), { numRuns: 200, seed: SEED });
    // One body per lineage (so the in-process oracle's fresh table is the lineage's state), that SQS takes.
    const seen = new Set<string>();
    const bodies = sampled
      .filter(sqsAccepts)
      .filter((body) => {
        const key = `${namedIds(body).lineageId}`;
        if (key !== 'null' && seen.has(key)) return false;
        seen.add(key);
        return true;
      })
      .slice(0, 40);
    expect(bodies.length).toBe(40);
    const predicted = await Promise.all(bodies.map((body) => predictWrite(body, nowMs)));
    for (const body of bodies) {
      await sqs.send(new SendMessageCommand({ QueueUrl: stack.ResidualWritesQueueUrl, MessageBody: body }));
    }
    const observed: string[] = [];
    for (const body of bodies)
      observed.push(await until('the outcome of a fuzzed body', () => observeWrite(body), fuzzWait));

    const row = {
      section: 'fuzzing',
      target: 'guard → sealer (deployed)',
      reader: 'deployed stack (emulator)',
    } as const;
    const attack =
      'residual-writes bodies: valid, mutated (wrong types, missing, unknown and repeated fields; hostile unicode; RFC 8785 numbers), text-damaged, hostile JSON';
    const disagreements = bodies.filter((_, i) => observed[i] !== predicted[i]);
    expectGuarantee(
      context,
      { ...row, attack, expected: 'outcome found where its writer looks, as in process: 40 bodies, 0 violations' },
      `outcome found where its writer looks, as in process: ${bodies.length} bodies, ${disagreements.length} violations`,
    );
    const sealedInvalid = observed.filter((o, i) => o === 'sealed' && predicted[i] !== 'sealed').length;
    expectGuarantee(
      context,
      { ...row, attack, expected: 'no record sealed from invalid input: 40 bodies, 0 violations' },
      `no record sealed from invalid input: ${bodies.length} bodies, ${sealedInvalid} violations`,
    );
    const dead = new Set<string>();
    for (const url of [stack.ResidualWritesDlqUrl, stack.SealRequestsDlqUrl]) {
      const out = await sqs.send(
        new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, VisibilityTimeout: 0 }),
      );
      for (const m of out.Messages ?? []) dead.add(m.Body ?? '');
    }
    const crashed = bodies.filter((b) => dead.has(b) || [...dead].some((d) => d.includes(digestOf(b)))).length;
    expectGuarantee(
      context,
      { ...row, attack, expected: 'no crash (no dead letter): 40 bodies, 0 violations' },
      `no crash (no dead letter): ${bodies.length} bodies, ${crashed} violations`,
    );
    expect(new Set(predicted).size).toBeGreaterThanOrEqual(3);
  });

  it('16 generated RecallRequested details on the bus: each answer stored for the requester is the one triage gives in process; no dead letter', async (context) => {
    // A lineage of two records, sealed through the queues.
    const lineageId = testLineageId(`lin-fz-triage-${randomUUID()}`);
    const writes = fc.sample(writeRequestArb({ lineageIds: [lineageId], nowMs: Date.now() }), {
      numRuns: 6,
      seed: SEED,
    });
    const residualIds: string[] = [];
    for (const ast of writes) {
      const body = render(ast);
      if ((await predictWrite(body, Date.now())) !== 'sealed') continue;
      const { residualId } = namedIds(body);
      if (!residualId || residualIds.includes(residualId)) continue;
      residualIds.push(residualId);
      await sqs.send(new SendMessageCommand({ QueueUrl: stack.ResidualWritesQueueUrl, MessageBody: body }));
      await until(
        'the record',
        async () => ((await store.findByResidualId(lineageId, residualId)) ? true : undefined),
        fuzzWait,
      );
      if (residualIds.length === 2) break;
    }
    expect(residualIds.length).toBeGreaterThan(0);
    const sealedEnv = { ARCH: 'arm64', REGION: 'eu-west-1' };
    const envArb = fc
      .array(
        fc.tuple(
          fc.constantFrom('ARCH', 'REGION', 'NEW', ...HOSTILE_STRINGS.filter((s) => s.length <= 12)),
          fc.constantFrom('arm64', 'x86_64', 'eu-west-1', '', 'e\u0301'),
        ),
        { maxLength: 3 },
      )
      .map((edits) => Object.fromEntries([...Object.entries(sealedEnv), ...edits]));
    const detailArb = fc
      .record({
        target: fc.oneof(
          fc.constant({ latest: true }),
          fc.record({ seq: fc.nat({ max: 3 }) }),
          fc.record({ residualId: fc.constantFrom(...residualIds, 'r-unknown') }),
        ),
        currentEnv: envArb,
      })
      .chain((d) =>
        fc.tuple(fc.constant(d), fc.array(mutationArb, { maxLength: 2 })).map(([detail, mutations]) => ({
          detail,
          mutations,
        })),
      );
    const details = fc.sample(detailArb, { numRuns: 16, seed: SEED }).map(({ detail, mutations }) => {
      const ast = toAst({ requestId: `fz-${randomUUID()}`, lineageId, ...detail });
      return render(mutations.reduce<JNode>(mutate, ast));
    });
    const objects = details.filter((text) => {
      try {
        const value = JSON.parse(text) as unknown;
        return value !== null && typeof value === 'object' && !Array.isArray(value) && text.isWellFormed();
      } catch {
        return false;
      }
    });

    // The oracle: triage in process on the same table, its answers kept aside.
    const kept = new Map<string, TriageCompletedDetail>();
    const oracleStore = new Proxy(store, {
      get(target, name, receiver) {
        if (name === 'putTriageReport')
          return async (report: TriageCompletedDetail) => void kept.set(report.requestId, report);
        if (name === 'getTriageReport')
          return async (_lineage: string, requestId: string) => kept.get(requestId) ?? null;
        const value = Reflect.get(target, name, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    }) as unknown as LineageStore;
    const logKey = new KMSNoteVerifierKey(kms, stack.LogKeyArn, stack.LogName);
    const oracle = new TriageService({
      store: oracleStore,
      publisher: new FakePublisher(),
      logKey: () => logKey.get(),
      metrics: new FakeMetrics(),
      logger: fakeLogger(),
      clock: Date.now,
    });
    const answerOf = (report: TriageCompletedDetail | null) =>
      report ? `${report.outcome} ${report.refusalCode ?? report.report?.verdict}` : 'no answer';
    const predicted: string[] = [];
    for (const text of objects) {
      predicted.push(
        overflowsDouble(JSON.parse(text)) ? UNDELIVERABLE : answerOf((await oracle.handle(JSON.parse(text))).detail),
      );
    }

    for (const text of objects) {
      const out = await events.send(
        new PutEventsCommand({
          Entries: [
            { EventBusName: stack.EventBusName, Source: 'reseal', DetailType: 'RecallRequested', Detail: text },
          ],
        }),
      );
      expect(out.FailedEntryCount ?? 0).toBe(0);
    }
    const observed: string[] = [];
    const undelivered: { i: number; lineageId: string; requestId: string }[] = [];
    for (const [i, text] of objects.entries()) {
      const { requestId, lineageId: named } = JSON.parse(text) as { requestId?: unknown; lineageId?: unknown };
      const usable = Identifier.safeParse(requestId).success && Identifier.safeParse(named).success;
      if (!usable || predicted[i] === 'no answer') {
        observed.push('no answer');
        continue;
      }
      if (predicted[i] === UNDELIVERABLE) {
        // Looked at once every deliverable answer is in (all were put on the bus before any wait).
        observed.push(UNDELIVERABLE);
        undelivered.push({ i, lineageId: named as string, requestId: requestId as string });
        continue;
      }
      const report = await until(
        'the triage answer',
        () => store.getTriageReport(named as string, requestId as string).then((r) => r ?? undefined),
        { ...fuzzWait, state: () => `${fuzzWait.state()}; in process: ${predicted[i]}; detail ${text}` },
      );
      observed.push(answerOf(report));
    }
    for (const { i, lineageId: named, requestId } of undelivered) {
      const report = await store.getTriageReport(named, requestId);
      if (report) observed[i] = answerOf(report);
    }
    const disagreements = objects.filter((_, i) => observed[i] !== predicted[i]).length;
    expectGuarantee(
      context,
      triageRow(`answer stored where the requester looks, as in process: ${objects.length} details, 0 violations`),
      `answer stored where the requester looks, as in process: ${objects.length} details, ${disagreements} violations`,
    );
    const requestIds = objects.map((o) => String((JSON.parse(o) as { requestId?: unknown }).requestId));
    const triageDead = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: stack.TriageDlqUrl, MaxNumberOfMessages: 10, VisibilityTimeout: 0 }),
    );
    const crashed = (triageDead.Messages ?? []).filter((m) => requestIds.some((id) => (m.Body ?? '').includes(id)));
    expectGuarantee(
      context,
      triageRow(`no crash (no dead letter): ${objects.length} details, 0 violations`),
      `no crash (no dead letter): ${objects.length} details, ${crashed.length} violations`,
    );
  });
});

/** A row of the deployed triage fuzz sample, expecting `expected`. */
function triageRow(expected: string): Guarantee {
  return {
    section: 'fuzzing',
    target: 'triage (deployed)',
    attack: 'RecallRequested details on the bus: every target, hostile env keys (__proto__, constructor, NFD), mutated',
    reader: 'deployed stack (emulator)',
    expected,
  };
}
