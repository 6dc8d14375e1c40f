import { z } from 'zod';
import { isoTime } from '../../shared/iso-time';
import type { RejectionRecord } from '../../shared/ports/lineage-store';

/**
 * A stored guard or sealer rejection as `reseal inspect --lineage --json` lists it (docs/cli.md,
 * `reseal inspect`), camelCase, the raw body preview left out: under `rejections` when the deciding
 * function's signed statement checks (`signatureVerified: true`, `unreadable: null`), else under
 * `untrusted.rejections` with every string escaped.
 */
export const ListedRejectionOutput = z.object({
  stage: z.string(),
  reason: z.string(),
  lineageId: z.string().nullable(),
  residualId: z.string().nullable(),
  messageId: z.string(),
  verdictDigest: z.string().nullable(),
  bodyDigest: z.string(),
  issues: z.array(z.object({ path: z.string(), message: z.string() })),
  rejectedVariables: z.array(z.object({ name: z.string(), reason: z.string(), detail: z.string() })),
  requestViolations: z.array(z.object({ field: z.string(), reason: z.string(), detail: z.string() })),
  /** When it was rejected, ISO 8601 UTC (`(invalid time <ms>)` for a time no `Date` holds). */
  rejectedAt: z.string(),
  /** Whether the deciding function's signed statement checks on the item read whole. */
  signatureVerified: z.boolean(),
  /** The fields of the stored item that could not be read, or `null`. */
  unreadable: z.string().nullable(),
});
/** Type of {@link ListedRejectionOutput}. */
export type ListedRejectionOutput = z.infer<typeof ListedRejectionOutput>;

/** A {@link RejectionRecord} as listed, with whether its signature checked (the caller escapes an untrusted one). */
export function listedRejectionOutput(
  r: RejectionRecord & { readonly unreadable?: string },
  signatureVerified: boolean,
): ListedRejectionOutput {
  return {
    stage: r.stage,
    reason: r.reason,
    lineageId: r.lineageId,
    residualId: r.residualId,
    messageId: r.messageId,
    verdictDigest: r.verdictDigest,
    bodyDigest: r.bodyDigest,
    issues: r.issues.map((i) => ({ path: i.path, message: i.message })),
    rejectedVariables: r.rejectedVariables.map((v) => ({ name: v.name, reason: v.reason, detail: v.detail })),
    requestViolations: r.requestViolations.map((v) => ({ field: v.field, reason: v.reason, detail: v.detail })),
    rejectedAt: isoTime(r.atMs),
    signatureVerified,
    unreadable: r.unreadable ?? null,
  };
}
