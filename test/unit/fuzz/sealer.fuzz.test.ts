import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SealOutcome } from '../../../functions/sealer/seal-outcomes';
import { SealerService } from '../../../functions/sealer/sealer-service';
import { writeSignatureProblem } from '../../../shared/authorship/write-signature';
import { canonicalBytes } from '../../../shared/canonical/canonical-json';
import { CanonicalizationError } from '../../../shared/errors';
import { evaluateWrite } from '../../../shared/guard/evaluate-write';
import { checkConflictOutcome, checkRejectionOutcome, openOutcome } from '../../../shared/log/outcome-statement';
import { RejectionReason } from '../../../shared/pipeline/rejection-reason';
import { ResidualRejectedDetailSchema } from '../../../shared/pipeline/residual-rejected-detail';
import { ResidualSealedDetailSchema } from '../../../shared/pipeline/residual-sealed-detail';
import { type SealRequest, SealRequestSchema } from '../../../shared/pipeline/seal-request';
import { payloadHash } from '../../../shared/seal/payload-hash';
import { MAX_HEADER_BYTES } from '../../../shared/seal/record-header';
import { type SealedRecord, SealedRecordSchema } from '../../../shared/seal/sealed-record';
import { verifyChain } from '../../../shared/seal/verify-chain';
import { differingWriteContent } from '../../../shared/seal/write-content';
import { requestDigest } from '../../../shared/write/request-digest';
import { FakeMetrics, FakePublisher, fakeLogger } from '../../helpers/factories';
import {
  FUZZ_RUNS,
  FUZZ_TIMEOUT_MS,
  hostileNodeArb,
  type JNode,
  mutate,
  mutateText,
  mutationArb,
  render,
  repeatsName,
  textMutationArb,
  toAst,
  tryParse,
  valueIdentity,
  WriteDigests,
  withMember,
  writeRequestArb,
} from '../../helpers/fuzz-arbitraries';
import { InvariantTracker } from '../../helpers/fuzz-guarantees';
import { FACTORY_NOW_MS, validWriteRequest } from '../../helpers/guard-factories';
import { InMemoryLineageStore } from '../../helpers/in-memory-lineage-store';
import { refRoot } from '../../helpers/merkle-reference';
import { TEST_LOG_NAME, TEST_SEALER_KEY, testLogSigner, testSealerSigner } from '../../helpers/pipeline-keys';
import { testAnchor } from '../../helpers/seal-factories';
import { testLineageId } from '../../helpers/writer-factories';

/**
 * Fuzzing the sealer (docs/guarantees.md, "Fuzzing"): `SealerService.handleGroup` on generated FIFO groups of 1–10
 * `seal-requests` bodies (genuine guard output mixed with forged, mutated and broken bodies),
 * each group against a fresh in-memory store, with the invariants every group must keep.
 */

const NOW_MS = FACTORY_NOW_MS + 1000;
const MAX_RECEIPT_AGE_SECONDS = 900;
const RETENTION_MS = 345_600_000;
/** Two lineages of the test writer policy (self-certifying ids, docs/authorship.md). */
const LINEAGES = [testLineageId('lin-A'), testLineageId('lin-B')] as const;
/** The refusals recorded without a KMS signature (docs/authorship.md, "Two refusals, in order"). */
const UNSIGNED_REFUSALS: ReadonlySet<string> = new Set([
  RejectionReason.WRITER_SIGNATURE_INVALID,
  RejectionReason.WRITER_NOT_ADMITTED,
]);
/** Few residual ids, so groups hold redeliveries and reuses; three epochs, so some are fenced out. */
const requestArb = writeRequestArb({ lineageIds: LINEAGES, residualIds: ['r-0', 'r-1', 'r-2'], epochs: [7, 8, 9] });

/** The verdict the guard gives `request` at `acceptedAtMs`, or `null` when it cannot judge it. */
function guardVerdict(request: unknown, acceptedAtMs: number) {
  try {
    return evaluateWrite(request, { nowMs: acceptedAtMs, maxReceiptAgeSeconds: MAX_RECEIPT_AGE_SECONDS });
  } catch {
    return null;
  }
}

