import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES } from '../../../functions/guard/guard-service';
import { writeSignatureProblem } from '../../../shared/authorship/write-signature';
import { canonicalJson } from '../../../shared/canonical/canonical-json';
import { CanonicalizationError } from '../../../shared/errors';
import { evaluateWrite } from '../../../shared/guard/evaluate-write';
import { checkRejectionOutcome, openOutcome } from '../../../shared/log/outcome-statement';
import { RejectionReason } from '../../../shared/pipeline/rejection-reason';
import { ResidualRejectedDetailSchema } from '../../../shared/pipeline/residual-rejected-detail';
import { Identifier } from '../../../shared/schemas/identifier';
import { MAX_PAYLOAD_BYTES } from '../../../shared/write/json-payload';
import { requestDigest } from '../../../shared/write/request-digest';
import { type ResidualWriteRequest, ResidualWriteRequestSchema } from '../../../shared/write/write-request';
import {
  FUZZ_RUNS,
  FUZZ_TIMEOUT_MS,
  hostileNodeArb,
  type JNode,
  type Layout,
  mutate,
  mutateText,
  mutationArb,
  render,
  repeatsName,
  textMutationArb,
  toAst,
  tryParse,
  WriteDigests,
  writeRequestArb,
} from '../../helpers/fuzz-arbitraries';
import { InvariantTracker } from '../../helpers/fuzz-guarantees';
import { FACTORY_NOW_MS, validWriteRequest } from '../../helpers/guard-factories';
import { TEST_GUARD_KEY, TEST_LOG_NAME } from '../../helpers/pipeline-keys';
import { testGuardService } from '../../helpers/service-factories';

/**
 * Fuzzing the guard (docs/guarantees.md, "Fuzzing"): `GuardService.handle` on generated `residual-writes` bodies, each
 * against fresh in-memory ports, with the invariants every body must keep whatever it holds.
 */

const POLICY = { nowMs: FACTORY_NOW_MS, maxReceiptAgeSeconds: 900 };
const SENT_AT_MS = FACTORY_NOW_MS - 5;

const setup = testGuardService;

/** Every string in `value` is well-formed (so a digest over it survives UTF-8 storage). */
function allWellFormed(value: unknown): boolean {
  if (typeof value === 'string') return value.isWellFormed();
  if (value === null || typeof value !== 'object') return true;
  return Object.entries(value).every(([k, v]) => k.isWellFormed() && allWellFormed(v));
}

/** The ids a parsed body names at its top level, when they are identifiers. */
function namedIds(parsed: ReturnType<typeof tryParse>): { lineageId: string | null; residualId: string | null } {
  const json = parsed.ok ? parsed.value : null;
  const pick = (key: string) => {
    if (json === null || typeof json !== 'object' || Array.isArray(json)) return null;
    const value = (json as Record<string, unknown>)[key];
    return Object.hasOwn(json, key) && Identifier.safeParse(value).success ? (value as string) : null;
  };
  return { lineageId: pick('lineageId'), residualId: pick('residualId') };
}

/** Whether `body` is an unambiguous write request whose writer signature verifies: only its refusals are signed. */
function signatureVerified(body: string, parsed: ReturnType<typeof tryParse>): boolean {
  if (!parsed.ok || repeatsName(body) || Buffer.byteLength(body, 'utf8') > MAX_BODY_BYTES) return false;
  const request = ResidualWriteRequestSchema.safeParse(parsed.value);
  if (!request.success) return false;
  try {
    return writeSignatureProblem(request.data as ResidualWriteRequest, SENT_AT_MS) === null;
  } catch (error) {
    if (!(error instanceof CanonicalizationError)) throw error;
    return false;
  }
}

const digests = new WriteDigests();

let counter = 0;

