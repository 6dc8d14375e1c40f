import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TriageService } from '../../../functions/triage/triage-service';
import { checkpointOrigin } from '../../../shared/log/checkpoint-origin';
import { verifyRecordProof } from '../../../shared/log/record-proof';
import { signNote } from '../../../shared/log/signed-note';
import { checkConsistency } from '../../../shared/log/tree-consistency';
import { verifyCheckpoint } from '../../../shared/log/verified-checkpoint';
import { RecallRequestedDetailSchema } from '../../../shared/pipeline/recall-requested-detail';
import { RefusalCode } from '../../../shared/pipeline/refusal-code';
import { TriageCompletedDetailSchema } from '../../../shared/pipeline/triage-completed-detail';
import { TriageOutcome } from '../../../shared/pipeline/triage-outcome';
import { type SealedRecord, SealedRecordSchema } from '../../../shared/seal/sealed-record';
import { verifyChain } from '../../../shared/seal/verify-chain';
import { buildManifest } from '../../../shared/triage/build-manifest';
import { isolateDelta } from '../../../shared/triage/isolate-delta';
import { FakeMetrics, FakePublisher, fakeLogger, lineageSealedBySealer } from '../../helpers/factories';
import {
  FUZZ_RUNS,
  FUZZ_TIMEOUT_MS,
  HOSTILE_STRINGS,
  identifierArb,
  type JNode,
  mutate,
  mutateText,
  mutationArb,
  render,
  textMutationArb,
  toAst,
  tryParse,
} from '../../helpers/fuzz-arbitraries';
import { InvariantTracker } from '../../helpers/fuzz-guarantees';
import { FACTORY_LINEAGE_ID, FACTORY_NOW_MS } from '../../helpers/guard-factories';
import { forgerLogSigner, TEST_LOG_KEY, TEST_LOG_NAME } from '../../helpers/pipeline-keys';
import { testAnchor } from '../../helpers/seal-factories';

/**
 * Fuzzing triage (docs/guarantees.md, "Fuzzing"): `TriageService.handle` on generated `RecallRequested` details (valid
 * ones and mutants) against a lineage of three records sealed by the real sealer, with the
 * invariants every detail must keep. A precise oracle says which valid details must be triaged.
 */

const LINEAGE = FACTORY_LINEAGE_ID;
const COUNT = 3;
/** The environment the records are sealed against: hostile names included (`constructor`, NFC `é`). */
const SEALED_ENV: Readonly<Record<string, string>> = {
  ARCH: 'arm64',
  HOSTNAME: 'runner-17',
  REGION: 'eu-west-1',
  TOOL_VERSION: '1.2.3',
  constructor: 'ctor-1',
  '\u00e9': 'nfc',
};
const manifest = buildManifest({
  env: SEALED_ENV,
  structuralKeys: ['ARCH'],
  structuralAbsentKeys: ['LD_PRELOAD'],
  claimDependencyMap: {
    'claim-region': ['REGION'],
    'claim-tooling': ['TOOL_VERSION', 'constructor'],
    'claim-no-proxy': { causalKeys: ['\u00e9'], absentKeys: ['HTTP_PROXY'] },
  },
});

const { store } = await lineageSealedBySealer(COUNT, manifest);
const records = (await store.readChain(LINEAGE, 0, COUNT)).map((r) => SealedRecordSchema.parse(r));
const ORIGIN = checkpointOrigin(TEST_LOG_NAME, LINEAGE);
/** Signed checkpoints of this lineage at sizes 1, 2, 3 (the sealer is deterministic, so shorter runs are prefixes). */
const CHECKPOINTS: readonly string[] = [
  (await lineageSealedBySealer(1, manifest)).store.headSnapshot(LINEAGE)?.checkpoint as string,
  (await lineageSealedBySealer(2, manifest)).store.headSnapshot(LINEAGE)?.checkpoint as string,
  store.headSnapshot(LINEAGE)?.checkpoint as string,
];
const FORGED = await signNote(`${ORIGIN}\n2\n${'A'.repeat(43)}=\n`, forgerLogSigner());

function service(publisher: FakePublisher) {
  return new TriageService({
    store,
    publisher,
    logKey: async () => TEST_LOG_KEY,
    metrics: new FakeMetrics(),
    logger: fakeLogger(),
    clock: () => FACTORY_NOW_MS,
  });
}