const FALLBACK_VERDICT = toAst(guardVerdict(validWriteRequest(), FACTORY_NOW_MS));

/** A safe verdict no guard gave (digest `aaaa…`). */
const FORGED_SAFE = toAst({
  isSafe: true,
  rejectedVariables: [],
  requestViolations: [],
  verdictDigest: 'a'.repeat(64),
});

/** The seal request the guard would forward for a request tree (its verdict recomputed from the text). */
function sealRequestAst(request: JNode, acceptedAtMs: number): JNode {
  const parsed = tryParse(render(request));
  const verdict = parsed.ok ? guardVerdict(parsed.value, acceptedAtMs) : null;
  return {
    kind: 'object',
    members: [
      ['"formatVersion"', { kind: 'value', value: 1 }],
      ['"request"', request],
      ['"verdict"', verdict ? toAst(verdict) : FALLBACK_VERDICT],
      ['"acceptedAtMs"', { kind: 'value', value: acceptedAtMs }],
    ],
  };
}

/** After mutations, the verdict the guard gives the mutated request (when it can), so mutants get sealed too. */
function reverdict(body: JNode): JNode {
  const parsed = tryParse(render(body));
  if (!parsed.ok || parsed.value === null || typeof parsed.value !== 'object') return body;
  const { request, acceptedAtMs } = parsed.value as { request?: unknown; acceptedAtMs?: unknown };
  const verdict = guardVerdict(request, typeof acceptedAtMs === 'number' ? acceptedAtMs : FACTORY_NOW_MS);
  return verdict ? withMember(body, 'verdict', toAst(verdict)) : body;
}

/** Acceptance times around the sealer's window (5 s skew ahead, 4 days retention behind). */
const acceptedAtArb = fc.oneof(
  { weight: 8, arbitrary: fc.constant(FACTORY_NOW_MS) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(5000, 5001, -RETENTION_MS + 1000, -RETENTION_MS, -RETENTION_MS - 1, 6000, -60_000)
      .map((d) => NOW_MS + d),
  },
);

interface Message {
  readonly body: string;
  /** SQS `SentTimestamp` relative to `acceptedAtMs`-ish "now" (the factories' now). */
  readonly sentOffsetMs: number;
}

const sentOffsetArb = fc.oneof(
  { weight: 8, arbitrary: fc.integer({ min: 0, max: 900 }) },
  { weight: 1, arbitrary: fc.constantFrom(-5000, -5001, 60_000, 60_001, -100_000) },
);

const messageArb: fc.Arbitrary<Message> = fc.record({
  body: fc.oneof(
    // genuine guard output (some of it refused anyway: stale, unsafe payload numbers, bad supersedes)
    {
      weight: 6,
      arbitrary: fc.tuple(requestArb, acceptedAtArb).map(([request, at]) => render(sealRequestAst(request, at))),
    },
    // guard output mutated at random paths, its verdict recomputed or left stale
    {
      weight: 4,
      arbitrary: fc
        .tuple(requestArb, fc.array(mutationArb, { minLength: 1, maxLength: 3 }), fc.boolean())
        .map(([request, mutations, again]) => {
          const mutated = mutations.reduce<JNode>(mutate, sealRequestAst(request, FACTORY_NOW_MS));
          return render(again ? reverdict(mutated) : mutated);
        }),
    },
    // a request carrying a verdict it did not get: forged, or another write's genuine one
    {
      weight: 1,
      arbitrary: fc
        .tuple(requestArb, fc.constantFrom(FALLBACK_VERDICT, FORGED_SAFE))
        .map(([request, verdict]) => render(withMember(sealRequestAst(request, FACTORY_NOW_MS), 'verdict', verdict))),
    },
    // text-level damage, hostile JSON, not JSON
    {
      weight: 1,
      arbitrary: fc
        .tuple(requestArb, fc.array(textMutationArb, { minLength: 1, maxLength: 2 }))
        .map(([request, edits]) => edits.reduce(mutateText, render(sealRequestAst(request, FACTORY_NOW_MS)))),
    },
    {
      weight: 1,
      arbitrary: fc.oneof(
        hostileNodeArb.map((n) => render(n)),
        fc.string({ unit: 'binary', maxLength: 30 }),
      ),
    },
  ),
  sentOffsetMs: sentOffsetArb,
});

