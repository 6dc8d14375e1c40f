import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../../../shared/errors';
import { evaluateWrite } from '../../../../shared/guard/evaluate-write';
import { Authority } from '../../../../shared/schemas/authority';
import { type SessionVariable, VariableFreshness } from '../../../../shared/write/session-variable';
import type { ResidualWriteRequest } from '../../../../shared/write/write-request';
import {
  BOUNDARY_AGE_MS,
  FACTORY_NOW_MS,
  freshVariable,
  guardPolicy,
  immutableConstant,
  unverifiedInheritedVariable,
  validBoundary,
  validWriteRequest,
  verifiedInheritedVariable,
} from '../../../helpers/guard-factories';

// biome-ignore lint/suspicious/noControlCharactersInRegex: names must not hold control characters
const CONTROL = /[\u0000-\u001f\u007f]/;
const nameArb = fc
  .string({ unit: 'grapheme', minLength: 1, maxLength: 24 })
  .filter((s) => s.isWellFormed() && !CONTROL.test(s) && s.length <= 256);
const valueArb = fc.string({ unit: 'grapheme', maxLength: 64 }).filter((s) => s.isWellFormed());
const epochArb = fc.integer({ min: 0, max: 1_000_000 });
const idArb = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._:@/+=-]{0,30}$/);

/** JSON that RFC 8785 carries exactly: safe integers, finite doubles, no "__proto__" key. */
const payloadArb = fc.letrec<{ json: unknown }>((tie) => ({
  json: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }),
    fc.double({ noNaN: true, noDefaultInfinity: true }).filter((d) => !Number.isInteger(d) || Number.isSafeInteger(d)),
    valueArb,
    fc.array(tie('json'), { maxLength: 4 }),
    fc.dictionary(
      valueArb.filter((k) => k !== '__proto__'),
      tie('json'),
      { maxKeys: 4 },
    ),
  ),
})).json;

type Kind = 'fresh' | 'verified' | 'constant';
/**
 * A request whose variables are all fresh, validly re-verified or declared constants. Re-verified
 * variables appear only when the boundary names a predecessor (a cold start has no inherited
 * context), with a source epoch at most the predecessor's; in a cold start they become fresh.
 */
const safeRequestArb = fc
  .record({
    names: fc.uniqueArray(nameArb, { maxLength: 12, selector: (n) => n.normalize('NFC') }),
    kinds: fc.array(fc.constantFrom<Kind>('fresh', 'verified', 'constant'), { minLength: 12, maxLength: 12 }),
    values: fc.array(valueArb, { minLength: 12, maxLength: 12 }),
    receiptAgeMs: fc.array(fc.integer({ min: 0, max: BOUNDARY_AGE_MS - 1 }), { minLength: 12, maxLength: 12 }),
    epochsBack: fc.array(fc.nat({ max: 1_000_000 }), { minLength: 12, maxLength: 12 }),
    generationEpoch: epochArb,
    hasPredecessor: fc.boolean(),
    sessionId: idArb,
    residualId: idArb,
    lineageId: idArb,
    authority: fc.constantFrom(...Object.values(Authority)),
    payload: payloadArb,
  })
  .map((r): ResidualWriteRequest => {
    const options = { sessionId: r.sessionId };
    const boundary = validBoundary({}, options);
    const cold = !r.hasPredecessor || r.generationEpoch === 0 || r.sessionId === boundary.predecessorSessionId;
    if (cold) {
      delete boundary.predecessorSessionId;
      delete boundary.predecessorEpoch;
    } else {
      boundary.predecessorEpoch = r.generationEpoch - 1;
    }
    const variablesUsed = r.names.map((name, i): SessionVariable => {
      const value = r.values[i] ?? '';
      switch (cold && r.kinds[i] === 'verified' ? 'fresh' : r.kinds[i]) {
        case 'verified':
          return {
            ...verifiedInheritedVariable(
              name,
              value,
              { probedAtMs: FACTORY_NOW_MS - (r.receiptAgeMs[i] ?? 0) },
              options,
            ),
            sourceEpoch: Math.max(0, r.generationEpoch - 1 - (r.epochsBack[i] ?? 0)),
          };
        case 'constant':
          return immutableConstant(name, value);
        default:
          return freshVariable(name, value, { sourceEpoch: r.generationEpoch });
      }
    });
    return validWriteRequest(
      {
        residualId: r.residualId,
        lineageId: r.lineageId,
        generationEpoch: r.generationEpoch,
        authority: r.authority,
        payload: r.payload as ResidualWriteRequest['payload'],
        variablesUsed,
        boundary,
        declaredImmutableConstants: variablesUsed
          .filter((v) => v.freshness === 'IMMUTABLE_CONSTANT')
          .map((v) => v.name),
      },
      options,
    );
  });

