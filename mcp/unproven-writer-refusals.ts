import type { ResealClient } from '../client/reseal-client';
import { requestDigest } from '../shared/log/outcome-statement';
import { RejectionReason } from '../shared/pipeline/messages';
import type { ResidualWriteRequest } from '../shared/write/write-request';
import { UNTRUSTED_NOTE } from './outputs/untrusted-note';

/** The two refusals the guard and the sealer record without a signature (docs/authorship.md, "Refusals without a `Sign`"). */
const UNSIGNED_REASONS: ReadonlySet<string> = new Set([
  RejectionReason.WRITER_SIGNATURE_INVALID,
  RejectionReason.WRITER_NOT_ADMITTED,
]);

/** The `untrusted` field of a `reseal_write` `TIMEOUT` that found unsigned refusals of its write. */
export interface UnprovenWriterRefusals {
  readonly note: typeof UNTRUSTED_NOTE;
  /** Each stored refusal of this very request with one of the two unsigned reasons, oldest first. */
  readonly refusals: readonly { readonly stage: string; readonly reason: string }[];
}

/**
 * The unsigned `WRITER_SIGNATURE_INVALID` / `WRITER_NOT_ADMITTED` refusals the table holds of this
 * very published `request` (same `requestDigest`), or `null` for none. They are never outcomes:
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
    .filter((r) => r.requestDigest === digest && UNSIGNED_REASONS.has(r.reason) && !r.signatureVerified)
    .map((r) => ({ stage: r.stage === 'GUARD' ? 'GUARD' : 'SEALER', reason: r.reason }));
  return refusals.length > 0 ? { note: UNTRUSTED_NOTE, refusals } : null;
}
