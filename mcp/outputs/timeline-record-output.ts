import { z } from 'zod';
import { HeadOutput } from '../../client/shapes/head-output';
import { WrittenByOutput } from '../../client/shapes/written-by-shape';
import { NonNegativeInt } from '../../shared/schemas/primitives';

/**
 * One record of a lineage's timeline (read from the table; `verification` says whether to believe
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
  verification: z.string(),
  /** Who wrote it, from its signed fields; `null` unless it verifies. */
  writtenBy: WrittenByOutput.nullable(),
});
