import { describe, expect, it } from 'vitest';
import { markValidated } from '../../../../shared/schemas/validated';
import { lineageHeadOf } from '../../../../shared/seal/lineage-head';
import { payloadHash } from '../../../../shared/seal/payload-hash';
import { sealInputOfWrite } from '../../../../shared/seal/seal-input';
import { sealValidated } from '../../../../shared/seal/seal-record';
import type { SealedRecord } from '../../../../shared/seal/sealed-record';
import { differingWriteContent } from '../../../../shared/seal/write-content';
import { manifestDigest } from '../../../../shared/triage/manifest-digest';
import type { ResidualWriteRequest } from '../../../../shared/write/write-request';
import { FACTORY_NOW_MS, validWriteRequest } from '../../../helpers/guard-factories';
import { buildChain, testAnchor } from '../../../helpers/seal-factories';
import { STRANGER_WRITER, signWriteSync, TEST_POLICY, TEST_WRITER } from '../../../helpers/writer-factories';

/** Seals `request` as the sealer does (format 2, sender id `AIDA-SENDER`), on `parent` if given. */
const sealed = (request: ResidualWriteRequest, parent?: SealedRecord): Promise<SealedRecord> =>
  sealValidated(
    sealInputOfWrite(
      markValidated(request),
      'a'.repeat(64),
      { payloadHash: payloadHash(request.payload), manifestDigest: manifestDigest(request.manifest) },
      'AIDA-SENDER',
    ),
    parent ? { ...lineageHeadOf(parent), policyDigest: parent.header.policyDigest } : null,
    testAnchor(),
    FACTORY_NOW_MS,
  );

describe('differingWriteContent (docs/authorship.md, "Signed writes")', () => {
  it('the same request, and the same content re-signed later by the same key, are the same write', async () => {
    const request = validWriteRequest();
    const record = await sealed(request);
    expect(differingWriteContent(request, record)).toEqual([]);
    // Another signedAtMs and signature, and the record's senderId, are not what makes another write.
    const resigned = signWriteSync(request, TEST_WRITER, FACTORY_NOW_MS + 60_000);
    expect(resigned.writer.signature).not.toBe(request.writer.signature);
    expect(differingWriteContent(resigned, record)).toEqual([]);
  });

  it('the same residual id and content from another writer is another write: writer differs', async () => {
    const record = await sealed(validWriteRequest());
    const stranger = signWriteSync(validWriteRequest(), STRANGER_WRITER, FACTORY_NOW_MS);
    expect(differingWriteContent(stranger, record)).toEqual(['writer']);
    // Same public key under another key id is another writer block too.
    const relabelled = { ...validWriteRequest(), writer: { ...validWriteRequest().writer, keyId: 'other-label' } };
    expect(differingWriteContent(relabelled, record)).toEqual(['writer']);
  });

  it('the same residual id setting another policy, or none, is another write: policy differs', async () => {
    const record = await sealed(validWriteRequest());
    const otherPolicy = validWriteRequest({ policy: { ...TEST_POLICY, recoveryKeys: [] } });
    expect(differingWriteContent(otherPolicy, record)).toEqual(['policy']);
    const { policy: _policy, ...noPolicy } = validWriteRequest();
    expect(differingWriteContent(signWriteSync(noPolicy, TEST_WRITER, FACTORY_NOW_MS), record)).toEqual(['policy']);
    // And a write setting a policy against a record that set none.
    const write = signWriteSync({ ...noPolicy, residualId: 'residual-0002' }, TEST_WRITER, FACTORY_NOW_MS);
    const plain = await sealed(write, record);
    expect(plain.policy).toBeNull();
    expect(differingWriteContent(write, plain)).toEqual([]);
    expect(differingWriteContent({ ...write, policy: TEST_POLICY }, plain)).toEqual(['policy']);
  });

  it('another boundary or declared constants is another write: boundaryDigest differs', async () => {
    const request = validWriteRequest();
    const record = await sealed(request);
    const boundary = validWriteRequest({
      boundary: { ...request.boundary, boundaryAtMs: request.boundary.boundaryAtMs - 1 },
    });
    expect(differingWriteContent(boundary, record)).toEqual(['boundaryDigest']);
    expect(differingWriteContent(validWriteRequest({ declaredImmutableConstants: [] }), record)).toEqual([
      'boundaryDigest',
    ]);
  });

  it('a format-1 record (no writer, boundary or policy) is never the seal of a signed write', async () => {
    const { records } = await buildChain(1);
    const legacy = records[0] as SealedRecord;
    const differing = differingWriteContent(validWriteRequest(), legacy);
    expect(differing).toEqual(expect.arrayContaining(['boundaryDigest', 'writer', 'policy']));
  });
});
