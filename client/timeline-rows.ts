import type { ChainVerification } from '../shared/seal/chain-verification';
import { type WrittenBy, writtenByOf } from './written-by';

/** One row of a lineage timeline, read from a stored record (untrusted until verified). */
export interface TimelineRow {
  readonly seq: number | null;
  readonly generationEpoch: number | null;
  readonly authority: string | null;
  readonly sessionId: string | null;
  readonly residualId: string | null;
  readonly sealedAtMs: number | null;
  readonly supersedes: { seq: number; recordHash: string } | null;
  readonly guardVerdictDigest: string | null;
  readonly verification: string;
  /** Who wrote the record, from its signed fields: `null` unless it verified (docs/authorship.md, "Who wrote it"). */
  readonly writtenBy: WrittenBy | null;
  /** The writer key id the stored item claims, unverified: shown only as untrusted text for a record that does not verify. */
  readonly claimedWriterKeyId: string | null;
}

/** Timeline rows of raw records, with each record's verification verdict (same order). */
export function timelineRows(records: readonly unknown[], verification: ChainVerification): TimelineRow[] {
  return records.map((raw, index) => {
    const record = (raw ?? {}) as { header?: Record<string, unknown>; sealedAtMs?: unknown; writer?: unknown };
    const header = record.header ?? {};
    const num = (v: unknown) => (typeof v === 'number' ? v : null);
    const str = (v: unknown) => (typeof v === 'string' ? v : null);
    const sup = header.supersedes as { seq?: unknown; recordHash?: unknown } | null | undefined;
    return {
      seq: num(header.monotonicSequenceNumber),
      generationEpoch: num(header.generationEpoch),
      authority: str(header.authority),
      sessionId: str(header.sessionId),
      residualId: str(header.residualId),
      sealedAtMs: num(record.sealedAtMs),
      supersedes:
        sup && typeof sup.seq === 'number' && typeof sup.recordHash === 'string'
          ? { seq: sup.seq, recordHash: sup.recordHash }
          : null,
      guardVerdictDigest: str(header.verdictDigest),
      verification: verification.records[index]?.verdict ?? 'UNVERIFIED_TAMPER_RISK',
      writtenBy: writtenByOf(verification.records[index]),
      claimedWriterKeyId: str((record.writer as { keyId?: unknown } | null | undefined)?.keyId),
    };
  });
}
