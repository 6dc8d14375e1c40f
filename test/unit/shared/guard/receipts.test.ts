import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { evaluateWrite } from '../../../../shared/guard/evaluate-write';
import { valueDigest } from '../../../../shared/write/value-digest';
import {
  BOUNDARY_AGE_MS,
  FACTORY_NOW_MS,
  guardPolicy,
  PREDECESSOR_SESSION_ID,
  validWriteRequest,
  verifiedInheritedVariable,
} from '../../../helpers/guard-factories';

const BOUNDARY_AT_MS = FACTORY_NOW_MS - BOUNDARY_AGE_MS;

/** Reasons the guard gives for one re-verified variable `v` whose receipt has `receipt` overrides. */
function receiptReasons(
  receipt: Parameters<typeof verifiedInheritedVariable>[2],
  policy = guardPolicy(),
  value = 'i-0abc123',
): string[] {
  const request = validWriteRequest({ variablesUsed: [verifiedInheritedVariable('v', value, receipt)] });
  return evaluateWrite(request, policy).rejectedVariables.map((r) => r.reason);
}

describe('valueDigest (docs/guard.md "valueDigest")', () => {
  it('is SHA-256("reseal/v1/value" || 0x00 || JCS({"v":1,"value":value})), recomputed independently', () => {
    for (const value of ['i-0abc123', '', 'caf\u00e9 \u{1F600} "quoted"\n']) {
      const jcs = `{"v":1,"value":${JSON.stringify(value)}}`;
      const expected = createHash('sha256')
        .update(Buffer.concat([Buffer.from('reseal/v1/value', 'ascii'), Buffer.from([0]), Buffer.from(jcs, 'utf8')]))
        .digest('hex');
      expect(valueDigest(value)).toBe(expected);
    }
  });

  it('distinguishes values that differ only in Unicode normal form or trailing space', () => {
    expect(valueDigest('caf\u00e9')).not.toBe(valueDigest('cafe\u0301'));
    expect(valueDigest('x')).not.toBe(valueDigest('x '));
  });
});

describe('stale-state guard: receipt validity (docs/guard.md R1–R6; docs/guard.md V2–V3', () => {
  it('guard hardening: a valid receipt (named probe, matching digest, active session, in window) passes', () => {
    expect(receiptReasons({})).toEqual([]);
  });

  it('guard hardening: a receipt must name its probe (blank probe is RECEIPT_PROBE_UNNAMED)', () => {
    expect(receiptReasons({ probe: '' })).toEqual(['RECEIPT_PROBE_UNNAMED']);
    expect(receiptReasons({ probe: ' \t\n ' })).toEqual(['RECEIPT_PROBE_UNNAMED']);
  });

  it('guard hardening: the observed value digest must equal the variable value digest (RECEIPT_VALUE_MISMATCH)', () => {
    expect(receiptReasons({ observedValueDigest: valueDigest('i-destroyed') })).toEqual(['RECEIPT_VALUE_MISMATCH']);
    expect(receiptReasons({ observedValueDigest: '0'.repeat(64) })).toEqual(['RECEIPT_VALUE_MISMATCH']);
  });

  it('guard hardening: the receipt must come from the active session (RECEIPT_WRONG_SESSION)', () => {
    expect(receiptReasons({ sessionId: PREDECESSOR_SESSION_ID })).toEqual(['RECEIPT_WRONG_SESSION']);
  });

  it('guard hardening: the probe must run strictly after the session boundary (RECEIPT_BEFORE_BOUNDARY)', () => {
    expect(receiptReasons({ probedAtMs: BOUNDARY_AT_MS })).toEqual(['RECEIPT_BEFORE_BOUNDARY']);
    expect(receiptReasons({ probedAtMs: BOUNDARY_AT_MS - 1 })).toEqual(['RECEIPT_BEFORE_BOUNDARY']);
    expect(receiptReasons({ probedAtMs: BOUNDARY_AT_MS + 1 })).toEqual([]);
  });

  it('guard hardening: a receipt from the future beyond the clock skew is RECEIPT_FROM_FUTURE', () => {
    expect(receiptReasons({ probedAtMs: FACTORY_NOW_MS + 5_000 })).toEqual([]); // default skew 5 s
    expect(receiptReasons({ probedAtMs: FACTORY_NOW_MS + 5_001 })).toEqual(['RECEIPT_FROM_FUTURE']);
    expect(receiptReasons({ probedAtMs: FACTORY_NOW_MS + 1 }, guardPolicy({ maxClockSkewSeconds: 0 }))).toEqual([
      'RECEIPT_FROM_FUTURE',
    ]);
  });

  it('guard hardening: a receipt older than maxReceiptAgeSeconds is RECEIPT_EXPIRED', () => {
    const policy = guardPolicy({ maxReceiptAgeSeconds: 60 });
    expect(receiptReasons({ probedAtMs: FACTORY_NOW_MS - 60_000 }, policy)).toEqual([]);
    expect(receiptReasons({ probedAtMs: FACTORY_NOW_MS - 60_001 }, policy)).toEqual(['RECEIPT_EXPIRED']);
  });

  it('guard hardening: every failed check of one receipt is reported, sorted by reason', () => {
    const receipt = {
      probe: '',
      observedValueDigest: 'f'.repeat(64),
      sessionId: PREDECESSOR_SESSION_ID,
      probedAtMs: BOUNDARY_AT_MS - 3_600_000,
    };
    expect(receiptReasons(receipt)).toEqual([
      'RECEIPT_BEFORE_BOUNDARY',
      'RECEIPT_EXPIRED',
      'RECEIPT_PROBE_UNNAMED',
      'RECEIPT_VALUE_MISMATCH',
      'RECEIPT_WRONG_SESSION',
    ]);
  });

  it('guard hardening: receipt details explain the failure without echoing the secret value', () => {
    const secret = 'Bearer eyJhbGciOi-secret';
    const request = validWriteRequest({
      variablesUsed: [
        verifiedInheritedVariable('bearerToken', secret, { observedValueDigest: valueDigest('other'), probe: '' }),
      ],
    });
    const verdict = evaluateWrite(request, guardPolicy());
    expect(verdict.rejectedVariables.length).toBe(2);
    for (const r of verdict.rejectedVariables) {
      expect(r.detail.length).toBeGreaterThan(10);
      expect(r.detail).not.toContain(secret);
    }
  });

  it('a receipt on a variable that is not VERIFIED_INHERITED is carried but not evaluated', () => {
    const request = validWriteRequest({
      variablesUsed: [
        {
          name: 'attemptId',
          value: 'a',
          freshness: 'FRESH_GENERATED',
          sourceEpoch: 7,
          receipt: { probe: '', observedValueDigest: '0'.repeat(64), sessionId: 'x', probedAtMs: 0 },
        },
      ],
    });
    expect(evaluateWrite(request, guardPolicy()).isSafe).toBe(true);
  });
});