/** Groups of 1–10 messages, some of them redeliveries of an earlier one. */
const groupArb = fc
  .tuple(fc.array(messageArb, { minLength: 1, maxLength: 10 }), fc.array(fc.nat(), { maxLength: 3 }))
  .map(([messages, again]) => [...messages, ...again.map((k) => messages[k % messages.length] as Message)].slice(0, 10))
  .filter((group) => group.length > 0);

/** A body as the sealer may seal it: a SealRequest with no repeated name, else `null`. */
function sealRequestOf(body: string): SealRequest | null {
  const parsed = tryParse(body);
  if (!parsed.ok || repeatsName(body)) return null;
  const result = SealRequestSchema.safeParse(parsed.value);
  return result.success ? result.data : null;
}

/** Whether `acceptedAtMs` lies in the sealer's window (now, retention, and the message's SentTimestamp). */
function inTimeWindow(acceptedAtMs: number, sentAtMs: number): boolean {
  return (
    acceptedAtMs - NOW_MS <= 5000 &&
    NOW_MS - acceptedAtMs <= RETENTION_MS &&
    sentAtMs - acceptedAtMs <= 60_000 &&
    acceptedAtMs - sentAtMs <= 5000
  );
}

const digests = new WriteDigests();

let counter = 0;

/** The invariants every group keeps (docs/guarantees.md "Fuzzing"), one row each in the guarantees table. */
const Invariant = {
  NO_CRASH: 'never throws; one outcome per message',
  NO_COLLISION: 'no two different requests or payloads share a digest',
  SEALED_ONLY_GENUINE: 'only a genuine guard verdict is sealed, once per residual id, as sent',
  REFUSAL_RECORDED:
    'every refusal is one rejection or conflict, signed unless a bad or unadmitted writer signature (docs/authorship.md), filed under the write and announced',
  CHAINS_VERIFY: 'every chain verifies and the largest tree its seals announced is the tree of its records',
} as const;
type Invariant = (typeof Invariant)[keyof typeof Invariant];
const invariants = new InvariantTracker<Invariant>(Object.values(Invariant) as [Invariant, ...Invariant[]]);

