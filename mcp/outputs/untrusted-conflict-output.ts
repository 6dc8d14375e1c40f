import { z } from 'zod';

/** A stored conflict whose signed statement does not check (or that cannot be read whole), as the table holds it, escaped. */
export const UntrustedConflictOutput = z.object({
  reason: z.string(),
  detail: z.string(),
  residualId: z.string(),
  atMs: z.number(),
  unreadable: z.string().nullable(),
});
/** Type of {@link UntrustedConflictOutput}. */
export type UntrustedConflictOutput = z.infer<typeof UntrustedConflictOutput>;
