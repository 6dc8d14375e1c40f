import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../../../shared/errors';
import { evaluateWrite } from '../../../../shared/guard/evaluate-write';
import { MAX_PAYLOAD_BYTES } from '../../../../shared/write/json-payload';
import {
  MAX_DECLARED_CONSTANTS,
  MAX_VARIABLES,
  ResidualWriteRequestSchema,
} from '../../../../shared/write/write-request';
import {
  freshVariable,
  guardPolicy,
  validReceipt,
  validWriteRequest,
  verifiedInheritedVariable,
} from '../../../helpers/guard-factories';

/** The issues of the InvalidInputError that `evaluateWrite(request, policy)` throws. */
function issuesOf(request: unknown, policy: unknown = guardPolicy()): { path: string; message: string }[] {
  try {
    evaluateWrite(request, policy as never);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidInputError);
    return [...(error as InvalidInputError).issues];
  }
  throw new Error('expected InvalidInputError, got a verdict');
}
/** Distinct paths of the issues (one field may fail more than one check). */
const pathsOf = (request: unknown, policy?: unknown) => [...new Set(issuesOf(request, policy).map((i) => i.path))];

/**
 * A request whose payload cannot be canonicalized, so it cannot be signed: it carries the writer block
 * of a valid request, and the schema must refuse it before any signature is checked.
 */
const unsignable = (overrides: Parameters<typeof validWriteRequest>[0]) =>
  validWriteRequest({ ...overrides, writer: validWriteRequest().writer });