/** An object whose every key is an own property (`__proto__` included), in order. */
function own(entries: readonly (readonly [string, unknown])[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of entries)
    Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  return out;
}

/** Environment keys: the sealed ones, declared-absent ones, NFD twins, inherited names, new ones. */
const envKeyArb = fc.oneof(
  fc.constantFrom(
    ...Object.keys(SEALED_ENV),
    'e\u0301',
    'HTTP_PROXY',
    'LD_PRELOAD',
    'toString',
    'valueOf',
    'hasOwnProperty',
    'NEW_KEY',
  ),
  fc.constantFrom(...HOSTILE_STRINGS.filter((s) => s.length <= 16)),
  fc.string({ maxLength: 6 }),
);
const envValueArb = fc.oneof(
  fc.constantFrom(...Object.values(SEALED_ENV), 'changed', ''),
  fc.constantFrom(...HOSTILE_STRINGS.filter((s) => s.length <= 16)),
);

/** The sealed environment with a few keys set, re-set or removed. */
const envArb = fc.array(fc.tuple(envKeyArb, fc.option(envValueArb, { freq: 5 })), { maxLength: 4 }).map((edits) => {
  const env = new Map<string, string>(Object.entries(SEALED_ENV));
  for (const [key, value] of edits) {
    if (value === null) env.delete(key);
    else env.set(key, value);
  }
  return own([...env.entries()]);
});

const trustedArb = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...CHECKPOINTS) },
  { weight: 1, arbitrary: fc.constant(FORGED) },
  {
    weight: 2,
    arbitrary: fc.tuple(fc.constantFrom(...CHECKPOINTS), textMutationArb).map(([note, edit]) => mutateText(note, edit)),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
);

/** A `{ seq, recordHash }` checkpoint: mostly a real one, else another record's hash or any hash. */
const headCheckpointArb = fc.nat({ max: COUNT }).chain((seq) =>
  fc.record({
    seq: fc.constant(seq),
    recordHash: fc.oneof(
      { weight: 3, arbitrary: fc.constant(records[seq]?.recordHash ?? '0'.repeat(64)) },
      { weight: 1, arbitrary: fc.constantFrom(...records.map((r) => r.recordHash)) },
      { weight: 1, arbitrary: fc.stringMatching(/^[0-9a-f]{64}$/) },
    ),
  }),
);

const validDetailArb = fc.record(
  {
    requestId: identifierArb,
    lineageId: fc.oneof({ weight: 6, arbitrary: fc.constant(LINEAGE) }, { weight: 1, arbitrary: identifierArb }),
    target: fc.oneof(
      fc.record({ seq: fc.oneof(fc.nat({ max: COUNT + 1 }), fc.constant(Number.MAX_SAFE_INTEGER)) }),
      fc.record({ residualId: fc.oneof(fc.constantFrom('r-0', 'r-1', 'r-2', 'r-3'), identifierArb) }),
      fc.constant({ latest: true as const }),
    ),
    currentEnv: envArb,
    checkpoint: headCheckpointArb,
    trustedCheckpoint: trustedArb,
  },
  { requiredKeys: ['requestId', 'lineageId', 'target', 'currentEnv'] },
);

/** A detail as EventBridge hands it over: the JSON of a (valid, or mutated) detail, parsed. */
const detailArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: validDetailArb.map((d) => JSON.parse(render(toAst(d)))) },
  {
    weight: 5,
    arbitrary: fc.tuple(validDetailArb, fc.array(mutationArb, { minLength: 1, maxLength: 3 })).map(([d, mutations]) => {
      const text = render(mutations.reduce<JNode>(mutate, toAst(d)));
      const parsed = tryParse(text);
      return parsed.ok ? parsed.value : text;
    }),
  },
  {
    weight: 1,
    arbitrary: fc.oneof(
      fc.constantFrom(null, undefined, 0, '', [], {}, 'RecallRequested'),
      fc.jsonValue({ maxDepth: 2 }),
    ),
  },
);