/** Rebuilds every object of `value` with its keys in a seed-dependent order. */
function permuteKeys(value: unknown, seed: number): unknown {
  if (Array.isArray(value)) return value.map((item, i) => permuteKeys(item, seed + i));
  if (value === null || typeof value !== 'object') return value;
  const keys = Object.keys(value);
  let state = seed >>> 0;
  for (let i = keys.length - 1; i > 0; i--) {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    const j = state % (i + 1);
    [keys[i], keys[j]] = [keys[j] as string, keys[i] as string];
  }
  const out: Record<string, unknown> = {};
  for (const key of keys) out[key] = permuteKeys((value as Record<string, unknown>)[key], seed + key.length);
  return out;
}

describe('stale-state guard: properties (docs/guard.md "Rules", fast-check)', () => {
  it('docs/guard.md V1–V3, V5: any request whose variables are all fresh, re-verified or declared constants is safe', () => {
    fc.assert(
      fc.property(safeRequestArb, (request) => {
        const verdict = evaluateWrite(request, guardPolicy());
        expect(verdict).toMatchObject({ isSafe: true, rejectedVariables: [], requestViolations: [] });
      }),
    );
  });

  it('docs/guard.md V4: adding one UNVERIFIED_INHERITED variable makes any non-historical request unsafe, naming exactly it', () => {
    fc.assert(
      fc.property(safeRequestArb, nameArb, valueArb, fc.nat(), (request, name, value, at) => {
        fc.pre(!request.variablesUsed.some((v) => v.name.normalize('NFC') === name.normalize('NFC')));
        const sourceEpoch = request.boundary.predecessorEpoch;
        fc.pre(sourceEpoch !== undefined);
        const variablesUsed = [...request.variablesUsed];
        variablesUsed.splice(
          at % (variablesUsed.length + 1),
          0,
          unverifiedInheritedVariable(name, value, { sourceEpoch }),
        );
        const authority =
          request.authority === Authority.HISTORICAL_ATTRIBUTION ? Authority.OPERATIONAL : request.authority;
        const verdict = evaluateWrite({ ...request, authority, variablesUsed }, guardPolicy());
        expect(verdict.isSafe).toBe(false);
        expect(verdict.rejectedVariables.map((r) => [r.name, r.reason])).toEqual([[name, 'UNVERIFIED_INHERITED']]);
        expect(verdict.requestViolations).toEqual([]);
      }),
    );
  });

  it('docs/guard.md V6: the same addition leaves a HISTORICAL_ATTRIBUTION request safe', () => {
    fc.assert(
      fc.property(safeRequestArb, nameArb, (request, name) => {
        fc.pre(!request.variablesUsed.some((v) => v.name.normalize('NFC') === name.normalize('NFC')));
        const sourceEpoch = request.boundary.predecessorEpoch;
        fc.pre(sourceEpoch !== undefined);
        const variablesUsed = [...request.variablesUsed, unverifiedInheritedVariable(name, 'v', { sourceEpoch })];
        const historical = { ...request, authority: Authority.HISTORICAL_ATTRIBUTION, variablesUsed };
        expect(evaluateWrite(historical, guardPolicy()).isSafe).toBe(true);
      }),
    );
  });

  it('docs/guard.md E1–E3: an inherited variable passes the epoch rules exactly when a predecessor is named and sourceEpoch <= predecessorEpoch < generationEpoch, for every authority', () => {
    const freshnessArb = fc.constantFrom(VariableFreshness.VERIFIED_INHERITED, VariableFreshness.UNVERIFIED_INHERITED);
    fc.assert(
      fc.property(
        safeRequestArb,
        nameArb,
        epochArb,
        fc.integer({ min: -2, max: 2 }),
        freshnessArb,
        (request, name, anyEpoch, offset, freshness) => {
          fc.pre(!request.variablesUsed.some((v) => v.name.normalize('NFC') === name.normalize('NFC')));
          // Half the time an arbitrary epoch, half the time one next to the bounds.
          const near = (request.boundary.predecessorEpoch ?? request.generationEpoch) + offset;
          const sourceEpoch = anyEpoch % 2 === 0 ? anyEpoch : Math.max(0, near);
          const added = {
            ...verifiedInheritedVariable(name, 'v', {}, { sessionId: request.sessionId }),
            sourceEpoch,
            freshness,
          };
          const verdict = evaluateWrite(
            { ...request, variablesUsed: [...request.variablesUsed, added] },
            guardPolicy(),
          );
          const { predecessorEpoch } = request.boundary;
          const expected = [
            ...(predecessorEpoch !== undefined && sourceEpoch > predecessorEpoch
              ? ['INHERITED_EPOCH_AFTER_PREDECESSOR']
              : []),
            ...(sourceEpoch >= request.generationEpoch ? ['INHERITED_EPOCH_NOT_PAST'] : []),
            ...(predecessorEpoch === undefined ? ['INHERITED_WITHOUT_PREDECESSOR'] : []),
            ...(freshness === VariableFreshness.UNVERIFIED_INHERITED &&
            request.authority !== Authority.HISTORICAL_ATTRIBUTION
              ? ['UNVERIFIED_INHERITED']
              : []),
          ];
          expect(verdict.rejectedVariables.map((r) => r.name)).toEqual(expected.map(() => name));
          expect(verdict.rejectedVariables.map((r) => r.reason)).toEqual(expected);
          expect(verdict.requestViolations).toEqual([]);
        },
      ),
    );
  });

  it('docs/guard.md "verdictDigest": verdictDigest is independent of object key order and variable order', () => {
    const mixedArb = fc.tuple(safeRequestArb, fc.array(nameArb, { maxLength: 3 }), fc.integer(), fc.boolean());
    fc.assert(
      fc.property(mixedArb, ([request, staleNames, seed, reverse]) => {
        const taken = new Set(request.variablesUsed.map((v) => v.name.normalize('NFC')));
        const stale = [
          ...new Set(staleNames.filter((n) => !taken.has(n.normalize('NFC'))).map((n) => n.normalize('NFC'))),
        ];
        const withStale = {
          ...request,
          variablesUsed: [...request.variablesUsed, ...stale.map((n) => unverifiedInheritedVariable(n, 'x'))],
        };
        const reordered = permuteKeys(withStale, seed) as ResidualWriteRequest;
        if (reverse) reordered.variablesUsed.reverse();
        const a = evaluateWrite(withStale, guardPolicy());
        const b = evaluateWrite(reordered, guardPolicy());
        expect(b.verdictDigest).toBe(a.verdictDigest);
        expect(b).toEqual(a);
      }),
    );
  });

  it('malformed input never yields a verdict: any mutation either still parses or throws InvalidInputError', () => {
    const base = validWriteRequest() as unknown as Record<string, unknown>;
    const keys = Object.keys(base);
    fc.assert(
      fc.property(
        fc.constantFrom(...keys),
        fc.option(fc.jsonValue({ maxDepth: 2 }), { nil: undefined }),
        (key, replacement) => {
          const mutated = { ...base, [key]: replacement };
          try {
            const verdict = evaluateWrite(mutated, guardPolicy());
            expect(typeof verdict.isSafe).toBe('boolean');
          } catch (error) {
            expect(error).toBeInstanceOf(InvalidInputError);
          }
        },
      ),
    );
    fc.assert(
      fc.property(fc.anything(), (input) => {
        expect(() => evaluateWrite(input, guardPolicy())).toThrow(InvalidInputError);
      }),
    );
  });
});