describe('stale-state guard: malformed input throws InvalidInputError naming the field, never a verdict', () => {
  it('refuses input that is not a request object', () => {
    for (const input of [null, undefined, 'request', 42, [], [validWriteRequest()]]) {
      expect(() => evaluateWrite(input, guardPolicy())).toThrow(InvalidInputError);
    }
  });

  it('refuses unknown fields at every level (strict objects), naming the field', () => {
    const request = validWriteRequest();
    const top = issuesOf({ ...request, isSafe: true });
    expect(top).toEqual([{ path: '', message: expect.stringContaining('"isSafe"') }]);
    expect(issuesOf({ ...request, boundary: { ...request.boundary, trusted: true } })[0]?.path).toBe('boundary');
    const variable = { ...verifiedInheritedVariable('v', 'x'), verifiedBy: 'me' };
    expect(pathsOf({ ...request, variablesUsed: [variable] })).toEqual(['variablesUsed.0']);
    const receipt = { ...validReceipt('x'), signature: 'abc' };
    const withReceipt = { ...verifiedInheritedVariable('v', 'x'), receipt };
    expect(pathsOf({ ...request, variablesUsed: [withReceipt] })).toEqual(['variablesUsed.0.receipt']);
    expect(pathsOf({ ...request, supersedes: { seq: 1, recordHash: 'a'.repeat(64), why: 'x' } })).toEqual([
      'supersedes',
    ]);
    expect(pathsOf({ ...request, manifest: { ...request.manifest, extra: 1 } })).toEqual(['manifest']);
  });

  it('names each malformed field: format version, ids, epoch, authority, freshness, digests, times', () => {
    const request = validWriteRequest();
    expect(pathsOf({ ...request, formatVersion: 2 })).toEqual(['formatVersion']);
    expect(pathsOf({ ...request, residualId: '' })).toEqual(['residualId']);
    expect(pathsOf({ ...request, lineageId: 'has space' })).toEqual(['lineageId']);
    expect(pathsOf({ ...request, generationEpoch: -1 })).toEqual(['generationEpoch']);
    expect(pathsOf({ ...request, generationEpoch: 1.5 })).toEqual(['generationEpoch']);
    expect(pathsOf({ ...request, generationEpoch: 2 ** 53 })).toEqual(['generationEpoch']);
    expect(pathsOf({ ...request, authority: 'ROOT' })).toEqual(['authority']);
    const bad = { ...freshVariable('a', 'b'), freshness: 'STALE' };
    expect(pathsOf({ ...request, variablesUsed: [bad] })).toEqual(['variablesUsed.0.freshness']);
    const badDigest = verifiedInheritedVariable('a', 'b', { observedValueDigest: 'A'.repeat(64) });
    expect(pathsOf({ ...request, variablesUsed: [badDigest] })).toEqual([
      'variablesUsed.0.receipt.observedValueDigest',
    ]);
    const badTime = verifiedInheritedVariable('a', 'b', { probedAtMs: -5 });
    expect(pathsOf({ ...request, variablesUsed: [badTime] })).toEqual(['variablesUsed.0.receipt.probedAtMs']);
    const noProbe = { ...verifiedInheritedVariable('a', 'b'), receipt: { ...validReceipt('b'), probe: undefined } };
    expect(pathsOf({ ...request, variablesUsed: [noProbe] })).toEqual(['variablesUsed.0.receipt.probe']);
    expect(pathsOf({ ...request, boundary: { ...request.boundary, boundaryAtMs: '2027' } })).toEqual([
      'boundary.boundaryAtMs',
    ]);
    expect(pathsOf({ ...request, supersedes: { seq: -1, recordHash: 'zz' } })).toEqual([
      'supersedes.seq',
      'supersedes.recordHash',
    ]);
  });

  it('refuses duplicate variable names in one request, exact or in another Unicode normal form', () => {
    const exact = validWriteRequest({ variablesUsed: [freshVariable('a', '1'), freshVariable('a', '2')] });
    expect(issuesOf(exact)).toEqual([{ path: 'variablesUsed.1.name', message: expect.stringContaining('duplicate') }]);
    const nfc = validWriteRequest({
      variablesUsed: [freshVariable('caf\u00e9', '1'), freshVariable('cafe\u0301', '2')],
    });
    expect(issuesOf(nfc)).toEqual([{ path: 'variablesUsed.1.name', message: expect.stringContaining('normal form') }]);
    const declared = validWriteRequest({ declaredImmutableConstants: ['apiSchemaVersion', 'apiSchemaVersion'] });
    expect(pathsOf(declared)).toEqual(['declaredImmutableConstants.1']);
  });

  it('bounds sizes: at most 256 variables and declared names, names of 256 units, values of 16 KiB UTF-8', () => {
    const many = Array.from({ length: MAX_VARIABLES + 1 }, (_, i) => freshVariable(`v${i}`, 'x'));
    expect(pathsOf(validWriteRequest({ variablesUsed: many }))).toEqual(['variablesUsed']);
    expect(
      evaluateWrite(validWriteRequest({ variablesUsed: many.slice(0, MAX_VARIABLES) }), guardPolicy()).isSafe,
    ).toBe(true);
    const declared = Array.from({ length: MAX_DECLARED_CONSTANTS + 1 }, (_, i) => `c${i}`);
    expect(pathsOf(validWriteRequest({ declaredImmutableConstants: declared }))).toEqual([
      'declaredImmutableConstants',
    ]);
    const longName = validWriteRequest({ variablesUsed: [freshVariable('n'.repeat(257), 'x')] });
    expect(pathsOf(longName)).toEqual(['variablesUsed.0.name']);
    const okName = validWriteRequest({ variablesUsed: [freshVariable('n'.repeat(256), 'x')] });
    expect(evaluateWrite(okName, guardPolicy()).isSafe).toBe(true);
    // 5462 × '€' is 16,386 UTF-8 bytes but only 5462 UTF-16 units: the byte bound is what counts.
    const wide = validWriteRequest({ variablesUsed: [freshVariable('v', '\u20ac'.repeat(5462))] });
    expect(issuesOf(wide)).toEqual([
      { path: 'variablesUsed.0.value', message: expect.stringContaining('UTF-8 bytes') },
    ]);
    const full = validWriteRequest({ variablesUsed: [freshVariable('v', 'x'.repeat(16_384))] });
    expect(evaluateWrite(full, guardPolicy()).isSafe).toBe(true);
    const tooLong = validWriteRequest({ variablesUsed: [freshVariable('v', 'x'.repeat(16_385))] });
    expect(pathsOf(tooLong)).toEqual(['variablesUsed.0.value']);
  });

  it(`bounds the payload to ${MAX_PAYLOAD_BYTES} canonical bytes`, () => {
    const fits = { blob: 'x'.repeat(MAX_PAYLOAD_BYTES - 11) }; // {"blob":"…"} adds 11 bytes
    expect(evaluateWrite(validWriteRequest({ payload: fits }), guardPolicy()).isSafe).toBe(true);
    const big = { blob: 'x'.repeat(MAX_PAYLOAD_BYTES - 10) };
    expect(issuesOf(validWriteRequest({ payload: big }))).toEqual([
      { path: 'payload', message: expect.stringContaining(`limit is ${MAX_PAYLOAD_BYTES}`) },
    ]);
  });

  it('accepts any JSON payload, null included, and refuses a missing one', () => {
    for (const payload of [null, 0, 'text', [1, 'a'], { nested: { deep: [true] } }]) {
      expect(evaluateWrite(validWriteRequest({ payload }), guardPolicy()).isSafe).toBe(true);
    }
    const { payload: _none, ...request } = validWriteRequest();
    expect(issuesOf(request)).toEqual([{ path: 'payload', message: expect.stringContaining('required') }]);
  });

  it('refuses payload values RFC 8785 cannot carry exactly, naming their path', () => {
    expect(pathsOf(unsignable({ payload: { a: [1, Number.NaN] } }))).toEqual(['payload.a.1']);
    expect(pathsOf(unsignable({ payload: { big: 2 ** 60 } }))).toEqual(['payload.big']);
    expect(pathsOf(unsignable({ payload: { 'a/b': { '~': undefined as never } } }))).toEqual(['payload.a/b.~']);
  });

  it('validates the policy too: nowMs, maxReceiptAgeSeconds and maxClockSkewSeconds, strictly', () => {
    const request = validWriteRequest();
    const policyError = (policy: unknown) => {
      try {
        evaluateWrite(request, policy as never);
      } catch (error) {
        return error as InvalidInputError;
      }
      return undefined;
    };
    expect(policyError({ maxReceiptAgeSeconds: 60 })?.message).toMatch(/^invalid guard policy at nowMs/);
    expect(pathsOf(request, { nowMs: -1, maxReceiptAgeSeconds: 60 })).toEqual(['nowMs']);
    expect(pathsOf(request, { nowMs: 1, maxReceiptAgeSeconds: 0 })).toEqual(['maxReceiptAgeSeconds']);
    expect(pathsOf(request, { nowMs: 1, maxReceiptAgeSeconds: 1.5 })).toEqual(['maxReceiptAgeSeconds']);
    expect(pathsOf(request, { nowMs: 1, maxReceiptAgeSeconds: Number.POSITIVE_INFINITY })).toEqual([
      'maxReceiptAgeSeconds',
    ]);
    expect(pathsOf(request, { ...guardPolicy(), maxClockSkewSeconds: -1 })).toEqual(['maxClockSkewSeconds']);
    expect(pathsOf(request, { ...guardPolicy(), maxClockSkewSeconds: 301 })).toEqual(['maxClockSkewSeconds']);
    expect(pathsOf(request, { ...guardPolicy(), maxReceiptAgeMs: 5 })).toEqual(['']);
    expect(() => evaluateWrite(request, null as never)).toThrow(/invalid guard policy/);
  });

  it('the exported schema is the contract: a factory request parses and round-trips through JSON', () => {
    const request = validWriteRequest();
    expect(ResidualWriteRequestSchema.parse(JSON.parse(JSON.stringify(request)))).toEqual(request);
  });
});

