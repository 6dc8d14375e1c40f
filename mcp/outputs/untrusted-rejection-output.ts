import { z } from 'zod';

/** A stored rejection whose signed statement does not check (or that cannot be read whole), as the table holds it, escaped. */
export const UntrustedRejectionOutput = z.object({
  stage: z.string(),
  reason: z.string(),
  lineageId: z.string().nullable(),
  residualId: z.string().nullable(),
  messageId: z.string(),
  atMs: z.number(),
  rejectedVariables: z.array(z.object({ name: z.string(), reason: z.string(), detail: z.string() })),
  requestViolations: z.array(z.object({ field: z.string(), reason: z.string(), detail: z.string() })),
  issues: z.array(z.object({ path: z.string(), message: z.string() })),
  /** The fields of the stored item that could not be read (then read as empty), or `null`. */
  unreadable: z.string().nullable(),
});
/** Type of {@link UntrustedRejectionOutput}. */
export type UntrustedRejectionOutput = z.infer<typeof UntrustedRejectionOutput>;
