import { createHash } from 'node:crypto';
import { canonicalJson } from '../shared/canonical/canonical-json';
import { SEAL_DEDUP_TAG } from '../shared/canonical/hash-domain';
import type { ResidualWriteRequest } from '../shared/write/write-request';

/**
 * `MessageDeduplicationId` of a write: SHA-256 hex of {@link SEAL_DEDUP_TAG}, a newline and the
 * RFC 8785 canonical write request (docs/canonical-form.md, "Tags and input objects"), so
 * it covers the lineage id, the residual id and the whole content. SQS drops only a true
 * duplicate of the same write; a residual id reused in another lineage, or with other content,
 * reaches the sealer (which seals the former and rejects the latter as `RESIDUAL_ID_REUSED`).
 * 64 characters: SQS allows at most 128 of `[A-Za-z0-9!"#$%&'()*+,-./:;<=>?@[\]^_\`{|}~]`.
 */
export function deduplicationIdOf(request: ResidualWriteRequest): string {
  return createHash('sha256')
    .update(`${SEAL_DEDUP_TAG}\n`, 'utf8')
    .update(canonicalJson(request), 'utf8')
    .digest('hex');
}
