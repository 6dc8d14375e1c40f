import { z } from 'zod';
import { MacAlgorithm } from '../ports/mac-anchor';
import { BASE64_MAC_PATTERN } from '../schemas/base64-mac-pattern';
import { KeyIdSchema } from './key-id';

/**
 * Schema of an `AnchorSignature` (shared/ports/mac-anchor.ts) as stored with a record: key id,
 * `HMAC_SHA_256`, and the MAC as canonical standard base64 of 32 bytes (44 characters).
 */
export const AnchorSignatureSchema = z.strictObject({
  keyId: KeyIdSchema,
  algorithm: z.enum(MacAlgorithm),
  mac: z.string().regex(BASE64_MAC_PATTERN, 'expected the base64 of a 32-byte MAC'),
});
