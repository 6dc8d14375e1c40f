import { z } from 'zod';
import type { HexDigest } from '../canonical/digest';
import { hashCanonical } from '../canonical/hash-canonical';
import { FORMAT_VERSION, HashDomain } from '../canonical/hash-domain';
import type { Authority } from '../schemas/authority';
import { HexDigest as HexDigestSchema } from '../schemas/hex-digest';
import { RequestViolationSchema, sortViolations } from './request-violation';
import { RejectedVariableSchema, sortRejections } from './variable-rejection';

/**
 * Schema of a {@link WriteVerdict}. Refuses a verdict whose `isSafe` contradicts its lists,
 * so a forged "safe" verdict with rejections cannot pass {@link WriteVerdictSchema}.
 */
export const WriteVerdictSchema = z
  .strictObject({
    isSafe: z.boolean(),
    rejectedVariables: z.array(RejectedVariableSchema),
    requestViolations: z.array(RequestViolationSchema),
    verdictDigest: HexDigestSchema,
  })
  .refine((v) => v.isSafe === (v.rejectedVariables.length === 0 && v.requestViolations.length === 0), {
    message: 'isSafe must be true exactly when there are no rejected variables and no request violations',
    path: ['isSafe'],
  });

/**
 * The stale-state guard's decision on one write (docs/guard.md, "Rules" and "Reasons").
 *
 * `{ isSafe; rejectedVariables: { name; reason; detail }[]; requestViolations: { field; reason; detail }[]; verdictDigest }`
 * Both lists are sorted by (name or field, then reason), UTF-16 code unit order.
 */
export type WriteVerdict = z.infer<typeof WriteVerdictSchema>;

/** What {@link verdictDigestOf} hashes besides the verdict's own lists. */
export interface VerdictSubject {
  readonly residualId: string;
  readonly lineageId: string;
  readonly sessionId: string;
  readonly generationEpoch: number;
  readonly authority: Authority;
}

/**
 * The verdict digest: binds the decision to the write it judged, with no clock inside, so the
 * same request and outcome give the same digest in every run and every language
 * (docs/guard.md, "verdictDigest").
 *
 * `SHA-256( "reseal/v1/verdict-digest" || 0x00 || JCS(preimage) )` where `preimage` is
 * `{ formatVersion: 1, residualId, lineageId, sessionId, generationEpoch, authority, isSafe,
 *    rejectedVariables: [{ name, reason }] sorted, requestViolations: [{ field, reason }] sorted }`.
 * Details are human text and are not hashed. Byte layout: docs/guard.md. Inputs are trusted
 * (already parsed by `evaluateWrite`).
 *
 * @throws {CanonicalizationError} only for strings RFC 8785 cannot carry (never for parsed input)
 */
export function verdictDigestOf(
  subject: VerdictSubject,
  rejectedVariables: readonly { name: string; reason: string }[],
  requestViolations: readonly { field: string; reason: string }[],
): HexDigest {
  const preimage = {
    formatVersion: FORMAT_VERSION,
    residualId: subject.residualId,
    lineageId: subject.lineageId,
    sessionId: subject.sessionId,
    generationEpoch: subject.generationEpoch,
    authority: subject.authority,
    isSafe: rejectedVariables.length === 0 && requestViolations.length === 0,
    rejectedVariables: sortRejections(rejectedVariables).map(({ name, reason }) => ({ name, reason })),
    requestViolations: sortViolations(requestViolations).map(({ field, reason }) => ({ field, reason })),
  };
  return hashCanonical(HashDomain.VERDICT, preimage);
}