/** Runs one group through a fresh sealer and checks every invariant; returns the outcomes. */
async function judge(group: readonly Message[]): Promise<SealOutcome[]> {
  const store = new InMemoryLineageStore();
  const publisher = new FakePublisher();
  const anchor = testAnchor();
  const service = new SealerService({
    store,
    publisher,
    anchor,
    signer: testLogSigner(),
    refusalSigner: testSealerSigner(),
    metrics: new FakeMetrics(),
    logger: fakeLogger(),
    clock: () => NOW_MS,
  });
  // Distinct SentTimestamps (ms), as SQS gives messages of one group in order.
  const messages = group.map((m, i) => ({
    messageId: `fuzz-${++counter}`,
    body: m.body,
    sentAtMs: FACTORY_NOW_MS + 1000 * i + m.sentOffsetMs,
  }));
  // Never throws: with in-memory ports there is no infrastructure failure to throw for.
  invariants.at(Invariant.NO_CRASH);
  const outcomes = await service.handleGroup(messages);
  /** The largest tree each lineage's seals stored (`sealedTreeHead`), for the chains' check below. */
  const sealedTrees = new Map<string, { treeSize: number; rootHash: string }>();
  expect(outcomes).toHaveLength(messages.length);

  /** Records sealed so far in the group, by lineage and residual id, in message order. */
  const sealedBy = new Map<string, SealedRecord>();
  const key = (lineageId: string, residualId: string) => JSON.stringify([lineageId, residualId]);

  for (const [i, outcome] of outcomes.entries()) {
    const message = messages[i] as (typeof messages)[number];
    const request = sealRequestOf(message.body);
    const parsed = tryParse(message.body);
    invariants.at(Invariant.NO_COLLISION);
    if (parsed.ok && parsed.value !== null && typeof parsed.value === 'object') {
      const inner = (parsed.value as { request?: unknown }).request;
      if (inner !== undefined) digests.record(inner);
    }
    invariants.at(
      outcome.kind === 'SEALED' || outcome.kind === 'DUPLICATE'
        ? Invariant.SEALED_ONLY_GENUINE
        : Invariant.REFUSAL_RECORDED,
    );
    const rejections = store.rejections.filter((r) => r.messageId === message.messageId);
    const conflicts = store.conflicts.filter((c) => c.messageId === message.messageId);
    const events = publisher.rejected.filter((e) => e.messageId === message.messageId);

    switch (outcome.kind) {
      case 'SEALED': {
        // Sealed only from a genuine, unambiguous seal request whose verdict the guard's rules give.
        expect(request).not.toBeNull();
        if (!request) break;
        const { acceptedAtMs, verdict } = request;
        expect(inTimeWindow(acceptedAtMs, message.sentAtMs)).toBe(true);
        const recomputed = evaluateWrite(request.request, {
          nowMs: acceptedAtMs,
          maxReceiptAgeSeconds: MAX_RECEIPT_AGE_SECONDS,
        });
        expect(recomputed.isSafe).toBe(true);
        expect(recomputed.verdictDigest).toBe(verdict.verdictDigest);
        const record = SealedRecordSchema.parse(await store.readRecord(request.request.lineageId, outcome.head.seq));
        expect(record.header).toMatchObject({
          lineageId: request.request.lineageId,
          residualId: request.request.residualId,
          sessionId: request.request.sessionId,
          generationEpoch: request.request.generationEpoch,
          authority: request.request.authority,
          verdictDigest: verdict.verdictDigest,
          payloadHash: payloadHash(request.request.payload),
        });
        expect(valueIdentity(record.payload)).toBe(valueIdentity(request.request.payload));
        expect(sealedBy.has(key(request.request.lineageId, request.request.residualId))).toBe(false);
        sealedBy.set(key(request.request.lineageId, request.request.residualId), record);
        expect(outcome.sealedTreeHead.treeSize).toBeGreaterThan(outcome.head.seq);
        // No signed lineage checkpoint (docs/deployment-log.md, "What changes for the sealer", step 3).
        expect(outcome.checkpoint).toBeNull();
        const largest = sealedTrees.get(request.request.lineageId);
        if (!largest || largest.treeSize < outcome.sealedTreeHead.treeSize) {
          sealedTrees.set(request.request.lineageId, outcome.sealedTreeHead);
        }
        expect(rejections).toHaveLength(0);
        expect(conflicts).toHaveLength(0);
        break;
      }
      case 'DUPLICATE': {
        // A redelivery of a write sealed earlier in the group, with the same content.
        expect(request).not.toBeNull();
        if (!request) break;
        const earlier = sealedBy.get(key(request.request.lineageId, request.request.residualId));
        expect(earlier).toBeDefined();
        if (earlier) expect(differingWriteContent(request.request, earlier)).toEqual([]);
        expect(rejections).toHaveLength(0);
        expect(conflicts).toHaveLength(0);
        break;
      }
      case 'REJECTED': {
        expect(rejections).toHaveLength(1);
        expect(conflicts).toHaveLength(0);
        const rejection = rejections[0];
        if (!rejection) break;
        expect(rejection).toMatchObject({
          stage: 'SEALER',
          reason: outcome.reason,
          atMs: message.sentAtMs,
          bodyDigest: createHash('sha256').update(message.body, 'utf8').digest('hex'),
        });
        if (UNSIGNED_REFUSALS.has(outcome.reason)) {
          // Anyone can provoke these two, so they cost no Sign (docs/authorship.md, "Two refusals, in order").
          expect(rejection.statement).toBeNull();
        } else {
          const statement = openOutcome(rejection.statement as string, TEST_SEALER_KEY, TEST_LOG_NAME);
          checkRejectionOutcome(rejection, statement);
          expect(statement).toMatchObject({ kind: 'REJECTED', stage: 'SEALER', reason: outcome.reason });
        }
        if (request) {
          // Filed under the write's lineage, naming the write, where its writer looks.
          expect(rejection).toMatchObject({
            lineageId: request.request.lineageId,
            residualId: request.request.residualId,
            requestDigest: requestDigest(request.request),
            verdictDigest: request.verdict.verdictDigest,
          });
          const listed = await store.listRejections(request.request.lineageId, {
            residualId: request.request.residualId,
          });
          expect(listed).toContainEqual(rejection);
        }
        switch (outcome.reason) {
          case RejectionReason.MALFORMED_JSON:
            expect(parsed.ok).toBe(false);
            break;
          case RejectionReason.SCHEMA_VIOLATION:
            expect(request).toBeNull();
            break;
          case RejectionReason.ACCEPTANCE_TIME_INVALID:
            expect(request).not.toBeNull();
            if (request) expect(inTimeWindow(request.acceptedAtMs, message.sentAtMs)).toBe(false);
            break;
          case RejectionReason.VERDICT_MISMATCH: {
            expect(request).not.toBeNull();
            if (!request) break;
            expect(inTimeWindow(request.acceptedAtMs, message.sentAtMs)).toBe(true);
            const recomputed = guardVerdict(request.request, request.acceptedAtMs);
            expect(recomputed?.isSafe === true && recomputed.verdictDigest === request.verdict.verdictDigest).toBe(
              false,
            );
            break;
          }
          case RejectionReason.RESIDUAL_ID_REUSED: {
            expect(request).not.toBeNull();
            if (!request) break;
            const earlier = sealedBy.get(key(request.request.lineageId, request.request.residualId));
            expect(earlier).toBeDefined();
            if (earlier) expect(differingWriteContent(request.request, earlier).length).toBeGreaterThan(0);
            break;
          }
          case RejectionReason.WRITER_SIGNATURE_INVALID: {
            // The sealer checks the writer's signature again: a seal request is the guard's word.
            expect(request).not.toBeNull();
            if (!request) break;
            let problem: string | null;
            try {
              problem = writeSignatureProblem(request.request, message.sentAtMs);
            } catch (error) {
              if (!(error instanceof CanonicalizationError)) throw error;
              problem = error.message;
            }
            expect(problem).not.toBeNull();
            break;
          }
          // No WRITER_NOT_ADMITTED: every generated write is signed by the test writer key, which the
          // policy of both lineages admits (a forged or mutated write fails its signature first).
          case RejectionReason.SEAL_REFUSED:
            // The core refused a genuine request (a supersedes naming no sealed record, a header over 4 KiB).
            expect(request).not.toBeNull();
            break;
          default:
            throw new Error(`the sealer has no business rejecting with ${outcome.reason}`);
        }
        expect(events).toHaveLength(1);
        break;
      }
      case 'CONFLICT': {
        // Fencing is the only conflict a fresh store without rivals can give.
        expect(outcome.reason).toBe('STALE_EPOCH');
        expect(request).not.toBeNull();
        expect(conflicts).toHaveLength(1);
        expect(rejections).toHaveLength(0);
        const conflict = conflicts[0];
        if (!request || !conflict) break;
        expect(conflict).toMatchObject({
          lineageId: request.request.lineageId,
          residualId: request.request.residualId,
          reason: outcome.reason,
          requestDigest: requestDigest(request.request),
          atMs: message.sentAtMs,
        });
        const statement = openOutcome(conflict.statement as string, TEST_SEALER_KEY, TEST_LOG_NAME);
        checkConflictOutcome(conflict, statement);
        const newer = [...sealedBy.values()].some(
          (r) =>
            r.header.lineageId === request.request.lineageId &&
            r.header.generationEpoch > request.request.generationEpoch,
        );
        expect(newer).toBe(true);
        expect(events).toHaveLength(1);
        break;
      }
    }
    if (outcome.kind === 'REJECTED' || outcome.kind === 'CONFLICT') {
      expect(ResidualRejectedDetailSchema.parse(events[0])).toMatchObject({ stage: 'SEALER', reason: outcome.reason });
    } else expect(events).toHaveLength(0);
  }

  // Counts: one record per SEALED, one event per outcome, nothing recorded twice or dropped.
  invariants.at(Invariant.SEALED_ONLY_GENUINE);
  const count = (kind: SealOutcome['kind']) => outcomes.filter((o) => o.kind === kind).length;
  const stored = [...store.records.values()].reduce((n, chain) => n + chain.size, 0);
  expect(stored).toBe(count('SEALED'));
  // One ResidualSealed event for the group's invocation, announcing each sealed or redelivered record.
  const answered = outcomes.flatMap((o) =>
    o.kind === 'SEALED' || o.kind === 'DUPLICATE' ? [`${o.head.lineageId} ${o.head.seq} ${o.residualId}`] : [],
  );
  expect(publisher.sealed).toHaveLength(answered.length > 0 ? 1 : 0);
  expect(new Set(publisher.sealedResiduals.map((r) => `${r.lineageId} ${r.seq} ${r.residualId}`))).toEqual(
    new Set(answered),
  );
  expect(publisher.rejected).toHaveLength(count('REJECTED') + count('CONFLICT'));
  expect(store.rejections).toHaveLength(count('REJECTED'));
  expect(store.conflicts).toHaveLength(count('CONFLICT'));
  for (const event of publisher.sealed) ResidualSealedDetailSchema.parse(event);

  // Every chain verifies, its head carries the head-state MAC and no signed checkpoint, and the
  // largest tree its seals announced is exactly its records' tree.
  invariants.at(Invariant.CHAINS_VERIFY);
  for (const lineageId of store.records.keys()) {
    const chain = await store.readChain(lineageId, 0, Number.MAX_SAFE_INTEGER);
    const verification = await verifyChain(chain, { lineageId, anchor: testAnchor() });
    expect(verification.verdict).toBe('VERIFIED_INTACT');
    const head = store.headSnapshot(lineageId);
    expect(head?.checkpoint ?? null).toBeNull();
    expect(head?.headMac).toBeTruthy();
    const tree = sealedTrees.get(lineageId);
    expect(tree?.treeSize).toBe(chain.length);
    const leaves = chain.map((r) => Uint8Array.from(Buffer.from((r as SealedRecord).recordHash, 'hex')));
    expect(tree?.rootHash).toBe(Buffer.from(refRoot(leaves)).toString('hex'));
  }
  return outcomes;
}

