import { z } from 'zod';
import { MacAlgorithm } from '../ports/mac-anchor';
import { BASE64_MAC_PATTERN, EpochMillis, HexDigest, Identifier, NonNegativeInt } from '../schemas/primitives';
import { SealedDependencyManifestSchema } from '../triage/sealed-dependency-manifest';
import { SessionVariableSchema } from '../write/session-variable';
import { JsonPayloadSchema, MAX_VARIABLES } from '../write/write-request';
import { KeyIdSchema, RecordHeaderSchema } from './record-header';

/**
 * Schema of an `AnchorSignature` (shared/ports/mac-anchor.ts) as stored with a record: key id,
 * `HMAC_SHA_256`, and the MAC as canonical standard base64 of 32 bytes (44 characters).
 */
export const AnchorSignatureSchema = z.strictObject({
  keyId: KeyIdSchema,
  algorithm: z.enum(MacAlgorithm),
  mac: z.string().regex(BASE64_MAC_PATTERN, 'expected the base64 of a 32-byte MAC'),
});

/**
 * A sealed residual as stored (docs/sealing.md, "Record layout"): the MAC'd header, its record
 * hash, the anchor signature, and the bodies the header names by digest (payload, manifest).
 *
 * `{ header: RecordHeader; recordHash: HexDigest; anchor: AnchorSignature; payload: JsonValue;
 *    manifest: SealedDependencyManifest; variablesUsed: SessionVariable[]; sealedAtMs: EpochMillis }`
 *
 * Every field is covered by the anchor: the header directly, `payload` via `payloadHash`,
 * `manifest` via `manifestDigest`, `variablesUsed` via `variablesDigest`, `sealedAtMs` by its
 * copy in the header, `recordHash` as the hash of the header, and `anchor` as the MAC itself
 * (its `keyId` must equal the header's). Strict at every level.
 */
export const SealedRecordSchema = z.strictObject({
  header: RecordHeaderSchema,
  /** `recordHashOf(header)`. */
  recordHash: HexDigest,
  anchor: AnchorSignatureSchema,
  payload: JsonPayloadSchema,
  manifest: SealedDependencyManifestSchema,
  variablesUsed: z.array(SessionVariableSchema).max(MAX_VARIABLES),
  /** When the sealer made the record, ms since the Unix epoch (UTC); must equal `header.sealedAtMs`. */
  sealedAtMs: EpochMillis,
});
/** Type of {@link SealedRecordSchema}. */
export type SealedRecord = z.infer<typeof SealedRecordSchema>;

/**
 * The head of a lineage: what the head item holds, what a `ResidualSealed` event carries, and
 * what a client keeps as a trusted checkpoint (docs/sealing.md, "Checkpoints and trusted
 * starts": the head must also live outside the table).
 *
 * `{ lineageId; seq; recordHash; generationEpoch; mac (base64); keyId }`
 */
export const LineageHeadSchema = z.strictObject({
  lineageId: Identifier,
  /** Sequence number of the latest record. */
  seq: NonNegativeInt,
  /** Its record hash. */
  recordHash: HexDigest,
  /** Its generation epoch (the fencing token a new write must not go below). */
  generationEpoch: NonNegativeInt,
  /** Its anchor MAC, base64. */
  mac: AnchorSignatureSchema.shape.mac,
  /** Key of that MAC. */
  keyId: KeyIdSchema,
});
/** Type of {@link LineageHeadSchema}. */
export type LineageHead = z.infer<typeof LineageHeadSchema>;

/**
 * The lineage head a sealed record makes: `{ lineageId, seq, recordHash, generationEpoch, mac, keyId }`.
 * No validation: pass a record {@link sealRecord} returned or {@link verifyChain} verified.
 */
export function lineageHeadOf(record: SealedRecord): LineageHead {
  return {
    lineageId: record.header.lineageId,
    seq: record.header.monotonicSequenceNumber,
    recordHash: record.recordHash,
    generationEpoch: record.header.generationEpoch,
    mac: record.anchor.mac,
    keyId: record.header.keyId,
  };
}
