import type { HexDigest } from '../canonical/digest';
import type { ResidualWriteRequest } from '../write/write-request';
import type { SealedRecord } from './sealed-record';
import { differingWriteContent } from './write-content';

/**
 * Whether `record` is the seal of this very signed request: an exact duplicate (a redelivery, a
 * retried forward, a byte-for-byte replay), not merely the same write (docs/authorship.md, "Two
 * refusals, in order"). True only when the record is format 2 and binds, beside the same lineage
 * and residual id and every field {@link differingWriteContent} compares (content, writer key,
 * the policy the write sets), the request's own writer block (`keyId`, `publicKey`,
 * `signedAtMs`, `signature`, under the header's `writerDigest`) and the guard's `verdictDigest`.
 * So equal fields put the same request signing digest under the same signature. The same content
 * re-signed at another time, by another key or with another verdict is not an exact duplicate.
 * The caller passes a record whose integrity it checked (`writerDigest` binds `writer`).
 */
export function sealsSignedRequest(
  request: ResidualWriteRequest,
  verdictDigest: HexDigest,
  record: Pick<SealedRecord, 'header' | 'writer' | 'policy'>,
): boolean {
  const { header, writer } = record;
  if (!writer) return false;
  return (
    header.lineageId === request.lineageId &&
    header.residualId === request.residualId &&
    header.verdictDigest === verdictDigest &&
    writer.keyId === request.writer.keyId &&
    writer.publicKey === request.writer.publicKey &&
    writer.signedAtMs === request.writer.signedAtMs &&
    writer.signature === request.writer.signature &&
    differingWriteContent(request, record).length === 0
  );
}
