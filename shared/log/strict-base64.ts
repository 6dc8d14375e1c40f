/**
 * Standard base64 (RFC 4648 §4) read strictly: padded, no white space, and only the canonical
 * spelling (zero padding bits), so one byte string has exactly one accepted text. Lenient
 * decoders map several texts to the same bytes, which would let a signed note or a checkpoint be
 * re-spelled without changing what it decodes to.
 */

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The bytes `text` encodes, or `undefined` unless it is canonical padded standard base64. */
export function decodeStrictBase64(text: string): Uint8Array | undefined {
  if (!BASE64.test(text)) return undefined;
  const bytes = Buffer.from(text, 'base64');
  if (bytes.toString('base64') !== text) return undefined;
  return Uint8Array.from(bytes);
}

/** Standard padded base64 of `bytes`. */
export function encodeBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}
