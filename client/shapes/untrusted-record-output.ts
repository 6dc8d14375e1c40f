import { z } from 'zod';
import { escapedStrings } from '../../shared/schemas/escaped-text';
import type { TimelineRow } from '../timeline-rows';

/**
 * A stored record that does not verify, as the table holds it: the text fields its timeline row
 * leaves `null`. Every string is escaped (`escapedText`, shared/schemas/escaped-text.ts).
 */
export const UntrustedRecordOutput = z.object({
  seq: z.number().nullable(),
  verification: z.string(),
  generationEpoch: z.number().nullable(),
  authority: z.string().nullable(),
  sessionId: z.string().nullable(),
  residualId: z.string().nullable(),
  sealedAtMs: z.number().nullable(),
  supersedes: z.object({ seq: z.number(), recordHash: z.string() }).nullable(),
  guardVerdictDigest: z.string().nullable(),
  /** The writer key id the stored item claims (unverified). */
  claimedWriterKeyId: z.string().nullable(),
});
/** Type of {@link UntrustedRecordOutput}. */
export type UntrustedRecordOutput = z.infer<typeof UntrustedRecordOutput>;

/** A record that does not verify (a timeline row), as stored, every string escaped. */
export const untrustedRecordOutput = (r: TimelineRow): UntrustedRecordOutput =>
  escapedStrings({
    seq: r.seq,
    verification: r.verification,
    generationEpoch: r.generationEpoch,
    authority: r.authority,
    sessionId: r.sessionId,
    residualId: r.residualId,
    sealedAtMs: r.sealedAtMs,
    supersedes: r.supersedes,
    guardVerdictDigest: r.guardVerdictDigest,
    claimedWriterKeyId: r.claimedWriterKeyId,
  }) as UntrustedRecordOutput;
