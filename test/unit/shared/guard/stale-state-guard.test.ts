import { describe, expect, it } from 'vitest';
import { InvalidInputError, StaleWriteError } from '../../../../shared/errors';
import { assertWriteSafe } from '../../../../shared/guard/assert-write-safe';
import { evaluateWrite } from '../../../../shared/guard/evaluate-write';
import { Authority } from '../../../../shared/schemas/authority';
import {
  FACTORY_NOW_MS,
  freshVariable,
  GENERATION_EPOCH,
  guardPolicy,
  immutableConstant,
  unverifiedInheritedVariable,
  validBoundary,
  validReceipt,
  validWriteRequest,
  verifiedInheritedVariable,
} from '../../../helpers/guard-factories';

const reasonsOf = (request: unknown, policy = guardPolicy()) =>
  evaluateWrite(request, policy).rejectedVariables.map(({ name, reason }) => [name, reason]);
const violationsOf = (request: unknown, policy = guardPolicy()) =>
  evaluateWrite(request, policy).requestViolations.map(({ field, reason }) => [field, reason]);
const withVariables = (...variablesUsed: ReturnType<typeof freshVariable>[]) => validWriteRequest({ variablesUsed });

describe('stale-state guard: docs/guard.md "Rules"', () => {
  it('the factory request is safe (fresh, re-verified and declared-constant variables together)', () => {
    const verdict = evaluateWrite(validWriteRequest(), guardPolicy());
    expect(verdict).toMatchObject({ isSafe: true, rejectedVariables: [], requestViolations: [] });
    expect(verdict.verdictDigest).toMatch(/^[0-9a-f]{64}$/);
  });

  it('docs/guard.md V1: a FRESH_GENERATED variable from the write epoch is written', () => {
    expect(evaluateWrite(withVariables(freshVariable('attemptId', 'a-1')), guardPolicy()).isSafe).toBe(true);
  });

  it('docs/guard.md V1: a FRESH_GENERATED variable from another epoch is EPOCH_COLLAPSE', () => {
    const older = freshVariable('sessionUuid', 'uuid-old', { sourceEpoch: GENERATION_EPOCH - 1 });
    const newer = freshVariable('writeTimestamp', '2027', { sourceEpoch: GENERATION_EPOCH + 1 });
    const verdict = evaluateWrite(withVariables(older, newer), guardPolicy());
    expect(verdict.isSafe).toBe(false);
    expect(verdict.rejectedVariables.map((r) => [r.name, r.reason])).toEqual([
      ['sessionUuid', 'EPOCH_COLLAPSE'],
      ['writeTimestamp', 'EPOCH_COLLAPSE'],
    ]);
    expect(verdict.rejectedVariables[0]?.detail).toContain(`epoch ${GENERATION_EPOCH - 1}`);
  });

  it('docs/guard.md V2–V3: a VERIFIED_INHERITED variable with a valid receipt proceeds', () => {
    expect(reasonsOf(withVariables(verifiedInheritedVariable('targetResourceId', 'i-1')))).toEqual([]);
  });

  it('docs/guard.md V2–V3: a VERIFIED_INHERITED variable without a receipt is MISSING_RECEIPT', () => {
    const { receipt: _dropped, ...bare } = verifiedInheritedVariable('bearerToken', 'tok');
    expect(reasonsOf(withVariables(bare))).toEqual([['bearerToken', 'MISSING_RECEIPT']]);
  });

  it('docs/guard.md V4: an UNVERIFIED_INHERITED variable rejects the write', () => {
    const verdict = evaluateWrite(
      withVariables(freshVariable('ok', 'v'), unverifiedInheritedVariable('targetResourceId', 'i-gone')),
      guardPolicy(),
    );
    expect(verdict.isSafe).toBe(false);
    expect(verdict.rejectedVariables).toEqual([
      { name: 'targetResourceId', reason: 'UNVERIFIED_INHERITED', detail: expect.stringContaining('re-probe') },
    ]);
  });

  it('docs/guard.md V4: UNVERIFIED_INHERITED is rejected even when a valid receipt is attached', () => {
    const variable = unverifiedInheritedVariable('x', 'v', { receipt: validReceipt('v') });
    expect(reasonsOf(withVariables(variable))).toEqual([['x', 'UNVERIFIED_INHERITED']]);
  });

  it('docs/guard.md V5: a declared IMMUTABLE_CONSTANT passes without a receipt', () => {
    const request = validWriteRequest({
      variablesUsed: [immutableConstant('schemaVersion', 'v3')],
      declaredImmutableConstants: ['schemaVersion'],
    });
    expect(evaluateWrite(request, guardPolicy()).isSafe).toBe(true);
  });

  it('docs/guard.md V5: an IMMUTABLE_CONSTANT the request does not declare is UNDECLARED_IMMUTABLE_CONSTANT', () => {
    const request = validWriteRequest({
      variablesUsed: [immutableConstant('schemaVersion', 'v3'), immutableConstant('caf\u00e9', 'x')],
      declaredImmutableConstants: ['other', 'cafe\u0301'], // NFD spelling does not declare the NFC name
    });
    expect(reasonsOf(request)).toEqual([
      ['caf\u00e9', 'UNDECLARED_IMMUTABLE_CONSTANT'],
      ['schemaVersion', 'UNDECLARED_IMMUTABLE_CONSTANT'],
    ]);
  });

  it('docs/guard.md V6: a HISTORICAL_ATTRIBUTION write may carry inherited variables unverified', () => {
    const variablesUsed = [
      unverifiedInheritedVariable('predecessorResourceId', 'i-old'),
      (({ receipt: _none, ...inherited }) => inherited)(verifiedInheritedVariable('token', 't')),
      immutableConstant('undeclared', 'x'),
      freshVariable('stamp', 's', { sourceEpoch: 0 }),
    ];
    const historical = validWriteRequest({ authority: Authority.HISTORICAL_ATTRIBUTION, variablesUsed });
    expect(evaluateWrite(historical, guardPolicy())).toMatchObject({ isSafe: true, rejectedVariables: [] });
    expect(evaluateWrite({ ...historical, authority: Authority.OPERATIONAL }, guardPolicy()).isSafe).toBe(false);
    expect(evaluateWrite({ ...historical, authority: Authority.INFORMATIONAL_ONLY }, guardPolicy()).isSafe).toBe(false);
  });

  it('docs/guard.md V6: a HISTORICAL_ATTRIBUTION verdict records its lack of operational authority in the digest', () => {
    const request = validWriteRequest();
    const operational = evaluateWrite(request, guardPolicy());
    const historical = evaluateWrite({ ...request, authority: Authority.HISTORICAL_ATTRIBUTION }, guardPolicy());
    expect(historical.isSafe).toBe(true);
    expect(historical.verdictDigest).not.toBe(operational.verdictDigest);
  });

  it('docs/guard.md V6: HISTORICAL_ATTRIBUTION is still subject to request-level checks', () => {
    const request = validWriteRequest({
      authority: Authority.HISTORICAL_ATTRIBUTION,
      generationEpoch: GENERATION_EPOCH - 1,
    });
    expect(violationsOf(request)).toEqual([['generationEpoch', 'EPOCH_COLLAPSE']]);
  });
});