/** The invariants every body keeps (docs/guarantees.md "Fuzzing"), one row each in the guarantees table. */
const Invariant = {
  NO_CRASH: 'never throws',
  NO_COLLISION: 'no two different requests or payloads share a digest',
  FORWARDED_ONLY_VALID: 'only a valid, safe, unambiguous request is forwarded, as sent',
  REFUSAL_RECORDED:
    'every refusal is one rejection, filed under the named lineage and announced; signed only once the writer signature verified',
} as const;
type Invariant = (typeof Invariant)[keyof typeof Invariant];
/** The invariant of an input class at a size limit. */
const AT_LIMIT = 'accepted up to the byte, refused past it';
/** A fresh tracker of the invariants (plus {@link AT_LIMIT} for the limit classes). */
const trackerOf = (atLimit = false) =>
  new InvariantTracker<Invariant | typeof AT_LIMIT>([...Object.values(Invariant), ...(atLimit ? [AT_LIMIT] : [])] as [
    Invariant,
    ...Invariant[],
  ]);
let invariants = trackerOf();
const GUARD = 'guard (GuardService.handle)';

/** Runs one body through a fresh guard and checks every invariant; returns the outcome. */
async function judge(body: string) {
  const { store, publisher, queue, service } = setup();
  const messageId = `fuzz-${++counter}`;
  // Never throws: with in-memory ports there is no infrastructure failure to throw for.
  invariants.at(Invariant.NO_CRASH);
  const outcome = await service.handle({ messageId, body, sentAtMs: SENT_AT_MS });
  const bytes = Buffer.byteLength(body, 'utf8');
  const parsed = tryParse(body);
  invariants.at(Invariant.NO_COLLISION);
  if (parsed.ok) digests.record(parsed.value, true);

  invariants.at(Invariant.FORWARDED_ONLY_VALID);
  if (outcome.kind === 'ACCEPTED') {
    // Only a valid, unambiguous write request the guard's own rules accept is forwarded, as sent.
    expect(bytes).toBeLessThanOrEqual(MAX_BODY_BYTES);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return outcome;
    expect(repeatsName(body)).toBe(false);
    expect(ResidualWriteRequestSchema.safeParse(parsed.value).success).toBe(true);
    const verdict = evaluateWrite(parsed.value, POLICY);
    expect(verdict.isSafe).toBe(true);
    expect(queue.sent).toHaveLength(1);
    expect(queue.sent[0]?.request).toEqual(parsed.value);
    expect(queue.sent[0]?.verdict).toEqual(verdict);
    expect(queue.sent[0]?.acceptedAtMs).toBe(FACTORY_NOW_MS);
    expect(outcome.verdict).toEqual(verdict);
    expect(store.rejections).toHaveLength(0);
    expect(publisher.rejected).toHaveLength(0);
    return outcome;
  }

  // A refusal: nothing forwarded, one signed rejection record, one ResidualRejected event.
  expect(queue.sent).toHaveLength(0);
  invariants.at(Invariant.REFUSAL_RECORDED);
  expect(store.rejections).toHaveLength(1);
  expect(publisher.rejected).toHaveLength(1);
  const rejection = store.rejections[0];
  if (!rejection) throw new Error('no rejection');
  expect(rejection).toMatchObject({
    stage: 'GUARD',
    reason: outcome.reason,
    messageId,
    atMs: SENT_AT_MS,
    bodyDigest: createHash('sha256').update(body, 'utf8').digest('hex'),
  });
  expect(allWellFormed(rejection)).toBe(true);
  expect(Buffer.byteLength(rejection.bodyPreview, 'utf8')).toBeLessThanOrEqual(1024);

  switch (outcome.reason) {
    case RejectionReason.PAYLOAD_TOO_LARGE:
      expect(bytes).toBeGreaterThan(MAX_BODY_BYTES);
      break;
    case RejectionReason.MALFORMED_JSON:
      expect(bytes).toBeLessThanOrEqual(MAX_BODY_BYTES);
      expect(parsed.ok).toBe(false);
      expect(rejection.issues.length).toBeGreaterThan(0);
      break;
    case RejectionReason.SCHEMA_VIOLATION: {
      expect(bytes).toBeLessThanOrEqual(MAX_BODY_BYTES);
      expect(rejection.issues.length).toBeGreaterThan(0);
      const tooDeep = rejection.issues.some((i) => /nested (deeper|too deeply)/.test(i.message));
      if (!tooDeep) {
        // Valid JSON that is ambiguous (a repeated name) or not a write request the core takes.
        expect(parsed.ok).toBe(true);
        if (parsed.ok && !repeatsName(body)) {
          let judged = true;
          try {
            evaluateWrite(parsed.value, POLICY);
          } catch {
            judged = false;
          }
          expect(judged).toBe(false);
        }
      }
      break;
    }
    case RejectionReason.STALE_STATE: {
      expect(parsed.ok).toBe(true);
      if (!parsed.ok) break;
      expect(repeatsName(body)).toBe(false);
      const verdict = evaluateWrite(parsed.value, POLICY);
      expect(verdict.isSafe).toBe(false);
      expect(rejection.verdictDigest).toBe(verdict.verdictDigest);
      expect(rejection.requestDigest).toBe(requestDigest(parsed.value as ResidualWriteRequest));
      expect(rejection.rejectedVariables.length + rejection.requestViolations.length).toBeGreaterThan(0);
      break;
    }
    case RejectionReason.WRITER_SIGNATURE_INVALID: {
      // A write request the core takes whose writer signature does not verify (docs/authorship.md).
      expect(parsed.ok).toBe(true);
      if (!parsed.ok) break;
      expect(repeatsName(body)).toBe(false);
      const request = parsed.value as ResidualWriteRequest;
      expect(() => evaluateWrite(request, POLICY)).not.toThrow();
      // Content the canonical form refuses (e.g. nested past 64) cannot carry a valid signature either.
      let problem: string | null;
      try {
        problem = writeSignatureProblem(request, SENT_AT_MS);
      } catch (error) {
        if (!(error instanceof CanonicalizationError)) throw error;
        problem = error.message;
      }
      expect(problem).not.toBeNull();
      break;
    }
    default:
      throw new Error(`the guard has no business refusing with ${outcome.reason}`);
  }

  // Filed under the lineage the body names, so the writer waiting on it finds it; a body naming
  // no valid one (or repeating the name) is filed as unparsed.
  const named = namedIds(parsed);
  const repeated = (key: string) =>
    outcome.reason === RejectionReason.SCHEMA_VIOLATION && rejection.issues.some((i) => i.path === key);
  for (const key of ['lineageId', 'residualId'] as const) {
    if (outcome.reason === RejectionReason.MALFORMED_JSON || named[key] === null) expect(rejection[key]).toBeNull();
    else if (rejection[key] === null) expect(repeated(key)).toBe(true);
    else expect(rejection[key]).toBe(named[key]);
  }
  if (rejection.lineageId !== null) {
    const listed = await store.listRejections(rejection.lineageId, { residualId: rejection.residualId ?? undefined });
    expect(listed).toContainEqual(rejection);
  }

  if (!signatureVerified(body, parsed)) {
    // Decided before the writer signature verified: recorded without a KMS signature, so a flood
    // of malformed or forged messages costs no Sign (docs/guard.md, "Refusals at the queue").
    expect(rejection.statement).toBeNull();
  } else {
    // The statement is a note signed by the guard key that names this rejection and binds its details.
    expect(typeof rejection.statement).toBe('string');
    const statement = openOutcome(rejection.statement as string, TEST_GUARD_KEY, TEST_LOG_NAME);
    checkRejectionOutcome(rejection, statement);
    expect(statement).toMatchObject({ kind: 'REJECTED', stage: 'GUARD', reason: outcome.reason, messageId });
  }

  const event = ResidualRejectedDetailSchema.parse(publisher.rejected[0]);
  expect(event).toMatchObject({
    stage: 'GUARD',
    reason: outcome.reason,
    lineageId: rejection.lineageId,
    residualId: rejection.residualId,
    messageId,
    bodyDigest: rejection.bodyDigest,
    verdictDigest: rejection.verdictDigest,
  });
  return outcome;
}

