import { describe, expect, it } from 'vitest';
import { markValidated } from '../../../../shared/schemas/validated';
import { payloadHash } from '../../../../shared/seal/payload-hash';
import { sealInputOfWrite } from '../../../../shared/seal/seal-input';
import { sealValidated } from '../../../../shared/seal/seal-record';
import type { SealedRecord } from '../../../../shared/seal/sealed-record';
import { sealsSignedRequest } from '../../../../shared/seal/seals-signed-request';
import { manifestDigest } from '../../../../shared/triage/manifest-digest';
import type { ResidualWriteRequest } from '../../../../shared/write/write-request';
import { FACTORY_NOW_MS, validWriteRequest } from '../../../helpers/guard-factories';
import { buildChain, testAnchor } from '../../../helpers/seal-factories';
import { STRANGER_WRITER, signWriteSync, TEST_WRITER } from '../../../helpers/writer-factories';

const VERDICT = 'a'.repeat(64);

/** Seals `request` as the sealer does (format 2, verdict digest {@link VERDICT}). */
const sealed = (request: ResidualWriteRequest): Promise<SealedRecord> =>
  sealValidated(
    sealInputOfWrite(
      markValidated(request),
      VERDICT,
      { payloadHash: payloadHash(request.payload), manifestDigest: manifestDigest(request.manifest) },
      'AIDA-SENDER',
    ),
    null,
    testAnchor(),
    FACTORY_NOW_MS,
  );

describe('sealsSignedRequest (docs/authorship.md, "Two refusals, in order")', () => {
  it('the very request sealed is its exact duplicate, whatever the message carried it', async () => {
    const request = validWriteRequest();
    expect(sealsSignedRequest(request, VERDICT, await sealed(request))).toBe(true);
  });

  it('the same write is not enough: re-signed later, another key, another verdict, another id or content', async () => {
    const request = validWriteRequest();
    const record = await sealed(request);
    const others: [string, ResidualWriteRequest, string][] = [
      ['re-signed later', signWriteSync(request, TEST_WRITER, FACTORY_NOW_MS + 60_000), VERDICT],
      ['another key', signWriteSync(request, STRANGER_WRITER, FACTORY_NOW_MS), VERDICT],
      ['another verdict', request, 'b'.repeat(64)],
      ['another residual id', validWriteRequest({ residualId: 'residual-0002' }), VERDICT],
      ['another payload', validWriteRequest({ payload: { other: 'content' } }), VERDICT],
      // A signature block copied onto other content: the record binds the content too.
      [
        'copied signature',
        { ...validWriteRequest({ payload: { other: 'content' } }), writer: request.writer },
        VERDICT,
      ],
    ];
    for (const [what, other, verdict] of others) {
      expect({ what, exact: sealsSignedRequest(other, verdict, record) }).toEqual({ what, exact: false });
    }
  });

  it('a format-1 record (no writer) is never the seal of a signed request', async () => {
    const { records } = await buildChain(1);
    expect(sealsSignedRequest(validWriteRequest(), VERDICT, records[0] as SealedRecord)).toBe(false);
  });
});
