import { z } from 'zod';
import { AdmissionKind } from '../../shared/authorship/admission';
import { isoTime } from '../../shared/iso-time';
import { HexDigest } from '../../shared/schemas/hex-digest';
import type { WrittenBy } from '../written-by';

/**
 * Who wrote a verified record (`WrittenBy`, client/written-by.ts; docs/mcp.md, "Who wrote it"):
 * `SIGNED` with the writer key, when it signed (`signedAt`, ISO 8601 UTC), the SQS sender id, the
 * policy in force after the record, how that policy's keys admitted it and whether the lineage id
 * names that policy; or `UNATTRIBUTED` (a format-1 record). `null` where the record does not
 * verify: what it claims is only in `untrusted`.
 */
export const WrittenByOutput = z.discriminatedUnion('status', [
  z.object({
    status: z.literal('SIGNED'),
    keyId: z.string(),
    /** Base64 of the raw 32-byte Ed25519 public key. */
    publicKey: z.string(),
    signedAt: z.string(),
    senderId: z.string().nullable(),
    policyDigest: HexDigest,
    admittedAs: z.enum(AdmissionKind).nullable(),
    keyRole: z.enum(['writer', 'recovery']).nullable(),
    lineageIdCertifiesPolicy: z.boolean(),
    admissionCheckedBy: z.enum(['walk', 'record']),
  }),
  z.object({ status: z.literal('UNATTRIBUTED') }),
]);
/** Type of {@link WrittenByOutput}. */
export type WrittenByOutput = z.infer<typeof WrittenByOutput>;

/** A {@link WrittenBy} as the shapes and tools carry it (`signedAt` as ISO 8601 UTC), `null` as `null`. */
export function writtenByOutput(writtenBy: WrittenBy): WrittenByOutput;
export function writtenByOutput(writtenBy: WrittenBy | null): WrittenByOutput | null;
export function writtenByOutput(writtenBy: WrittenBy | null): WrittenByOutput | null {
  if (writtenBy === null || writtenBy.status === 'UNATTRIBUTED') return writtenBy && { status: writtenBy.status };
  const { signedAtMs, ...rest } = writtenBy;
  return { ...rest, signedAt: isoTime(signedAtMs) };
}