describe('stale-state guard: hostile strings (policy documented in docs/guard.md)', () => {
  it('refuses a lone UTF-16 surrogate in a variable name, value, receipt probe or declared name', () => {
    const request = validWriteRequest();
    expect(pathsOf({ ...request, variablesUsed: [freshVariable('a\uD800', 'x')] })).toEqual(['variablesUsed.0.name']);
    expect(pathsOf({ ...request, variablesUsed: [freshVariable('a', 'x\uDC00')] })).toEqual(['variablesUsed.0.value']);
    const probe = verifiedInheritedVariable('a', 'x', { probe: '\uD83D' });
    expect(pathsOf({ ...request, variablesUsed: [probe] })).toEqual(['variablesUsed.0.receipt.probe']);
    expect(pathsOf({ ...request, declaredImmutableConstants: ['\uDFFF'] })).toEqual(['declaredImmutableConstants.0']);
  });

  it('refuses a lone surrogate in a payload string or key, naming its path', () => {
    expect(pathsOf(unsignable({ payload: { note: 'a\uD800b' } }))).toEqual(['payload.note']);
    expect(pathsOf(unsignable({ payload: { 'k\uDC00': 1 } }))).toEqual(['payload.k\uDC00']);
  });

  it('refuses control characters in variable and declared names, but keeps them in values and payload', () => {
    for (const name of ['a\u0000', 'line\nbreak', 'tab\t', 'del\u007f', '\u001b[31mred']) {
      expect(pathsOf(validWriteRequest({ variablesUsed: [freshVariable(name, 'x')] }))).toEqual([
        'variablesUsed.0.name',
      ]);
      expect(pathsOf(validWriteRequest({ declaredImmutableConstants: [name] }))).toEqual([
        'declaredImmutableConstants.0',
      ]);
    }
    const multiLine = validWriteRequest({
      variablesUsed: [freshVariable('pem', '-----BEGIN-----\n\u0000\t\r\n-----END-----')],
      payload: { log: 'line 1\nline 2\u0007' },
    });
    expect(evaluateWrite(multiLine, guardPolicy()).isSafe).toBe(true);
  });

  it('refuses a "__proto__" key anywhere in the payload (it does not survive a JSON/DynamoDB round trip)', () => {
    const top = JSON.parse('{"__proto__": {"admin": true}}');
    expect(issuesOf(validWriteRequest({ payload: top }))).toEqual([
      { path: 'payload.__proto__', message: expect.stringContaining('reserved') },
    ]);
    const deep = JSON.parse('{"a": [{"b": 1}, {"__proto__": null}]}');
    expect(pathsOf(validWriteRequest({ payload: deep }))).toEqual(['payload.a.1.__proto__']);
    expect(evaluateWrite(validWriteRequest({ payload: { proto: '__proto__' } }), guardPolicy()).isSafe).toBe(true);
  });

  it('accepts "__proto__" as a variable name (a list element, never an object key) and reports it like any name', () => {
    const request = validWriteRequest({
      variablesUsed: [{ ...freshVariable('__proto__', 'x'), freshness: 'UNVERIFIED_INHERITED', sourceEpoch: 0 }],
    });
    const verdict = evaluateWrite(request, guardPolicy());
    expect(verdict.rejectedVariables.map((r) => [r.name, r.reason])).toEqual([['__proto__', 'UNVERIFIED_INHERITED']]);
    expect(Object.getPrototypeOf(verdict.rejectedVariables[0])).toBe(Object.prototype);
  });

  it('compares names exactly: names differing only by case, spacing or normal form are different variables', () => {
    const request = validWriteRequest({
      variablesUsed: [freshVariable('Token', '1'), freshVariable('token', '2'), freshVariable('token ', '3')],
    });
    expect(evaluateWrite(request, guardPolicy()).isSafe).toBe(true);
  });
});
