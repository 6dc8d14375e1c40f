import { hash } from 'node:crypto';
import { z } from 'zod';
import { canonicalString } from '../canonical/canonical-json';
import type { HexDigest } from '../canonical/digest';
import { hashBytes } from '../canonical/hash-bytes';
import { FORMAT_VERSION, HashDomain } from '../canonical/hash-domain';
import { HeaderTooLargeError } from '../errors';
import { AuthoritySchema } from '../schemas/authority';
import { EpochMillis } from '../schemas/epoch-millis';
import { HexDigest as HexDigestSchema } from '../schemas/hex-digest';
import { Identifier } from '../schemas/identifier';
import { NonNegativeInt } from '../schemas/non-negative-int';
import { parseInput } from '../schemas/parse';
import { KeyIdSchema } from './key-id';
import { SupersedesSchema } from './supersedes';

/** Format version of a writer-bound record header (docs/authorship.md, "Record format 2"). */
export const RECORD_FORMAT_WRITER_BOUND = 2 as const;

/** The header fields format 2 adds, in RFC 8785 order of the others they sit among. */
export const WRITER_BOUND_HEADER_FIELDS = ['writerDigest', 'boundaryDigest', 'policyDigest'] as const;

/** Largest MAC message KMS `GenerateMac` / `VerifyMac` accept, in bytes. */
export const MAX_HEADER_BYTES = 4096;

/**
 * The record header: the small canonical structure the anchor MACs and whose hash the next
 * record names as `parentRecordHash` (docs/sealing.md, "Record layout"; byte layouts in
 * docs/canonical-form.md). It binds every stored field of a record: the payload, the manifest and the
 * guard's variables (with their freshness receipts) through their digests, everything else
 * directly, so an edit to any field of a stored record changes the record hash or breaks the MAC.
 * Bodies are named by digest, never inlined, so the header stays under the 4,096-byte KMS MAC
 * limit. Strict: unknown fields refused. Format 2 (docs/authorship.md, "Record format 2") adds
 * `writerDigest`, `boundaryDigest` and `policyDigest`, required there and refused in format 1.
 */
export const RecordHeaderSchema = z
  .strictObject({
    /** `1` (legacy, no writer) or `2` (writer-bound, docs/authorship.md, "Record format 2"). */
    formatVersion: z.union([z.literal(FORMAT_VERSION), z.literal(RECORD_FORMAT_WRITER_BOUND)]),
    lineageId: Identifier,
    /** 0 for the first record of a lineage, then exactly previous + 1. */
    monotonicSequenceNumber: NonNegativeInt,
    residualId: Identifier,
    sessionId: Identifier,
    /** {@link payloadHash} of the record's payload. */
    payloadHash: HexDigestSchema,
    /** `recordHash` of the previous record, or {@link genesisParentHash} for seq 0. */
    parentRecordHash: HexDigestSchema,
    /** Fencing token: never smaller than the previous record's. */
    generationEpoch: NonNegativeInt,
    authority: AuthoritySchema,
    /** `manifestDigest(manifest)` of the record's sealed dependency manifest (docs/triage.md). */
    manifestDigest: HexDigestSchema,
    /** The guard's `verdictDigest` (docs/guard.md) that admitted the write. */
    verdictDigest: HexDigestSchema,
    /** {@link variablesDigest} of the record's `variablesUsed` (the guard's variables and receipts, docs/guard.md). */
    variablesDigest: HexDigestSchema,
    /** When the sealer made the record, ms since the Unix epoch (UTC); equal to the record's `sealedAtMs`. */
    sealedAtMs: EpochMillis,
    /** Key whose MAC anchors this header (HMAC keys do not rotate, so records name theirs). */
    keyId: KeyIdSchema,
    /** The record this one supersedes (a re-seal after re-probes), or `null`. */
    supersedes: SupersedesSchema.nullable(),
    /** Format 2: `writerDigest(record.writer)` (docs/authorship.md). */
    writerDigest: HexDigestSchema.optional(),
    /** Format 2: `boundaryDigest(record.boundary, record.declaredImmutableConstants)`. */
    boundaryDigest: HexDigestSchema.optional(),
    /** Format 2: `policyDigest` of the lineage write policy in force after this record. */
    policyDigest: HexDigestSchema.optional(),
  })
  .superRefine((header, ctx) => {
    const bound = header.formatVersion === RECORD_FORMAT_WRITER_BOUND;
    for (const field of WRITER_BOUND_HEADER_FIELDS) {
      if (bound && header[field] === undefined)
        ctx.addIssue({ code: 'custom', path: [field], message: `required in a format-2 header` });
      if (!bound && header[field] !== undefined)
        ctx.addIssue({ code: 'custom', path: [field], message: `not a field of a format-1 header` });
    }
  });
