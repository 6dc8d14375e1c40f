import type { HexDigest } from '../canonical/digest';
import { hashCanonical } from '../canonical/hash-canonical';
import { FORMAT_VERSION, HashDomain } from '../canonical/hash-domain';
import type { RecordWriter } from './writer-block';

/**
 * `writerDigest` of a format-2 header: `hashCanonical("reseal/v1/writer", { v: 1, keyId,
 * publicKey, signedAtMs, signature, senderId })`. The writer is bound by digest because a key id
 * may be a 2,048-character KMS ARN and the header has 4,096 bytes (docs/authorship.md).
 *
 * @throws {CanonicalizationError} when a field is not exactly representable as JSON
 */
export function writerDigest(writer: RecordWriter): HexDigest {
  return hashCanonical(HashDomain.WRITER, {
    v: FORMAT_VERSION,
    keyId: writer.keyId,
    publicKey: writer.publicKey,
    signedAtMs: writer.signedAtMs,
    signature: writer.signature,
    senderId: writer.senderId,
  });
}