/** Which valid details must be triaged: the lineage, an existing target, and honest checkpoints. */
function mustTriage(detail: {
  lineageId: string;
  target: { seq: number } | { residualId: string } | { latest: true };
  checkpoint?: { seq: number; recordHash: string };
  trustedCheckpoint?: string;
}): boolean {
  if (detail.lineageId !== LINEAGE) return false;
  const { target, checkpoint, trustedCheckpoint } = detail;
  if ('seq' in target && target.seq >= COUNT) return false;
  if ('residualId' in target && !records.some((r) => r.header.residualId === target.residualId)) return false;
  if (checkpoint && (checkpoint.seq >= COUNT || records[checkpoint.seq]?.recordHash !== checkpoint.recordHash)) {
    return false;
  }
  if (trustedCheckpoint !== undefined && !CHECKPOINTS.includes(trustedCheckpoint)) {
    // A mutated note that still verifies would be the same checkpoint; none of ours do.
    try {
      verifyCheckpoint(trustedCheckpoint, TEST_LOG_KEY, ORIGIN);
    } catch {
      return false;
    }
  }
  return true;
}

const isId = (value: unknown) => typeof value === 'string' && /^[A-Za-z0-9][A-Za-z0-9._:@/+=-]{0,199}$/.test(value);

/** The invariants every detail keeps (docs/guarantees.md "Fuzzing"), one row each in the guarantees table. */
const Invariant = {
  NO_CRASH: 'never throws',
  REFUSAL_RECORDED: 'an invalid detail with usable ids gets a stored and announced INVALID_REQUEST answer, else none',
  TRIAGED_ONLY_PROVEN: 'TRIAGED only for a valid detail naming a record proven in the signed tree',
  ANSWER_VERIFIES:
    "every answer is stored and announced; a TRIAGED one's proofs verify and its report is the isolator's",
} as const;
type Invariant = (typeof Invariant)[keyof typeof Invariant];
const invariants = new InvariantTracker<Invariant>(Object.values(Invariant) as [Invariant, ...Invariant[]]);

async function judge(detail: unknown) {
  store.triageReports.clear();
  const publisher = new FakePublisher();
  // Never throws: with in-memory ports there is no infrastructure failure to throw for.
  invariants.at(Invariant.NO_CRASH);
  const result = await service(publisher).handle(detail);
  const parsed = RecallRequestedDetailSchema.safeParse(detail);
  for (const emitted of publisher.triaged) TriageCompletedDetailSchema.parse(emitted);

  if (!parsed.success) {
    invariants.at(Invariant.REFUSAL_RECORDED);
    // Never triaged; answered with INVALID_REQUEST when the ids are usable, else nowhere.
    expect(result.kind).toBe('INVALID');
    const raw = (detail !== null && typeof detail === 'object' ? detail : {}) as Record<string, unknown>;
    const usable = isId(raw.requestId) && isId(raw.lineageId);
    if (!usable) {
      expect(result.detail).toBeNull();
      expect(publisher.triaged).toHaveLength(0);
      return result;
    }
    expect(result.detail).toMatchObject({ outcome: TriageOutcome.REFUSED, refusalCode: RefusalCode.INVALID_REQUEST });
    TriageCompletedDetailSchema.parse(result.detail);
    expect(publisher.triaged).toEqual([result.detail]);
    expect(await store.getTriageReport(raw.lineageId as string, raw.requestId as string)).toEqual(result.detail);
    return result;
  }

  invariants.at(Invariant.ANSWER_VERIFIES);
  expect(result.kind).toBe('COMPLETED');
  if (result.kind !== 'COMPLETED') return result;
  const report = TriageCompletedDetailSchema.parse(result.detail);
  expect(publisher.triaged).toEqual([result.detail]);
  expect(await store.getTriageReport(parsed.data.lineageId, parsed.data.requestId)).toEqual(result.detail);
  expect(report).toMatchObject({ requestId: parsed.data.requestId, lineageId: parsed.data.lineageId });
  invariants.at(Invariant.TRIAGED_ONLY_PROVEN);
  const expected = mustTriage(parsed.data);
  expect(report.outcome).toBe(expected ? TriageOutcome.TRIAGED : TriageOutcome.REFUSED);

  if (report.outcome === TriageOutcome.REFUSED) {
    expect(report.report).toBeNull();
    expect(report.refusalReason?.length).toBeGreaterThan(0);
    expect([RefusalCode.NOT_FOUND, RefusalCode.VERIFICATION_FAILED, RefusalCode.INVALID_REQUEST]).toContain(
      report.refusalCode,
    );
    return result;
  }

  // TRIAGED: the target record, proven in the signed tree, triaged against the detail's environment.
  invariants.at(Invariant.ANSWER_VERIFIES);
  const { target, currentEnv } = parsed.data;
  // (`+ 0`: a target seq of -0 names record 0)
  const seq =
    'seq' in target ? target.seq + 0 : 'residualId' in target ? Number(target.residualId.slice(2)) : COUNT - 1;
  const record = records[seq] as SealedRecord;
  expect(report).toMatchObject({
    seq,
    residualId: record.header.residualId,
    verification: { verdict: 'VERIFIED_INTACT', firstFailure: null },
    refusalCode: null,
    refusalReason: null,
  });
  const proof = report.proof;
  if (!proof || !report.report) throw new Error('TRIAGED without proof or report');
  const checkpoint = verifyCheckpoint(proof.checkpoint ?? '', TEST_LOG_KEY, ORIGIN);
  expect(checkpoint.size).toBe(COUNT);
  expect(verifyRecordProof(await store.readRecord(LINEAGE, seq), proof.inclusion, checkpoint, LINEAGE).verdict).toBe(
    'VERIFIED_INTACT',
  );
  if (parsed.data.trustedCheckpoint !== undefined) {
    const trusted = verifyCheckpoint(parsed.data.trustedCheckpoint, TEST_LOG_KEY, ORIGIN);
    expect(checkConsistency(trusted, checkpoint, proof.consistency).verdict).toBe('VERIFIED_INTACT');
  }
  expect(report.report).toEqual(isolateDelta(record.manifest, currentEnv));
  // Independent of the isolator: no drift exactly when the environment is the sealed one.
  const same =
    Object.keys(currentEnv).length === Object.keys(SEALED_ENV).length &&
    Object.entries(SEALED_ENV).every(([k, v]) => Object.hasOwn(currentEnv, k) && currentEnv[k] === v);
  expect(report.report.verdict === 'NO_DRIFT').toBe(same);
  if (!same) {
    // Keys absent from the baseline are reported as appeared (Object.prototype member names are
    // left out: isolateDelta files them under `changed`).
    const appeared = Object.keys(currentEnv).filter((k) => !Object.hasOwn(SEALED_ENV, k) && !(k in Object.prototype));
    for (const key of appeared) expect(report.report.driftedKeys.appeared).toContain(key);
    const vanished = Object.keys(SEALED_ENV).filter((k) => !Object.hasOwn(currentEnv, k));
    expect(report.report.driftedKeys.vanished).toEqual(vanished.sort());
  }
  return result;
}