describe('stale-state guard: docs/guard.md M1–M4', () => {
  it('docs/guard.md M1: a write without a generation epoch marker is refused as invalid input', () => {
    const { generationEpoch: _missing, ...request } = validWriteRequest();
    expect(() => evaluateWrite(request, guardPolicy())).toThrow(InvalidInputError);
    expect(() => evaluateWrite({ ...request, generationEpoch: '' }, guardPolicy())).toThrow(/generationEpoch/);
  });

  it('docs/guard.md "Reasons": every stale variable is listed and the write is unsafe exactly when one is', () => {
    const request = withVariables(
      unverifiedInheritedVariable('b', '1'),
      freshVariable('fresh', '2'),
      unverifiedInheritedVariable('a', '3'),
    );
    const verdict = evaluateWrite(request, guardPolicy());
    expect(verdict.isSafe).toBe(false);
    expect(verdict.rejectedVariables.map((r) => r.name)).toEqual(['a', 'b']);
  });

  it('docs/guard.md "verdictDigest": the verdict digest does not depend on the order of variables or on the clock', () => {
    const vars = [unverifiedInheritedVariable('b', '1'), unverifiedInheritedVariable('a', '3')];
    const first = evaluateWrite(withVariables(...vars), guardPolicy());
    const second = evaluateWrite(withVariables(...vars.toReversed()), guardPolicy({ nowMs: FACTORY_NOW_MS + 1000 }));
    expect(second.verdictDigest).toBe(first.verdictDigest);
  });

  it('docs/guard.md "verdictDigest": the verdict digest binds the residual, lineage, session, epoch and outcome', () => {
    const base = validWriteRequest({ boundary: validBoundary({ predecessorEpoch: 0 }) });
    const digest = (r: unknown) => evaluateWrite(r, guardPolicy()).verdictDigest;
    const variants = [
      base,
      { ...base, residualId: 'residual-0002' },
      { ...base, lineageId: 'lineage-other' },
      { ...base, generationEpoch: GENERATION_EPOCH + 1 },
      { ...base, authority: Authority.INFORMATIONAL_ONLY },
      { ...base, variablesUsed: [unverifiedInheritedVariable('x', 'y')] },
      { ...base, sessionId: 'session-z' },
    ];
    expect(new Set(variants.map(digest)).size).toBe(variants.length);
  });

  it('docs/guard.md M3: a safe verdict passes', () => {
    expect(() => assertWriteSafe(evaluateWrite(validWriteRequest(), guardPolicy()))).not.toThrow();
  });

  it('docs/guard.md M3: an unsafe verdict throws StaleWriteError naming the rejected variables', () => {
    const request = validWriteRequest({
      sessionId: 'session-z',
      variablesUsed: [unverifiedInheritedVariable('zeta', '1'), unverifiedInheritedVariable('alpha', '2')],
    });
    const verdict = evaluateWrite(request, guardPolicy());
    let caught: unknown;
    try {
      assertWriteSafe(verdict);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(StaleWriteError);
    const error = caught as StaleWriteError;
    expect(error.name).toBe('StaleWriteError');
    expect(error.rejectedVariables).toEqual(['alpha', 'zeta']);
    expect(error.violatedFields).toEqual(['sessionId']);
    expect(error.verdictDigest).toBe(verdict.verdictDigest);
    expect(error.message).toContain('["alpha","zeta"]');
  });

  it('docs/guard.md M3: an unsafe verdict with only request violations still throws', () => {
    const verdict = evaluateWrite(validWriteRequest({ sessionId: 'session-z' }), guardPolicy());
    expect(() => assertWriteSafe(verdict)).toThrow(/request fields \["sessionId"\]/);
  });

  it('docs/guard.md M3: a forged verdict claiming safety despite rejections is refused', () => {
    const verdict = evaluateWrite(withVariables(unverifiedInheritedVariable('x', 'y')), guardPolicy());
    expect(() => assertWriteSafe({ ...verdict, isSafe: true })).toThrow(InvalidInputError);
    expect(() => assertWriteSafe({ isSafe: true })).toThrow(InvalidInputError);
  });
});
