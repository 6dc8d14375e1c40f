import type { ChainVerification } from './chain-verification';
import type { TrustedHead } from './trusted-head';
import { VerificationVerdict as V, type VerificationVerdict } from './verification-verdict';

/**
 * What a reader saw of a lineage's records, to check the stored head against. The stored head
 * lives in the same table as the records: it is a claim, never a checkpoint.
 */
export interface StoredRecordsSeen {
  /**
   * Highest seq among the stored records (the table's last record key read before the head, and
   * every record read after it), or `null` when there is none.
   */
  readonly lastSeq: number | null;
  /** `recordHash` of the stored record at the head's seq as read, or `null` when it is absent. */
  readonly recordHashAtHeadSeq: string | null;
}

/** A disagreement between the stored head and the records: a definite verification finding. */
export interface StoredHeadFinding {
  readonly seq: number | null;
  readonly verdict: VerificationVerdict;
  readonly reason: string;
}

/**
 * Checks the stored head item against the records (docs/sealing.md, "The stored head is a
 * claim"): the record at `head.seq` exists and has `head.recordHash`, and no record lies past
 * `head.seq`. Records without a head, or a head without its records, are inconsistent.
 *
 * - records but no head → `LINEAGE_BROKEN` (head deleted, or a first append in flight);
 * - a head whose seq is not a sequence number (a safe integer ≥ 0) → `LINEAGE_BROKEN` (malformed);
 * - the record at `head.seq` has another hash → `LINEAGE_BROKEN` (head rewritten);
 * - records past `head.seq` → `LINEAGE_BROKEN` (a rewound head, or an append between its two writes);
 * - no record at `head.seq` (records end before it) → `TRUNCATION_DETECTED`.
 *
 * A consistent lineage, or an empty one (no head, no records), gives `null`. The append puts its
 * records before it moves the head (docs/sealing.md, "The append's layout"), so the records past
 * the head, or without one, are the state of every append between its two writes: a walk tied to
 * the index reads them as sealed, awaiting integration where the index allows it
 * (`checkWalkAgainstLog`, shared/log/walk-against-log.ts); alone, this check cannot tell.
 */
export function checkStoredHead(
  head: Pick<TrustedHead, 'seq' | 'recordHash'> | null,
  seen: StoredRecordsSeen,
): StoredHeadFinding | null {
  const { lastSeq, recordHashAtHeadSeq } = seen;
  if (head === null) {
    if (lastSeq === null) return null;
    return {
      seq: lastSeq,
      verdict: V.LINEAGE_BROKEN,
      reason: `no HEAD: records are stored up to seq ${lastSeq} but the lineage has no head item (head deleted)`,
    };
  }
  if (!Number.isSafeInteger(head.seq) || head.seq < 0) {
    return {
      seq: null,
      verdict: V.LINEAGE_BROKEN,
      reason:
        'malformed HEAD: the stored head item has no sequence number (its seq is missing or not a safe integer ≥ 0)',
    };
  }
  if (recordHashAtHeadSeq !== null && recordHashAtHeadSeq !== head.recordHash) {
    return {
      seq: head.seq,
      verdict: V.LINEAGE_BROKEN,
      reason: `HEAD mismatch: the stored head's recordHash at seq ${head.seq} is not the record's (head rewritten)`,
    };
  }
  if (lastSeq !== null && lastSeq > head.seq) {
    return {
      seq: head.seq + 1,
      verdict: V.LINEAGE_BROKEN,
      reason: `records past the HEAD: the stored head claims seq ${head.seq} but records go on to seq ${lastSeq} (head rewound)`,
    };
  }
  if (recordHashAtHeadSeq === null) {
    const end = lastSeq === null ? 'no record is stored' : `the records end at seq ${lastSeq}`;
    return {
      seq: lastSeq === null ? 0 : lastSeq + 1,
      verdict: V.TRUNCATION_DETECTED,
      reason: `truncated: the stored HEAD claims seq ${head.seq} but ${end}`,
    };
  }
  return null;
}

/**
 * Folds a {@link StoredHeadFinding} into a chain verification: a definite finding of the chain
 * itself stays (it names a record); otherwise the head finding is the verdict (definite, so it
 * wins over `UNVERIFIED_TAMPER_RISK`).
 */
export function withStoredHeadFinding(
  verification: ChainVerification,
  finding: StoredHeadFinding | null,
): ChainVerification {
  if (finding === null) return verification;
  const definite = verification.verdict !== V.VERIFIED_INTACT && verification.verdict !== V.UNVERIFIED_TAMPER_RISK;
  if (definite) return verification;
  return { ...verification, verdict: finding.verdict, firstFailure: { ...finding } };
}

/**
 * {@link StoredRecordsSeen} of records read after the head (`lastStoredSeq`: the last record key
 * read before the head, or an earlier page's `lastSeq`).
 */
export function storedRecordsSeen(
  records: readonly unknown[],
  head: Pick<TrustedHead, 'seq'> | null,
  lastStoredSeq: number | null = null,
): StoredRecordsSeen {
  let lastSeq = lastStoredSeq;
  let recordHashAtHeadSeq: string | null = null;
  for (const raw of records) {
    const { seq, recordHash } = storedSeqAndHash(raw);
    if (seq === null) continue;
    lastSeq = Math.max(lastSeq ?? -1, seq);
    if (head && seq === head.seq) recordHashAtHeadSeq = recordHash;
  }
  return { lastSeq, recordHashAtHeadSeq };
}

/** Seq and record hash of a stored record as read (untrusted; `null` fields when not usable). */
export function storedSeqAndHash(raw: unknown): { seq: number | null; recordHash: string | null } {
  const record = raw as { header?: { monotonicSequenceNumber?: unknown }; recordHash?: unknown } | null;
  const seq = record?.header?.monotonicSequenceNumber;
  const recordHash = record?.recordHash;
  return {
    seq: typeof seq === 'number' && Number.isSafeInteger(seq) && seq >= 0 ? seq : null,
    recordHash: typeof recordHash === 'string' ? recordHash : null,
  };
}
