import { z } from 'zod';
import { isoTime } from '../../shared/iso-time';
import { NonNegativeInt } from '../../shared/schemas/non-negative-int';
import { VerificationVerdict } from '../../shared/seal/verification-verdict';
import type { TimelineRow } from '../timeline-rows';
import { HeadOutput } from './head-output';
import { WrittenByOutput, writtenByOutput } from './written-by-output';

/**
 * One record of a lineage's timeline, as `reseal inspect --json` and `reseal_inspect` answer it (read from the table; `verification` says whether to believe
 * it). A record that does not verify keeps only its place (`seq`, `generationEpoch` when they are
 * sequence numbers) and its verdict here (`writtenBy` `null`); its text is in `untrusted.records`.
 */
export const TimelineRecordOutput = z.object({
  seq: NonNegativeInt.nullable(),
  generationEpoch: NonNegativeInt.nullable(),
  authority: z.string().nullable(),
  sessionId: z.string().nullable(),
  residualId: z.string().nullable(),
  sealedAt: z.string().nullable(),
  supersedes: HeadOutput.nullable(),
  /** The digest of the guard verdict the record was admitted under, lowercase hex; `null` unless it verifies. */
  guardVerdictDigest: z.string().nullable(),
  verification: z.string(),
  /** Who wrote it, from its signed fields; `null` unless it verifies. */
  writtenBy: WrittenByOutput.nullable(),
});
/** Type of {@link TimelineRecordOutput}. */
export type TimelineRecordOutput = z.infer<typeof TimelineRecordOutput>;

/** A sequence number or epoch as the timeline shows it: a non-negative safe integer, else `null`. */
const place = (n: number | null) => (n !== null && Number.isSafeInteger(n) && n >= 0 ? n : null);

/**
 * A timeline row as answered (docs/cli.md, "Untrusted data"): a record that verifies as it is; one
 * that does not keeps only its place and verdict, its text going to `untrusted.records`
 * (`untrustedRecordOutput`).
 */
export function timelineRecordOutput(r: TimelineRow): TimelineRecordOutput {
  if (r.verification !== VerificationVerdict.VERIFIED_INTACT) {
    return {
      seq: place(r.seq),
      generationEpoch: place(r.generationEpoch),
      authority: null,
      sessionId: null,
      residualId: null,
      sealedAt: null,
      supersedes: null,
      guardVerdictDigest: null,
      verification: r.verification,
      writtenBy: null,
    };
  }
  return {
    seq: r.seq,
    generationEpoch: r.generationEpoch,
    authority: r.authority,
    sessionId: r.sessionId,
    residualId: r.residualId,
    sealedAt: r.sealedAtMs === null ? null : isoTime(r.sealedAtMs),
    supersedes: r.supersedes,
    guardVerdictDigest: r.guardVerdictDigest,
    verification: r.verification,
    writtenBy: writtenByOutput(r.writtenBy),
  };
}
