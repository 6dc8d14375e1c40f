import { describe, expect, it } from 'vitest';
import { unprovenWriterRefusals } from '../../../mcp/unproven-writer-refusals';
import { RejectionReason } from '../../../shared/pipeline/rejection-reason';
import { requestDigest } from '../../../shared/write/request-digest';
import type { ResidualWriteRequest } from '../../../shared/write/write-request';
import { validWriteRequest } from '../../helpers/guard-factories';

// docs/mcp.md, `reseal_write`: a timed-out write reports the unsigned refusals of its own request
// (docs/authorship.md, "Refusals without a `Sign`") as unproven, never as its outcome.
const request = validWriteRequest() as ResidualWriteRequest;
const digest = requestDigest(request);

/** A client whose table holds `rows` under the request's lineage. */
const holding = (rows: { reason: string; stage?: string; digest?: string; signed?: boolean }[]) => ({
  readRefusals: async () => ({
    rejections: rows.map((row) => ({
      reason: row.reason,
      stage: row.stage ?? 'GUARD',
      requestDigest: row.digest ?? digest,
      signatureVerified: row.signed ?? false,
    })) as never,
    conflicts: [],
  }),
});

describe('unprovenWriterRefusals', () => {
  it.each([
    RejectionReason.TENANT_MISMATCH,
    RejectionReason.WRITER_SIGNATURE_INVALID,
    RejectionReason.WRITER_NOT_ADMITTED,
    RejectionReason.LINEAGE_BEHIND_INDEX,
    RejectionReason.INDEX_UNVERIFIABLE,
  ])('reports an unsigned %s of this very request as unproven', async (reason) => {
    const found = await unprovenWriterRefusals(holding([{ reason }]), request);
    expect(found?.refusals).toEqual([{ stage: 'GUARD', reason }]);
  });

  it('leaves out refusals of another request, signed ones and reasons a function signs', async () => {
    const found = await unprovenWriterRefusals(
      holding([
        { reason: RejectionReason.TENANT_MISMATCH, digest: 'f'.repeat(64) },
        { reason: RejectionReason.WRITER_NOT_ADMITTED, signed: true },
        { reason: RejectionReason.STALE_STATE },
      ]),
      request,
    );
    expect(found).toBeNull();
  });
});
