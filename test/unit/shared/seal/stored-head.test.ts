import { describe, expect, it } from 'vitest';
import type { ChainVerification } from '../../../../shared/seal/chain-verification';
import { checkStoredHead, storedRecordsSeen, withStoredHeadFinding } from '../../../../shared/seal/stored-head';

const A = 'a'.repeat(64);
const B = 'b'.repeat(64);
const head = (seq: number, recordHash = A) => ({ seq, recordHash });
const record = (seq: number, recordHash = A) => ({ header: { monotonicSequenceNumber: seq }, recordHash });

describe('checkStoredHead: the stored head is a claim checked against the records', () => {
  it('consistent lineage or empty lineage → no finding', () => {
    expect(checkStoredHead(head(3), { lastSeq: 3, recordHashAtHeadSeq: A })).toBeNull();
    expect(checkStoredHead(null, { lastSeq: null, recordHashAtHeadSeq: null })).toBeNull();
  });

  it.each([
    ['records without a head', null, { lastSeq: 2, recordHashAtHeadSeq: null }, 'LINEAGE_BROKEN', 2],
    ['records past the head', head(1), { lastSeq: 3, recordHashAtHeadSeq: A }, 'LINEAGE_BROKEN', 2],
    ['head past the records', head(3), { lastSeq: 2, recordHashAtHeadSeq: null }, 'TRUNCATION_DETECTED', 3],
    ['head without records', head(3), { lastSeq: null, recordHashAtHeadSeq: null }, 'TRUNCATION_DETECTED', 0],
    ['head hash not the record', head(3), { lastSeq: 3, recordHashAtHeadSeq: B }, 'LINEAGE_BROKEN', 3],
  ] as const)('%s → %s', (_name, stored, seen, verdict, seq) => {
    const finding = checkStoredHead(stored, seen);
    expect(finding).toMatchObject({ verdict, seq });
    expect(finding?.reason).toMatch(/HEAD|head/);
  });

  it('storedRecordsSeen takes the highest seq (records and the last key read before the head) and the hash at the head seq', () => {
    expect(storedRecordsSeen([record(0), record(1, B), 'garbage'], head(1))).toEqual({
      lastSeq: 1,
      recordHashAtHeadSeq: B,
    });
    expect(storedRecordsSeen([record(0)], head(1), 4)).toEqual({ lastSeq: 4, recordHashAtHeadSeq: null });
  });

  it('a definite chain finding stays; otherwise the head finding becomes the verdict', () => {
    const base: ChainVerification = {
      verdict: 'VERIFIED_INTACT',
      records: [],
      firstFailure: null,
      head: null,
      linkedThrough: null,
    };
    const finding = { seq: 2, verdict: 'LINEAGE_BROKEN' as const, reason: 'records past the HEAD' };
    expect(withStoredHeadFinding(base, null)).toBe(base);
    expect(withStoredHeadFinding(base, finding)).toMatchObject({ verdict: 'LINEAGE_BROKEN', firstFailure: finding });
    const unverified = { ...base, verdict: 'UNVERIFIED_TAMPER_RISK' as const };
    expect(withStoredHeadFinding(unverified, finding).verdict).toBe('LINEAGE_BROKEN');
    const broken = {
      ...base,
      verdict: 'HASH_MISMATCH' as const,
      firstFailure: { seq: 0, verdict: 'HASH_MISMATCH' as const, reason: 'x' },
    };
    expect(withStoredHeadFinding(broken, finding)).toBe(broken);
  });
});