describe('sealer fuzz: SealerService.handleGroup on generated FIFO groups', () => {
  it(
    '1,000 groups of 1–10 bodies: never throws; only genuine requests are sealed; every chain and checkpoint verifies; every refusal is recorded (signed unless a writer refusal) and announced; no digest collides',
    async (context) => {
      const kinds = new Map<string, number>();
      await invariants.check(
        context,
        {
          target: 'sealer (SealerService.handleGroup)',
          attack:
            'FIFO groups of 1–10 seal-requests bodies: genuine guard output, redeliveries, reused ids, fenced epochs, forged verdicts and times, mutated (wrong types, missing, unknown and repeated fields; hostile unicode; RFC 8785 numbers), text-damaged, not JSON',
          reader: 'in process',
        },
        fc.asyncProperty(groupArb, async (group) => {
          for (const outcome of await invariants.run(() => judge(group))) {
            const kind = outcome.kind === 'SEALED' || outcome.kind === 'DUPLICATE' ? outcome.kind : outcome.reason;
            kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
          }
        }),
        { numRuns: FUZZ_RUNS },
      );
      for (const kind of [
        'SEALED',
        'DUPLICATE',
        'SCHEMA_VIOLATION',
        'MALFORMED_JSON',
        'VERDICT_MISMATCH',
        'STALE_EPOCH',
      ]) {
        expect(kinds.get(kind) ?? 0).toBeGreaterThan(0);
      }
    },
    FUZZ_TIMEOUT_MS,
  );

  it(`record headers at and past the KMS MAC input limit (${MAX_HEADER_BYTES} bytes): sealed up to the byte, SEAL_REFUSED and recorded past it`, async (context) => {
    const AT_LIMIT = 'sealed up to the byte, refused past it, nothing stored';
    const limits = new InvariantTracker([Invariant.NO_CRASH, Invariant.REFUSAL_RECORDED, AT_LIMIT]);
    // The writer's ids (up to 200 ASCII characters each) cannot reach the limit on their own; the
    // anchor's key id (up to 2,048 characters) is stretched so the header is 4,096 + delta bytes.
    const id = (n: number, c: string) => `${c}${'x'.repeat(n - 1)}`;
    await limits.check(
      context,
      {
        target: 'sealer (SealerService.handleGroup)',
        attack: `genuine seal request whose record header is ${MAX_HEADER_BYTES} ± 2 canonical bytes (KMS GenerateMac takes 4,096)`,
        reader: 'in process',
      },
      fc.asyncProperty(
        fc.integer({ min: -2, max: 2 }),
        // A self-certifying lineage id: a label of 1–167 characters, a dot and 32 hex (34–200 in all).
        fc.integer({ min: 1, max: 167 }),
        fc.integer({ min: 1, max: 200 }),
        async (delta, labelLength, residualLength) => {
          await limits.run(async () => {
            const request = validWriteRequest({
              lineageId: testLineageId(id(labelLength, 'L')),
              residualId: id(residualLength, 'R'),
            });
            const body = JSON.stringify({
              formatVersion: 1,
              request,
              verdict: guardVerdict(request, FACTORY_NOW_MS),
              acceptedAtMs: FACTORY_NOW_MS,
            });
            const sealWith = async (keyId: string) => {
              const store = new InMemoryLineageStore();
              const publisher = new FakePublisher();
              const service = new SealerService({
                store,
                publisher,
                anchor: testAnchor({ keyId }),
                signer: testLogSigner(),
                refusalSigner: testSealerSigner(),
                metrics: new FakeMetrics(),
                logger: fakeLogger(),
                clock: () => NOW_MS,
              });
              const outcome = await service.handle({ messageId: `mac-${++counter}`, body, sentAtMs: FACTORY_NOW_MS });
              return { store, publisher, outcome };
            };
            const probe = await sealWith('k');
            if (probe.outcome.kind !== 'SEALED') throw new Error(`probe not sealed: ${JSON.stringify(probe.outcome)}`);
            const base = canonicalBytes(
              SealedRecordSchema.parse(await probe.store.readRecord(request.lineageId, 0)).header,
            ).byteLength;
            // Within the key id's 2,048 characters: three-byte characters, then one-byte ones.
            const room = 1 + MAX_HEADER_BYTES + delta - base;
            const keyId = '\u20ac'.repeat(Math.floor(room / 3)) + 'k'.repeat(room % 3);
            limits.at(Invariant.NO_CRASH);
            const { store, publisher, outcome } = await sealWith(keyId);
            limits.at(AT_LIMIT);
            if (delta <= 0) {
              expect(outcome.kind).toBe('SEALED');
              const record = SealedRecordSchema.parse(await store.readRecord(request.lineageId, 0));
              expect(canonicalBytes(record.header).byteLength).toBe(MAX_HEADER_BYTES + delta);
              return;
            }
            expect(outcome).toEqual({ kind: 'REJECTED', reason: RejectionReason.SEAL_REFUSED });
            expect(await store.readRecord(request.lineageId, 0)).toBeNull();
            limits.at(Invariant.REFUSAL_RECORDED);
            const [rejection] = await store.listRejections(request.lineageId, { residualId: request.residualId });
            expect(rejection).toMatchObject({ stage: 'SEALER', reason: RejectionReason.SEAL_REFUSED });
            checkRejectionOutcome(
              rejection as never,
              openOutcome(rejection?.statement as string, TEST_SEALER_KEY, TEST_LOG_NAME),
            );
            expect(publisher.rejected).toHaveLength(1);
          });
        },
      ),
      { numRuns: 30 },
    );
  });
});
