import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../../../shared/errors';
import { evaluateWrite } from '../../../../shared/guard/evaluate-write';
import { Authority } from '../../../../shared/schemas/authority';
import type { SessionVariable } from '../../../../shared/write/session-variable';
import {
  FACTORY_NOW_MS,
  freshVariable,
  GENERATION_EPOCH,
  guardPolicy,
  immutableConstant,
  PREDECESSOR_SESSION_ID,
  unverifiedInheritedVariable,
  validBoundary,
  validWriteRequest,
  verifiedInheritedVariable,
} from '../../../helpers/guard-factories';

const PREDECESSOR_EPOCH = GENERATION_EPOCH - 1;
const reasonsOf = (request: unknown) =>
  evaluateWrite(request, guardPolicy()).rejectedVariables.map(({ name, reason }) => [name, reason]);
const verifiedFrom = (sourceEpoch: number, name = 'targetResourceId'): SessionVariable => ({
  ...verifiedInheritedVariable(name, 'i-0abc123'),
  sourceEpoch,
});
/** A boundary with no predecessor: the shape of a cold start. */
const coldBoundary = () => {
  const { predecessorSessionId: _s, predecessorEpoch: _e, ...boundary } = validBoundary();
  return boundary;
};
/** The issues of the InvalidInputError that `evaluateWrite` throws for `request`. */
function issuesOf(request: unknown): { path: string; message: string }[] {
  try {
    evaluateWrite(request, guardPolicy());
  } catch (error) {
    if (error instanceof InvalidInputError) return error.issues.map(({ path, message }) => ({ path, message }));
    throw error;
  }
  throw new Error('expected InvalidInputError, got a verdict');
}

