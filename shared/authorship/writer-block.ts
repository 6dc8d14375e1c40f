import { z } from 'zod';
import { EpochMillis } from '../schemas/epoch-millis';
import { NO_CONTROL_CHARACTERS } from '../schemas/no-control-characters';
import { wellFormedString } from '../schemas/well-formed-string';

/** Length of a raw Ed25519 public key (RFC 8032 §5.1.5). */
export const WRITER_PUBLIC_KEY_BYTES = 32;
/** Length of a pure Ed25519 signature (RFC 8032 §5.1.6). */
export const WRITER_SIGNATURE_BYTES = 64;

/** Canonical padded standard base64 of 32 bytes (44 characters, zero padding bits). */
export const BASE64_32_PATTERN = /^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$/;
/** Canonical padded standard base64 of 64 bytes (88 characters, zero padding bits). */
export const BASE64_64_PATTERN = /^[A-Za-z0-9+/]{85}[AQgw]==$/;

/**
 * A writer's key id: a label of the writer's choosing or a KMS key ARN (1–2,048 characters,
 * well-formed, no control characters), like the MAC's `KeyIdSchema`.
 */
export const WriterKeyIdSchema = wellFormedString(2048)
  .min(1)
  .regex(NO_CONTROL_CHARACTERS, 'key id holds a control character');

/** A raw Ed25519 public key as canonical base64 of its 32 bytes. */
export const WriterPublicKeySchema = z
  .string()
  .regex(BASE64_32_PATTERN, 'expected the canonical base64 of a 32-byte Ed25519 public key');

/**
 * The writer block of a write request (docs/authorship.md, "Signed writes"): who signed the
 * request and when, and the signature. Strict.
 *
 * `{ keyId; publicKey (base64, 32 bytes); signedAtMs (ms since the Unix epoch); signature (base64, 64 bytes) }`
 */
export const WriterBlockSchema = z.strictObject({
  keyId: WriterKeyIdSchema,
  publicKey: WriterPublicKeySchema,
  /** When the writer signed, ms since the Unix epoch (the guard bounds its age). */
  signedAtMs: EpochMillis,
  signature: z.string().regex(BASE64_64_PATTERN, 'expected the canonical base64 of a 64-byte Ed25519 signature'),
});
/** Type of {@link WriterBlockSchema}. */
export type WriterBlock = z.infer<typeof WriterBlockSchema>;

/**
 * The writer as a format-2 record stores it: the request's {@link WriterBlock} and the SQS
 * `SenderId` of the original `residual-writes` message (`null` when the queue gave none).
 */
export const RecordWriterSchema = WriterBlockSchema.extend({
  /** SQS `SenderId` (the sending principal's id on AWS; the account id on the embedded emulator). */
  senderId: wellFormedString(512).min(1).regex(NO_CONTROL_CHARACTERS, 'sender id holds a control character').nullable(),
});
/** Type of {@link RecordWriterSchema}. */
export type RecordWriter = z.infer<typeof RecordWriterSchema>;