/** Type of {@link RecordHeaderSchema}. */
export type RecordHeader = z.infer<typeof RecordHeaderSchema>;

/**
 * Canonical bytes of an already validated header; the MAC message (a `Buffer`, possibly a view
 * into Node's shared pool: read it through its offset and length, as every `Uint8Array`).
 *
 * Written member by member in RFC 8785 order (the sorted field names below), which for a header
 * that passed {@link RecordHeaderSchema} is `canonicalBytes(header)` exactly (a property test
 * compares them): identifiers, digests and the authority need no escaping, numbers are safe
 * integers, and the key id, the one free-form text, goes through the RFC 8785 string writer.
 *
 * @throws {HeaderTooLargeError} above {@link MAX_HEADER_BYTES}
 */
export function encodeHeader(header: RecordHeader): Uint8Array {
  return encodeHeaderWithHash(header).message;
}

/**
 * {@link encodeHeader} with the record hash of the same text ({@link recordHashOf}'s value),
 * hashed as the string `tag NUL text` (well-formed, so its UTF-8 is the bytes) rather than by
 * copying the bytes behind the tag: what a seal and a verification both need, from one text.
 *
 * @throws {HeaderTooLargeError} above {@link MAX_HEADER_BYTES}
 */
export function encodeHeaderWithHash(header: RecordHeader): { message: Uint8Array; recordHash: HexDigest } {
  const s = header.supersedes;
  const bound = header.formatVersion === RECORD_FORMAT_WRITER_BOUND;
  const text =
    `{"authority":"${header.authority}"` +
    (bound ? `,"boundaryDigest":"${header.boundaryDigest}"` : '') +
    `,"formatVersion":${header.formatVersion},"generationEpoch":${header.generationEpoch}` +
    `,"keyId":${canonicalString(header.keyId)},"lineageId":"${header.lineageId}","manifestDigest":"${header.manifestDigest}"` +
    `,"monotonicSequenceNumber":${header.monotonicSequenceNumber},"parentRecordHash":"${header.parentRecordHash}"` +
    `,"payloadHash":"${header.payloadHash}"` +
    (bound ? `,"policyDigest":"${header.policyDigest}"` : '') +
    `,"residualId":"${header.residualId}","sealedAtMs":${header.sealedAtMs}` +
    `,"sessionId":"${header.sessionId}","supersedes":${s === null ? 'null' : `{"recordHash":"${s.recordHash}","seq":${s.seq}}`}` +
    `,"variablesDigest":"${header.variablesDigest}","verdictDigest":"${header.verdictDigest}"` +
    (bound ? `,"writerDigest":"${header.writerDigest}"}` : '}');
  const message = Buffer.from(text, 'utf8');
  if (message.byteLength > MAX_HEADER_BYTES) throw new HeaderTooLargeError(message.byteLength);
  return { message, recordHash: hash('sha256', `${HashDomain.RECORD_HEADER}\0${text}`, 'hex') };
}

/**
 * Canonical bytes of a record header: the exact message the MAC anchor signs and verifies.
 *
 * RFC 8785 (JCS), UTF-8, at most 4,096 bytes (the KMS `GenerateMac` message limit).
 *
 * @throws {InvalidInputError} when `header` is not a valid {@link RecordHeader}
 * @throws {HeaderTooLargeError} when the canonical form exceeds 4,096 bytes
 */
export function headerBytes(header: RecordHeader): Uint8Array {
  // A fresh array of exactly the bytes: the writer's Buffer may be a view into Node's shared pool.
  return new Uint8Array(encodeHeader(parseInput(RecordHeaderSchema, header, 'record header')));
}

/**
 * Record hash of a header: `SHA-256("reseal/v1/record-header" || 0x00 || headerBytes(header))`
 * as lowercase hex. The next record names it as `parentRecordHash` (docs/sealing.md, check 8).
 *
 * @throws {InvalidInputError} when `header` is not a valid {@link RecordHeader}
 * @throws {HeaderTooLargeError} when the canonical form exceeds 4,096 bytes
 */
export function recordHashOf(header: RecordHeader): HexDigest {
  return hashBytes(HashDomain.RECORD_HEADER, headerBytes(header));
}