describe('stale-state guard: epochs of inherited variables (docs/guard.md E1–E3)', () => {
  it('docs/guard.md E1, E2: an inherited variable from epoch 99 in an epoch-7 write after predecessor epoch 6 is refused (reviewer case)', () => {
    const base = validWriteRequest();
    const variablesUsed = base.variablesUsed.map((v, i) => (i === 1 ? { ...v, sourceEpoch: 99 } : v));
    const verdict = evaluateWrite({ ...base, variablesUsed }, guardPolicy());
    expect(verdict.isSafe).toBe(false);
    expect(verdict.rejectedVariables).toEqual([
      {
        name: 'targetResourceId',
        reason: 'INHERITED_EPOCH_AFTER_PREDECESSOR',
        detail: expect.stringContaining(`epoch ${PREDECESSOR_EPOCH}`),
      },
      {
        name: 'targetResourceId',
        reason: 'INHERITED_EPOCH_NOT_PAST',
        detail: expect.stringContaining(`generation epoch ${GENERATION_EPOCH}`),
      },
    ]);
    expect(verdict.requestViolations).toEqual([]);
  });

  it('docs/guard.md E1: an inherited sourceEpoch equal to or after the generation epoch is INHERITED_EPOCH_NOT_PAST, verified or not', () => {
    // A cold start isolates E1 from E2 (E3 is reported too, and checked on its own below).
    for (const sourceEpoch of [GENERATION_EPOCH, GENERATION_EPOCH + 1]) {
      const request = validWriteRequest({
        boundary: coldBoundary(),
        variablesUsed: [verifiedFrom(sourceEpoch, 'a'), unverifiedInheritedVariable('b', 'v', { sourceEpoch })],
      });
      expect(reasonsOf(request)).toEqual([
        ['a', 'INHERITED_EPOCH_NOT_PAST'],
        ['a', 'INHERITED_WITHOUT_PREDECESSOR'],
        ['b', 'INHERITED_EPOCH_NOT_PAST'],
        ['b', 'INHERITED_WITHOUT_PREDECESSOR'],
        ['b', 'UNVERIFIED_INHERITED'],
      ]);
    }
  });

  it('docs/guard.md E2: an inherited sourceEpoch after the predecessor epoch is INHERITED_EPOCH_AFTER_PREDECESSOR; at or before it passes', () => {
    const boundary = validBoundary({ predecessorEpoch: 4 });
    expect(reasonsOf(validWriteRequest({ boundary, variablesUsed: [verifiedFrom(5)] }))).toEqual([
      ['targetResourceId', 'INHERITED_EPOCH_AFTER_PREDECESSOR'],
    ]);
    expect(reasonsOf(validWriteRequest({ boundary, variablesUsed: [verifiedFrom(4)] }))).toEqual([]);
    expect(reasonsOf(validWriteRequest({ boundary, variablesUsed: [verifiedFrom(0)] }))).toEqual([]);
  });

  it('docs/guard.md E3: an inherited variable in a write whose boundary names no predecessor is INHERITED_WITHOUT_PREDECESSOR', () => {
    const request = validWriteRequest({
      boundary: coldBoundary(),
      variablesUsed: [freshVariable('attemptId', 'a-1'), verifiedFrom(PREDECESSOR_EPOCH)],
    });
    const verdict = evaluateWrite(request, guardPolicy());
    expect(verdict.isSafe).toBe(false);
    expect(verdict.rejectedVariables).toEqual([
      {
        name: 'targetResourceId',
        reason: 'INHERITED_WITHOUT_PREDECESSOR',
        detail: expect.stringContaining('cold start'),
      },
    ]);
    // The same cold start without the inherited variable is safe.
    expect(
      evaluateWrite({ ...request, variablesUsed: [freshVariable('attemptId', 'a-1')] }, guardPolicy()).isSafe,
    ).toBe(true);
  });

  it('docs/guard.md M4: a boundary naming only one of predecessorSessionId and predecessorEpoch is invalid input at the missing field', () => {
    const { predecessorEpoch: _e, ...sessionOnly } = validBoundary();
    expect(issuesOf(validWriteRequest({ boundary: sessionOnly }))).toEqual([
      { path: 'boundary.predecessorEpoch', message: expect.stringContaining('predecessorEpoch') },
    ]);
    const { predecessorSessionId: _s, ...epochOnly } = validBoundary();
    expect(issuesOf(validWriteRequest({ boundary: epochOnly }))).toEqual([
      { path: 'boundary.predecessorSessionId', message: expect.stringContaining('predecessorSessionId') },
    ]);
    // The fencing check cannot be switched off by dropping the epoch: an epoch-0 write that names
    // a predecessor but hides its epoch never gets a verdict.
    const zombie = validWriteRequest({
      generationEpoch: 0,
      variablesUsed: [],
      boundary: { ...sessionOnly, predecessorSessionId: PREDECESSOR_SESSION_ID },
    });
    expect(() => evaluateWrite(zombie, guardPolicy())).toThrow(InvalidInputError);
  });

  it('docs/guard.md V6: HISTORICAL_ATTRIBUTION is exempt from re-verification but not from inherited epoch sanity (E1-E3)', () => {
    const historical = (variablesUsed: SessionVariable[], boundary = validBoundary()) =>
      validWriteRequest({ authority: Authority.HISTORICAL_ATTRIBUTION, variablesUsed, boundary });
    // Documenting the predecessor's state: unverified values from its epoch or before pass.
    expect(reasonsOf(historical([unverifiedInheritedVariable('resourceId', 'i-old')]))).toEqual([]);
    // A value the predecessor cannot have held is not the predecessor's state.
    expect(reasonsOf(historical([unverifiedInheritedVariable('resourceId', 'i-old', { sourceEpoch: 99 })]))).toEqual([
      ['resourceId', 'INHERITED_EPOCH_AFTER_PREDECESSOR'],
      ['resourceId', 'INHERITED_EPOCH_NOT_PAST'],
    ]);
    // With no predecessor there is no predecessor state to document.
    expect(reasonsOf(historical([unverifiedInheritedVariable('resourceId', 'i-old')], coldBoundary()))).toEqual([
      ['resourceId', 'INHERITED_WITHOUT_PREDECESSOR'],
    ]);
  });

  it('docs/guard.md "Epochs of inherited variables": a declared IMMUTABLE_CONSTANT is not inherited context; its sourceEpoch is not checked, cold start included', () => {
    const constants = [immutableConstant('apiSchemaVersion', '2024-01-01', { sourceEpoch: 99 })];
    const declaredImmutableConstants = ['apiSchemaVersion'];
    for (const boundary of [validBoundary(), coldBoundary()]) {
      const request = validWriteRequest({ boundary, variablesUsed: constants, declaredImmutableConstants });
      expect(evaluateWrite(request, guardPolicy())).toMatchObject({ isSafe: true, rejectedVariables: [] });
    }
  });

  it('docs/guard.md "verdictDigest": the verdict digest binds the epoch reasons and still reads no clock', () => {
    const request = validWriteRequest({ variablesUsed: [verifiedFrom(99)] });
    const first = evaluateWrite(request, guardPolicy());
    const later = evaluateWrite(request, guardPolicy({ nowMs: FACTORY_NOW_MS + 1_000 }));
    expect(later.verdictDigest).toBe(first.verdictDigest);
    const valid = evaluateWrite(validWriteRequest({ variablesUsed: [verifiedFrom(PREDECESSOR_EPOCH)] }), guardPolicy());
    const afterPredecessorOnly = evaluateWrite(
      validWriteRequest({ boundary: validBoundary({ predecessorEpoch: 4 }), variablesUsed: [verifiedFrom(5)] }),
      guardPolicy(),
    );
    expect(new Set([first, valid, afterPredecessorOnly].map((v) => v.verdictDigest)).size).toBe(3);
  });
});