const layoutArb = fc.constantFrom<Layout>('compact', 'spaced', 'pretty');
const BASE = toAst(validWriteRequest());

/** Bodies: valid variations, tree and text mutations of valid ones, hostile JSON, not JSON. */
const rawBodyArb: fc.Arbitrary<string> = fc.oneof(
  // valid write requests (some stale, some with payload numbers RFC 8785 refuses)
  { weight: 3, arbitrary: fc.tuple(writeRequestArb(), layoutArb).map(([ast, layout]) => render(ast, layout)) },
  // a valid request mutated at random paths (wrong types, missing and unknown fields, repeated
  // and re-spelled names, hostile strings, special numbers)
  {
    weight: 6,
    arbitrary: fc
      .tuple(
        fc.oneof(fc.constant(BASE), writeRequestArb()),
        fc.array(mutationArb, { minLength: 1, maxLength: 3 }),
        layoutArb,
      )
      .map(([ast, mutations, layout]) => render(mutations.reduce<JNode>(mutate, ast), layout)),
  },
  // text-level damage to a valid body
  {
    weight: 2,
    arbitrary: fc
      .tuple(writeRequestArb(), fc.array(textMutationArb, { minLength: 1, maxLength: 2 }))
      .map(([ast, edits]) => edits.reduce(mutateText, render(ast))),
  },
  // hostile JSON of any shape, and texts that are not JSON
  { weight: 1, arbitrary: hostileNodeArb.map((n) => render(n)) },
  { weight: 1, arbitrary: fc.oneof(fc.json({ maxDepth: 3 }), fc.string({ unit: 'binary', maxLength: 40 })) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '',
      ' ',
      'null',
      '[]',
      '{}',
      '"x"',
      '0',
      '-0',
      'true',
      '\ufeff{}',
      '{"a":1,"a":1}',
      '[1,]',
    ),
  },
  // nesting around the canonical (64) and parser (512) depth limits, in the payload and at the root
  {
    weight: 1,
    arbitrary: fc.oneof(
      fc.integer({ min: 60, max: 68 }).map((d) => {
        const body = JSON.stringify(validWriteRequest({ payload: 0 }));
        return body.replace('"payload":0', `"payload":${'['.repeat(d)}${']'.repeat(d)}`);
      }),
      fc.integer({ min: 508, max: 516 }).map((d) => `${'['.repeat(d)}${']'.repeat(d)}`),
    ),
  },
);

