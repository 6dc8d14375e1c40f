import { describe, expect, it } from 'vitest';
import { evaluateWrite } from '../../../../shared/guard/evaluate-write';
import {
  ACTIVE_SESSION_ID,
  FACTORY_NOW_MS,
  freshVariable,
  GENERATION_EPOCH,
  guardPolicy,
  PREDECESSOR_SESSION_ID,
  validBoundary,
  validWriteRequest,
} from '../../../helpers/guard-factories';

const violationsOf = (request: unknown, policy = guardPolicy()) =>
  evaluateWrite(request, policy).requestViolations.map(({ field, reason }) => [field, reason]);

describe('stale-state guard: request-level checks (docs/guard.md Q1–Q4)', () => {
  it('docs/guard.md Q1: a write attributed to the predecessor session is SESSION_MISMATCH', () => {
    const request = validWriteRequest({ sessionId: PREDECESSOR_SESSION_ID });
    const verdict = evaluateWrite(request, guardPolicy());
    expect(verdict.isSafe).toBe(false);
    expect(verdict.requestViolations).toEqual([
      { field: 'sessionId', reason: 'SESSION_MISMATCH', detail: expect.stringContaining(ACTIVE_SESSION_ID) },
    ]);
  });

  it('guard hardening (fencing token): an epoch equal to the predecessor epoch is EPOCH_COLLAPSE', () => {
    const request = validWriteRequest({ boundary: validBoundary({ predecessorEpoch: GENERATION_EPOCH }) });
    expect(violationsOf(request)).toEqual([['generationEpoch', 'EPOCH_COLLAPSE']]);
  });

  it('guard hardening (fencing token): an epoch older than the predecessor epoch is EPOCH_COLLAPSE', () => {
    const request = validWriteRequest({
      generationEpoch: 3,
      variablesUsed: [freshVariable('a', 'b', { sourceEpoch: 3 })],
    });
    expect(violationsOf(request)).toEqual([['generationEpoch', 'EPOCH_COLLAPSE']]);
  });

  it('docs/guard.md Q3: without a predecessor epoch (cold start) any generation epoch is accepted', () => {
    const { predecessorEpoch: _none, predecessorSessionId: _nobody, ...boundary } = validBoundary();
    const request = validWriteRequest({
      boundary,
      generationEpoch: 0,
      variablesUsed: [freshVariable('a', 'b', { sourceEpoch: 0 })],
    });
    expect(evaluateWrite(request, guardPolicy()).isSafe).toBe(true);
  });

  it('docs/guard.md Q2: a boundary naming the active session as its own predecessor is SESSION_COLLAPSE', () => {
    const request = validWriteRequest({ boundary: validBoundary({ predecessorSessionId: ACTIVE_SESSION_ID }) });
    expect(violationsOf(request)).toEqual([['boundary.predecessorSessionId', 'SESSION_COLLAPSE']]);
  });

  it('docs/guard.md Q4: a boundary later than now plus the clock skew is BOUNDARY_FROM_FUTURE', () => {
    const request = validWriteRequest({
      variablesUsed: [],
      boundary: validBoundary({ boundaryAtMs: FACTORY_NOW_MS + 5_001 }),
    });
    expect(violationsOf(request)).toEqual([['boundary.boundaryAtMs', 'BOUNDARY_FROM_FUTURE']]);
    const withinSkew = validWriteRequest({
      variablesUsed: [],
      boundary: validBoundary({ boundaryAtMs: FACTORY_NOW_MS + 5_000 }),
    });
    expect(violationsOf(withinSkew)).toEqual([]);
  });

  it('several request violations are all reported, sorted by field', () => {
    const request = validWriteRequest({
      sessionId: 'session-zombie',
      variablesUsed: [],
      boundary: validBoundary({ predecessorEpoch: 99, predecessorSessionId: ACTIVE_SESSION_ID }),
    });
    expect(violationsOf(request)).toEqual([
      ['boundary.predecessorSessionId', 'SESSION_COLLAPSE'],
      ['generationEpoch', 'EPOCH_COLLAPSE'],
      ['sessionId', 'SESSION_MISMATCH'],
    ]);
  });
});
