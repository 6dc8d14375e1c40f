import { z } from 'zod';
import { HexDigest } from '../schemas/hex-digest';
import { NonNegativeInt } from '../schemas/non-negative-int';
import { AdmissionKind } from './admission';
import { LINEAGE_ID_SUFFIX_HEX } from './lineage-policy';
import { WriterKeyIdSchema, WriterPublicKeySchema } from './writer-block';

/**
 * Who wrote a format-2 record, as a verifier read it from the record's signed fields
 * (docs/authorship.md, "Who wrote it"):
 * - `keyId`, `publicKey` (base64 Ed25519), `signedAtMs`, `senderId`: the writer block the
 *   header binds by `writerDigest`;
 * - `policyDigest`: the lineage write policy in force after the record (the header's);
 * - `admittedAs`: how the policy in force before it admitted the key (`INCEPTION`, `WRITE`,
 *   `ROTATION`: a writer key; `RECOVERY`: a recovery key), or `null` when the verifier could not
 *   tell (a suffix walk before its first policy);
 * - `lineageIdCertifiesPolicy`: whether the lineage id ends in `policyDigest` (its first 32 hex
 *   characters): true under the inception policy, false once a rotation or recovery replaced it.
 *
 * `{ formatVersion: 1 }` is a verified legacy record, "unattributed".
 */
export const RecordAttributionSchema = z.discriminatedUnion('formatVersion', [
  z.strictObject({ formatVersion: z.literal(1) }),
  z.strictObject({
    formatVersion: z.literal(2),
    keyId: WriterKeyIdSchema,
    publicKey: WriterPublicKeySchema,
    signedAtMs: NonNegativeInt,
    senderId: z.string().nullable(),
    policyDigest: HexDigest,
    admittedAs: z.enum(AdmissionKind).nullable(),
    lineageIdCertifiesPolicy: z.boolean(),
  }),
]);
/** Type of {@link RecordAttributionSchema}. */
export type RecordAttribution = z.infer<typeof RecordAttributionSchema>;

/** The parts of a record {@link recordAttribution} reads: its header and, in format 2, its writer block. */
export interface AttributedRecord {
  readonly header: {
    readonly lineageId: string;
    readonly formatVersion: number;
    readonly policyDigest?: string | undefined;
  };
  readonly writer?:
    | {
        readonly keyId: string;
        readonly publicKey: string;
        readonly signedAtMs: number;
        readonly senderId: string | null;
      }
    | undefined;
}

/**
 * The attribution of a record that passed its integrity checks (the writer block bound by
 * `writerDigest`, its signature checked): only ever built from a verified record.
 *
 * @param admittedAs - how the policy in force before it admitted it, as the caller decided, or `null`
 */
export function recordAttribution(record: AttributedRecord, admittedAs: AdmissionKind | null): RecordAttribution {
  const { header, writer } = record;
  if (header.formatVersion !== 2 || !writer || header.policyDigest === undefined) return { formatVersion: 1 };
  const dot = header.lineageId.lastIndexOf('.');
  const suffix = dot < 1 ? '' : header.lineageId.slice(dot + 1);
  return {
    formatVersion: 2,
    keyId: writer.keyId,
    publicKey: writer.publicKey,
    signedAtMs: writer.signedAtMs,
    senderId: writer.senderId,
    policyDigest: header.policyDigest,
    admittedAs,
    lineageIdCertifiesPolicy: suffix === header.policyDigest.slice(0, LINEAGE_ID_SUFFIX_HEX),
  };
}
