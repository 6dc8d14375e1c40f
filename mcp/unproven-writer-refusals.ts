import type { ResealClient } from '../client/reseal-client';
import { UNSIGNED_REJECTION_REASONS } from '../shared/pipeline/unsigned-rejection-reasons';
import { requestDigest } from '../shared/write/request-digest';
import type { ResidualWriteRequest } from '../shared/write/write-request';
import { UNTRUSTED_NOTE } from './outputs/untrusted-note';

/** The `untrusted` field of a `reseal_write` `TIMEOUT` that found unsigned refusals of its write. */
export interface UnprovenWriterRefusals {
  readonly note: typeof UNTRUSTED_NOTE;
  /** Each stored refusal of this very request with an unsigned reason, oldest first. */
  readonly refusals: readonly { readonly stage: string; readonly reason: string }[];
}

/**
 * The unsigned refusals (`UNSIGNED_REJECTION_REASONS`: a tenant mismatch, a writer signature or
 * admission, a run behind the index, …) the table holds of this very published `request` (same
 * `requestDigest`), or `null` for none. They are never outcomes:
 * anyone who can write the table could have planted them, so a timed-out write only reports them
 * as unproven (docs/mcp.md, `reseal_write`). Only the fixed reason and stage names are copied.
 * A failure to read the table counts as none: the answer is a `TIMEOUT` either way.
 */
export async function unprovenWriterRefusals(
  client: Pick<ResealClient, 'readRefusals'>,
  request: ResidualWriteRequest,
): Promise<UnprovenWriterRefusals | null> {
  const digest = requestDigest(request);
  let rejections: Awaited<ReturnType<ResealClient['readRefusals']>>['rejections'];
  try {
    ({ rejections } = await client.readRefusals(request.lineageId));
  } catch {
    return null;
  }
  const refusals = rejections
    .filter(
      (r) =>
        r.requestDigest === digest &&
        (UNSIGNED_REJECTION_REASONS as ReadonlySet<string>).has(r.reason) &&
        !r.signatureVerified,
    )
    .map((r) => ({ stage: r.stage === 'GUARD' ? 'GUARD' : 'SEALER', reason: r.reason }));
  return refusals.length > 0 ? { note: UNTRUSTED_NOTE, refusals } : null;
}
