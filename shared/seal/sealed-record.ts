import { z } from 'zod';
import { LineagePolicySchema } from '../authorship/lineage-policy';
import { RecordWriterSchema } from '../authorship/writer-block';
import { EpochMillis } from '../schemas/epoch-millis';
import { HexDigest } from '../schemas/hex-digest';
import { SealedDependencyManifestSchema } from '../triage/sealed-dependency-manifest';
import { JsonPayloadSchema } from '../write/json-payload';
import { SessionSnapshotBoundarySchema } from '../write/session-boundary';
import { SessionVariableSchema, VariableName } from '../write/session-variable';
import { MAX_DECLARED_CONSTANTS, MAX_VARIABLES } from '../write/write-request';
import { AnchorSignatureSchema } from './anchor-signature';
import { RecordBatchPlaceSchema } from './record-batch';
import { RECORD_FORMAT_WRITER_BOUND, RecordHeaderSchema } from './record-header';

/** The fields a format-2 record stores beside its header (docs/authorship.md, "Record format 2"). */
export const WRITER_BOUND_RECORD_FIELDS = ['writer', 'boundary', 'declaredImmutableConstants', 'policy'] as const;

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
 *
 * A format-2 record (docs/authorship.md, "Record format 2") also stores `writer` (the signed
 * writer block and the SQS `SenderId`, bound by `writerDigest`), `boundary` and
 * `declaredImmutableConstants` (bound by `boundaryDigest`) and `policy` (the lineage write policy
 * this record sets, or `null`; the header's `policyDigest` names the policy in force after it).
 * A format-1 record has none of them.
 *
 * A record whose MAC is its sealer invocation's batch MAC (docs/sealing.md, "The record and its
 * seal") also stores `macBatch`, its place in the batch (leaf index, batch size, audit path); a
 * record MAC'd on its own (every record sealed before batches, and a batch of one) has none.
 */
export const SealedRecordSchema = z
  .strictObject({
    header: RecordHeaderSchema,
    /** `recordHashOf(header)`. */
    recordHash: HexDigest,
    anchor: AnchorSignatureSchema,
    /** A batch MAC's place of the record in the batch; absent: the MAC is over the header bytes. */
    macBatch: RecordBatchPlaceSchema.optional(),
    payload: JsonPayloadSchema,
    manifest: SealedDependencyManifestSchema,
    variablesUsed: z.array(SessionVariableSchema).max(MAX_VARIABLES),
    /** When the sealer made the record, ms since the Unix epoch (UTC); must equal `header.sealedAtMs`. */
    sealedAtMs: EpochMillis,
    /** Format 2: who signed the write, and the SQS `SenderId`. */
    writer: RecordWriterSchema.optional(),
    /** Format 2: the session snapshot boundary the guard judged. */
    boundary: SessionSnapshotBoundarySchema.optional(),
    /** Format 2: the names the write declared immutable. */
    declaredImmutableConstants: z.array(VariableName).max(MAX_DECLARED_CONSTANTS).optional(),
    /** Format 2: the lineage write policy this record sets (inception, rotation, recovery), else `null`. */
    policy: LineagePolicySchema.nullable().optional(),
  })
  .superRefine((record, ctx) => {
    const bound = (record.header as { formatVersion?: unknown }).formatVersion === RECORD_FORMAT_WRITER_BOUND;
    for (const field of WRITER_BOUND_RECORD_FIELDS) {
      if (bound && record[field] === undefined)
        ctx.addIssue({ code: 'custom', path: [field], message: 'required in a format-2 record' });
      if (!bound && record[field] !== undefined)
        ctx.addIssue({ code: 'custom', path: [field], message: 'not a field of a format-1 record' });
    }
  });
/** Type of {@link SealedRecordSchema}. */
export type SealedRecord = z.infer<typeof SealedRecordSchema>;