// Lone surrogates in manifest.baselineKeyHashes values are included: refused, never thrown.
const bodyArb = rawBodyArb;

describe('guard fuzz: GuardService.handle on generated residual-writes bodies', () => {
  it(
    '1,000 bodies: never throws; refusals are signed, filed under the named lineage and announced; only valid safe writes are forwarded; no digest collides',
    async (context) => {
      const kinds = new Map<string, number>();
      await invariants.check(
        context,
        {
          target: GUARD,
          attack:
            'residual-writes bodies: valid, mutated (wrong types, missing, unknown and repeated fields; NFC/NFD, lone surrogates, __proto__, constructor; RFC 8785 special numbers), text-damaged, not JSON, nested past 64 and 512',
          reader: 'in process',
        },
        fc.asyncProperty(bodyArb, async (body) => {
          const outcome = await invariants.run(() => judge(body));
          const kind = outcome.kind === 'ACCEPTED' ? 'ACCEPTED' : outcome.reason;
          kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
        }),
        { numRuns: FUZZ_RUNS },
      );
      // The generators reach every outcome the guard has.
      for (const kind of ['ACCEPTED', 'MALFORMED_JSON', 'SCHEMA_VIOLATION', 'STALE_STATE']) {
        expect(kinds.get(kind) ?? 0).toBeGreaterThan(0);
      }
      // Enough parseable requests for the collision check to mean something (about half the runs are).
      expect(digests.requests.size).toBeGreaterThan(FUZZ_RUNS / 4);
    },
    FUZZ_TIMEOUT_MS,
  );

  /** A payload `{ "blob": s }` of exactly `bytes` canonical bytes, `s` built from `unit` (then ASCII). */
  function payloadOfBytes(bytes: number, unit: string) {
    const room = bytes - Buffer.byteLength('{"blob":""}');
    const width = Buffer.byteLength(canonicalJson(unit)) - 2;
    const units = Math.floor(room / width);
    return { blob: unit.repeat(units) + 'x'.repeat(room - units * width) };
  }

  it('payloads at and past the 256 KiB canonical limit, in 1- to 4-byte characters: accepted up to the byte, refused past it', async (context) => {
    invariants = trackerOf(true);
    await invariants.check(
      context,
      {
        target: GUARD,
        attack: `payload at and past ${MAX_PAYLOAD_BYTES} canonical bytes, in 1- to 4-byte characters`,
        reader: 'in process',
      },
      fc.asyncProperty(
        fc.integer({ min: -2, max: 2 }),
        fc.constantFrom('x', '\u00e9', '\u20ac', '\ud83d\ude00', '\u0001'),
        async (delta, unit) => {
          const payload = payloadOfBytes(MAX_PAYLOAD_BYTES + delta, unit);
          expect(Buffer.byteLength(canonicalJson(payload))).toBe(MAX_PAYLOAD_BYTES + delta);
          await invariants.run(async () => {
            const outcome = await judge(JSON.stringify(validWriteRequest({ payload })));
            invariants.at(AT_LIMIT);
            if (delta <= 0) expect(outcome.kind).toBe('ACCEPTED');
            else expect(outcome).toEqual({ kind: 'REJECTED', reason: RejectionReason.SCHEMA_VIOLATION });
          });
        },
      ),
      { numRuns: 25 },
    );
  });

  it(`bodies at and past MAX_BODY_BYTES (${MAX_BODY_BYTES} UTF-8 bytes): accepted up to the byte, then PAYLOAD_TOO_LARGE filed under the lineage`, async (context) => {
    invariants = trackerOf(true);
    await invariants.check(
      context,
      {
        target: GUARD,
        attack: `body at and past ${MAX_BODY_BYTES} UTF-8 bytes (a record must fit DynamoDB's 400 KB item), up to SQS's 1 MiB`,
        reader: 'in process',
      },
      fc.asyncProperty(
        // ±2 bytes around the limit, and SQS's own maximum (1 MiB), the largest body the queue delivers.
        fc.oneof(fc.integer({ min: -2, max: 2 }), fc.constant(1_048_576 - MAX_BODY_BYTES)),
        fc.constantFrom(' ', '\n', '\t'),
        fc.constantFrom('x', '\u20ac', '\ud83d\ude00'),
        fc.boolean(),
        async (delta, pad, unit, broken) => {
          const request = validWriteRequest({ payload: payloadOfBytes(200_000, unit) });
          const text = broken ? JSON.stringify(request).slice(0, -1) : JSON.stringify(request);
          const body = pad.repeat(MAX_BODY_BYTES + delta - Buffer.byteLength(text)) + text;
          expect(Buffer.byteLength(body)).toBe(MAX_BODY_BYTES + delta);
          await invariants.run(async () => {
            const outcome = await judge(body);
            invariants.at(AT_LIMIT);
            if (delta > 0) expect(outcome).toEqual({ kind: 'REJECTED', reason: RejectionReason.PAYLOAD_TOO_LARGE });
            else expect(outcome.kind).toBe(broken ? 'REJECTED' : 'ACCEPTED');
          });
        },
      ),
      { numRuns: 25 },
    );
  });
});