describe('triage fuzz: TriageService.handle on generated RecallRequested details', () => {
  it(
    '1,000 details against a lineage sealed by the sealer: never throws; never TRIAGED unless the detail is valid and names a proven record; every answer verifies',
    async (context) => {
      const kinds = new Map<string, number>();
      await invariants.check(
        context,
        {
          target: 'triage (TriageService.handle)',
          attack:
            'RecallRequested details: valid recalls of every target, mutated (wrong types, missing, unknown fields; hostile unicode, __proto__ and constructor env keys; RFC 8785 numbers as seqs), forged and foreign checkpoints, non-objects',
          reader: 'in process',
        },
        fc.asyncProperty(detailArb, async (detail) => {
          const result = await invariants.run(() => judge(detail));
          const kind =
            result.kind === 'INVALID'
              ? `INVALID:${result.detail ? 'answered' : 'unanswered'}`
              : `${result.detail.outcome}:${result.detail.refusalCode ?? result.detail.report?.verdict}`;
          kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
        }),
        { numRuns: FUZZ_RUNS },
      );
      for (const kind of [
        'INVALID:answered',
        'INVALID:unanswered',
        'REFUSED:NOT_FOUND',
        'REFUSED:VERIFICATION_FAILED',
      ]) {
        expect(kinds.get(kind) ?? 0).toBeGreaterThan(0);
      }
      expect([...kinds.keys()].filter((k) => k.startsWith('TRIAGED:')).length).toBeGreaterThanOrEqual(3);
      // Triage only reads: the lineage still verifies as sealed.
      const chain = await store.readChain(LINEAGE, 0, COUNT);
      expect((await verifyChain(chain, { lineageId: LINEAGE, anchor: testAnchor() })).verdict).toBe('VERIFIED_INTACT');
    },
    FUZZ_TIMEOUT_MS,
  );
});
