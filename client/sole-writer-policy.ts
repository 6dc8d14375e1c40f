import { type LineagePolicy, lineageIdFor, lineageIdMatchesPolicy } from '../shared/authorship/lineage-policy';
import type { LineageStore } from '../shared/ports/lineage-store';
import type { WriterSigner } from '../shared/ports/writer-signer';
import type { ResidualWriteRequest, UnsignedWriteRequest } from '../shared/write/write-request';

/**
 * The default lineage write policy of one writer key (docs/authorship.md, "Self-certifying
 * lineage ids"): that key alone writes, recovered by `recoveryKeys` (base64 Ed25519 public keys,
 * default none: such a lineage cannot be recovered once its key is lost).
 */
export function soleWriterPolicy(
  writer: Pick<WriterSigner, 'keyId' | 'publicKey'>,
  recoveryKeys: readonly string[] = [],
): LineagePolicy {
  return { v: 1, writers: [{ keyId: writer.keyId, publicKey: writer.publicKey }], recoveryKeys: [...recoveryKeys] };
}

/** `<label>.<digest>`: the id of the lineage `label` under {@link soleWriterPolicy} of `writer` (`reseal lineage-id`). */
export function soleWriterLineageId(label: string, writer: Pick<WriterSigner, 'keyId' | 'publicKey'>): string {
  return lineageIdFor(label, soleWriterPolicy(writer));
}

/**
 * The request with its inception policy added when it starts a lineage whose id certifies
 * `policy` (no head yet, no policy given), so the first write of `soleWriterLineageId(label, key)`
 * needs no policy spelled out. Any other request is returned as is.
 */
export async function withInceptionPolicy<R extends UnsignedWriteRequest | ResidualWriteRequest>(
  store: Pick<LineageStore, 'head'>,
  request: R,
  policy: LineagePolicy,
): Promise<R> {
  if (request.policy !== undefined || !lineageIdMatchesPolicy(request.lineageId, policy)) return request;
  if ((await store.head(request.lineageId)) !== null) return request;
  return { ...request, policy };
}
